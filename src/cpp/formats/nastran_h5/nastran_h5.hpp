// MSC Nastran HDF5 results (.h5: the "NH5RDB" database MSC Nastran 2016+ writes with
// MDLPRM,HDF5). Read only, through io/hdf5 (needs HDF5 in the build).
//
// What a read produces (nastran_h5_model.cpp and nastran_h5_results.cpp say how):
//   points      float64 (n, 3) from /NASTRAN/INPUT/NODE/GRID (ID, CP, X[3] …), in file order;
//               point data "nastran:grid_id" (int64). Grids given in a local system (CP != 0)
//               are placed in basic through /NASTRAN/INPUT/COORDINATE_SYSTEM (CORD1x/CORD2x,
//               io/geometry/nastran_coordinates); "nastran:cp" then keeps the system given.
//   cells       from the /NASTRAN/INPUT/ELEMENT/<CARD> tables the element table of
//               io/cells/nastran_element_types.hpp knows (the cards OP2's reader reads: CTRIA3/
//               CTRIAR, CTRIA6, CQUAD4/CQUADR, CQUAD8, CTETRA, CPYRAM, CPENTA, CHEXA, CBAR,
//               CBEAM, CROD, CTUBE, CONROD); one block per cell type in order of first
//               appearance (tables in the order HDF5 lists them, by name); a second-order
//               card with blank midside grids becomes its linear cell. Cell data
//               "nastran:element_id" and "nastran:ref" (the property id, 0 for CONROD), one
//               Cell region "property_<pid>" per property id. Springs, dampers, masses
//               (CELAS*, CDAMP*, CONM*, CMASS*), CSHEAR, PLOTEL and rigid elements are passed over.
//   steps       each /NASTRAN/RESULT/DOMAINS row a nodal or stress/strain table below refers
//               to, in DOMAINS order; time(k) is TIME_FREQ_EIGR (the eigenvalue of a mode, the
//               time, frequency or load factor), the subcase id for statics (ANALYSIS 1), as
//               OP2's reader. Field data per step: nastran:subcase, nastran:approach_code
//               (ANALYSIS), nastran:domain_id, and for modes nastran:mode, nastran:eigenvalue,
//               nastran:cycles.
//   point data  /NASTRAN/RESULT/NODAL tables of (ID, X, Y, Z, RX, RY, RZ): DISPLACEMENT and
//               EIGENVECTOR -> "displacement" and "rotation" (n, 3); VELOCITY, ACCELERATION,
//               SPC_FORCE, MPC_FORCE, APPLIED_LOAD -> "velocity" …, "load_vector" and
//               "<name>_rotation": OP2's names. NaN at grids the table leaves out; rows of
//               scalar and extra points (ids GRID lacks) are passed over.
//   cell data   /NASTRAN/RESULT/ELEMENTAL/STRESS|STRAIN tables of solids (X, Y, Z, TXY, TYZ,
//               TZX per point, centroid first: its values) and shells (X1, Y1, TXY1 of the
//               bottom fibre, X2, Y2, TXY2 of the top; corner tables: the centre's), one array
//               per block, NaN for elements without a value: "stress" / "strain" (n, 6) as
//               [xx, yy, zz, xy, yz, xz], shells' top fibre "stress_z2" / "strain_z2". The
//               tables hold no von Mises: "von_mises" (and "von_mises_z2") is computed from the
//               stress tensor (plane stress for shells), none for strains. Rods, bars, beams,
//               springs, composites (ply tables), forces and energies are passed over, as are
//               rows of elements that are no cell.
//   field data  mesh: "nastran:eigenvalues" from /NASTRAN/RESULT/SUMMARY/EIGENVALUE (EIGEN).
// read() gives the mesh with the first step's arrays plus "nastran:time"; every step through
// the time-series reader, which reads only a step's rows (the /INDEX/NASTRAN/RESULT tables
// say where each domain's rows lie).
#pragma once

#include <memory>
#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::nastran_h5 {

Mesh read(const std::string& path);
std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path);

}  // namespace meshioplusplus::nastran_h5
