// Private to formats/nastran_h5: the model (points, cells, id maps) and the result tables'
// structure, shared by the reader's files.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/cells/id_map.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::nastran_h5::detail {

inline constexpr std::string_view kFormat = "nastran_h5";

struct Model {
  Mesh mesh;  // points, cells, nastran:grid_id, nastran:element_id, nastran:ref, regions
  io::IdMap grids;
  io::IdMap elements;  // element id -> position in element_block / element_row
  std::vector<std::int32_t> element_block;
  std::vector<std::int64_t> element_row;
};

// Checks the file is MSC Nastran's (a /NASTRAN group) and reads GRID and the element tables.
Model read_model(const io::hdf5::File& file);

enum class TableKind { nodal, solid, shell };

// Rows [first, first + count) of a result table that belong to one domain.
struct Segment {
  std::int64_t domain = 0, first = 0, count = 0;
};

struct ResultTable {
  std::string path;  // "/NASTRAN/RESULT/NODAL/DISPLACEMENT"
  std::string name;  // "displacement", "stress" …
  TableKind kind = TableKind::nodal;
  std::vector<Segment> segments;
};

struct Step {
  std::int64_t domain = 0, subcase = 0, analysis = 0, mode = 0;
  double time = 0, eigenvalue = 0;
};

struct Results {
  std::vector<ResultTable> tables;
  std::vector<Step> steps;
  std::vector<double> eigenvalues;
};

// The result tables, their domains' row ranges and the steps; reads no result values.
Results find_results(const io::hdf5::File& file);
// Step `step`'s arrays: reads only its rows of each table.
TimeStep read_step(const io::hdf5::File& file, const Model& model, const Results& results, const Step& step);

}  // namespace meshioplusplus::nastran_h5::detail
