// What the mesh reader hands the time-series reader (unv_time_series.cpp): the mesh with the
// file's node and element labels, so result datasets can be placed on it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "formats/unv/unv_records.hpp"
#include "io/cells/id_map.hpp"
#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::unv::detail {

struct LabelledMesh {
  Mesh mesh;
  std::vector<Dataset> datasets;
  io::IdMap node_ids;                        // node label -> point index
  io::IdMap element_ids;                     // element label -> position in file order
  std::vector<std::int64_t> element_index;   // position -> block-major cell index, -1 when passed over
};

// The mesh of `text` (the whole file) as unv::read makes it, with its labels.
LabelledMesh read_labelled(std::string_view text, const std::string& path);

}  // namespace meshioplusplus::unv::detail
