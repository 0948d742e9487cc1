// LS-DYNA binary results (d3plot, "Database Binary Output"). Read only.
//
// A d3plot is a family of files: `d3plot` (control words, geometry, maybe the first states)
// then `d3plot01`, `d3plot02`, … each holding whole states, zero-padded to LS-DYNA's 512-word
// records. Opening any of them by its base name (`d3plot`, `run.d3plot`) reads the family in
// number order. What becomes what (d3plot_structure.cpp and d3plot_reader.cpp say how):
//   points      the initial node coordinates (n, 3), float32 or float64 as the file's word size.
//   cells       one block per element family in file order: solids "hexahedron" (8 nodes as
//               stored: degenerate tetra/wedge/pyramid forms keep their repeated nodes, as
//               VTK's vtkLSDynaReader and lasso-python show them), thick shells "hexahedron",
//               beams "line" (nodes 1-2; the 3rd, orientation node is dropped), shells "quad"
//               and "triangle" (node 3 == node 4; two blocks, each in file order), SPH
//               particles "vertex". Cell data d3plot:part (the user part id), d3plot:id (the
//               user element id, NARBS section; 1..n without one); point data d3plot:node_id.
//               Regions: one Cell region per part, named by its title (90001 section) or
//               "part <id>", tag = the part id.
//   states      time steps: time = the state's time word. Point data displacement (current
//               minus initial coordinates; IU), velocity (IV), acceleration (IA), temperature
//               (IT). Cell data per block: stress (n, 6) xx yy zz xy yz zx and
//               effective_plastic_strain (n,), each the MEAN over the element's integration
//               points (solids: 1 or 8; shells and thick shells: all MAXINT through-thickness
//               points, i.e. the mid-surface average), NaN for beams, SPH and shells of rigid
//               parts; d3plot:is_alive (1 alive, 0 deleted; MDLOPT 2), point data
//               d3plot:node_is_alive (MDLOPT 1). Field data global_kinetic_energy,
//               global_internal_energy, global_total_energy, global_velocity (3) and
//               d3plot:global_variables (all NGLBV words).
// The mesh does not follow the states: points stay initial and displacement carries the motion
// (VTK's reader shows the deformed coordinates instead). read() gives the FIRST state's arrays,
// as ParaView opens a d3plot. Not read (ReadError naming them): airbag particles, rigid road
// surfaces, rigid body data, CFD data, 10-node solids; beam and SPH results, history variables
// and strains are skipped (their words are counted, never misread).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::d3plot {

Mesh read(const std::string& path);
std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path);
// `d3plot`, `d3plot01`, `d3plot123` (any directory): LS-DYNA's fixed family names.
bool is_family_file_name(std::string_view path) noexcept;

}  // namespace meshioplusplus::d3plot
