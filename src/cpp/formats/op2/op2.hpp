// Nastran OP2 results (.op2: the binary "output2" file MSC and NX Nastran write). Read only.
//
// What a read produces (formats/op2/op2_reader.cpp says how the file is laid out):
//   points      float64 (n, 3) from the GRID records of GEOM1, in file order, as written in
//               their CP system (CP/CD systems are not applied, as the bulk-data reader does);
//               point data "nastran:grid_id" (int64) keeps the GRID ids.
//   cells       from GEOM2: CTRIA3/CTRIAR, CTRIA6, CQUAD4/CQUADR, CQUAD8, CTETRA (4/10),
//               CPYRAM (5/13), CPENTA (6/15), CHEXA (8/20), CBAR, CBEAM, CROD, CTUBE, CONROD;
//               one block per cell type in order of first appearance, node orders as the bulk
//               data reader's (io/cells/node_orders.hpp: CHEXA20/CPENTA15 midside runs). A
//               second-order element with some midside nodes blank is read as its linear cell.
//               Cell data "nastran:element_id" and "nastran:ref" (the property id, 0 for
//               CONROD); one Cell region "property_<pid>" (tag pid) per property id.
//   steps       each (subcase, mode / time / frequency / load factor) met in a result table
//               is one step, in order of first appearance; time(k) is the eigenvalue for modes
//               and buckling, the time, frequency or load factor for those, the subcase id for
//               statics. Field data per step: nastran:subcase, nastran:approach_code, and for
//               modes nastran:mode, nastran:eigenvalue, nastran:cycles.
//   point data  nodal tables (OUG/BOUG/OQG/OPG), SORT1 or SORT2 (SORT2 of frequency,
//               transient and nonlinear runs: its entries go to the steps SORT1 gives):
//               displacement / eigenvector -> "displacement" (n, 3) and "rotation" (n, 3);
//               velocity, acceleration, spc_force, load_vector likewise ("<name>",
//               "<name>_rotation"); complex ones as "<name>_real" / "<name>_imag"; heat transfer
//               "temperature", "temperature_rate", "thermal_load" (n,). NaN at grids the table
//               leaves out; scalar and extra points are passed over. Random responses (SOL 111
//               + RANDPS): PSD and CRM per frequency step as "<name>_psd" / "<name>_crm" (and
//               "rotation_psd" …); RMS and NO (one value per grid for the subcase) in one step
//               per subcase of their own, time 0, field data nastran:random_summary = 1, as
//               "<name>_rms" / "<name>_no".
//   cell data   real element stresses/strains (OES*/OSTR*) of the solids and shells, one array
//               per block, NaN for elements without a value: "stress" / "strain" (n, 6) as
//               [xx, yy, zz, xy, yz, xz] and "von_mises" / "strain_von_mises" (n,); solids give
//               their centroid values (the corner values are dropped), shells the values of the
//               bottom fibre (z1) and, beside them, "stress_z2" / "von_mises_z2" of the top
//               fibre (bilinear CQUAD4: the centre values); complex ones (frequency response,
//               complex modes) as "<name>_real" / "<name>_imag" (n, 6) and "<name>_z2_real" /
//               "<name>_z2_imag", no von Mises; random ones of CQUAD4/CTRIA3 (centroid) as
//               "<name>_<kind>" / "<name>_z2_<kind>" and, where written (RMS), "von_mises_rms".
//               Bars, beams, rods, forces (OEF), grid point forces, energies, random solids and
//               corner-point shells, ATO and peak tables are passed over.
//   field data  mesh: "nastran:eigenvalues" (float64) from LAMA when the file has it.
// read() gives the mesh with the first step's arrays (as pyNastran's GUI and ParaView show the
// first subcase) plus its field data; every step through the time-series reader.
// The file needs the geometry tables (PARAM,POST,-1 in the deck): a file without GEOM1 is a
// ReadError saying so. 32-bit words in either byte order; 64-bit OP2 files are refused.
#pragma once

#include <memory>
#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::op2 {

Mesh read(const std::string& path);
std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path);

}  // namespace meshioplusplus::op2
