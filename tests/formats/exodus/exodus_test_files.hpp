// Exodus files built variable by variable through the project's netCDF layer
// (io/netcdf/netcdf_file.hpp), for the Exodus tests: element blocks of any element name, ragged
// NSIDED/NFACED blocks and the face blocks NFACED blocks refer to.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/netcdf/netcdf_file.hpp"
#include "support/test_support.hpp"

namespace meshioplusplus::testing_support {

// An Exodus file of 3-D points and element blocks (and face blocks, for NFACED) as the
// element-type tests need them. Connectivities are 1-based as in the file; a block with
// `counts` is ragged (NSIDED, NFACED, or an NSIDED face block): a flat list with the
// entities of each entry in counts, stored in ebepecnt/fbepecnt.
struct TestBlock {
  std::string elem_type, name;
  std::int64_t id = 0, per_entry = 0;  // per_entry: nodes of each entry; 0 when ragged
  std::vector<std::int64_t> connectivity, counts;
};

inline std::string write_blocks_file(const std::string& file, const std::vector<double>& xyz, const std::vector<TestBlock>& blocks,
                              const std::vector<TestBlock>& face_blocks = {}) {
  const std::string path = scratch(file).string();
  io::NetcdfWriter out(path, "exodus", io::NetcdfWriter::Kind::netcdf4);
  const int len_name = out.define_dimension("len_name", 33);
  out.define_dimension("num_dim", 3);
  const int nodes = out.define_dimension("num_nodes", xyz.size() / 3);
  const int num_blocks = out.define_dimension("num_el_blk", blocks.size());
  if (!face_blocks.empty()) out.define_dimension("num_fa_blk", face_blocks.size());
  std::vector<int> coordinates;
  for (const char* axis : {"coordx", "coordy", "coordz"})
    coordinates.push_back(out.define_variable(axis, DType::float64, std::vector<int>{nodes}));
  const int names = out.define_text_variable("eb_names", std::vector<int>{num_blocks, len_name});
  const int ids = out.define_variable("eb_prop1", DType::int64, std::vector<int>{num_blocks});
  // (variable, values) of every block's connectivity and counts, written after the definitions.
  std::vector<std::pair<int, const std::vector<std::int64_t>*>> contents;
  auto define = [&](const TestBlock& block, bool face_block, std::size_t k) {
    const std::string n = std::to_string(k);
    const bool nfaced = !face_block && block.elem_type == "NFACED";
    const int entries = out.define_dimension((face_block ? "num_fa_in_blk" : "num_el_in_blk") + n,
                                             block.counts.empty() ? block.connectivity.size() / block.per_entry
                                                                  : block.counts.size());
    const std::string per = face_block ? "num_nod_per_fa" : nfaced ? "num_fac_per_el" : "num_nod_per_el";
    const std::string conn = face_block ? "fbconn" : nfaced ? "facconn" : "connect";
    const int variable =
        block.counts.empty()
            ? out.define_variable(conn + n, DType::int64, std::vector<int>{entries, out.define_dimension(per + n, block.per_entry)})
            : out.define_variable(conn + n, DType::int64, std::vector<int>{out.define_dimension(per + n, block.connectivity.size())});
    out.put_text_attribute(variable, "elem_type", block.elem_type);
    contents.emplace_back(variable, &block.connectivity);
    if (block.counts.empty()) return;
    contents.emplace_back(out.define_variable((face_block ? "fbepecnt" : "ebepecnt") + n, DType::int64, std::vector<int>{entries}),
                          &block.counts);
  };
  for (std::size_t k = 0; k < blocks.size(); ++k) define(blocks[k], false, k + 1);
  for (std::size_t k = 0; k < face_blocks.size(); ++k) define(face_blocks[k], true, k + 1);
  out.end_definitions();
  for (std::size_t axis = 0; axis < 3; ++axis) {
    std::vector<double> column;
    for (std::size_t i = axis; i < xyz.size(); i += 3) column.push_back(xyz[i]);
    out.write(coordinates[axis], DType::float64, column.data());
  }
  std::vector<std::string> block_names;
  std::vector<std::int64_t> block_ids;
  for (const TestBlock& block : blocks) block_names.push_back(block.name), block_ids.push_back(block.id);
  out.write_strings(names, block_names);
  out.write(ids, DType::int64, block_ids.data());
  for (const auto& [variable, values] : contents) out.write(variable, DType::int64, values->data());
  out.commit();
  return path;
}

// Six points: a unit square (0-3) and two above it (4, 5).
inline const std::vector<double> kSixPoints{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};

}  // namespace meshioplusplus::testing_support
