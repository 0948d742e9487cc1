// Private to formats/fluent_cff: the id-ranged "sections" every part of a CFF file is stored in,
// and the data-file half of the reader.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/cells/cells_from_faces.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::fluent_cff {

inline constexpr std::string_view kFormat = "fluent_cff";

// A dataset or group whose attributes minId..maxId (1-based, inclusive) name the ids it holds.
struct Section {
  std::string path;
  std::int64_t first = 0;  // 0-based id of its first row
  std::int64_t count = 0;  // rows (maxId - minId + 1; 0 for an empty section)
};

// Every child of `group` as a section, its range checked to lie within 1..`limit`, sorted by
// first id. Throws ReadError naming the child otherwise.
std::vector<Section> sections_of(const io::hdf5::File& file, const std::string& group, std::int64_t limit);
// Throws ReadError naming `group` unless the sections cover 0..total-1 exactly once
// (`tile`) or at most once (otherwise).
void check_coverage(const io::hdf5::File& file, const std::string& group, const std::vector<Section>& sections,
                    std::int64_t total, bool tile);
// Throws ReadError naming the dataset unless it has `count` rows.
void expect_rows(const io::hdf5::File& file, const std::string& dataset, std::int64_t count);

// Adds the cell fields of the data file `data_path` (every phase of /results/1) to `mesh` as
// cell data, permuted into `cells`' blocks; `num_cells` is the case's cell count.
void read_solution(const std::string& data_path, const io::FaceCells& cells, std::int64_t num_cells, Mesh& mesh);

}  // namespace meshioplusplus::fluent_cff
