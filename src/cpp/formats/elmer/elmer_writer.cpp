// Elmer mesh directory writer: mesh.header, mesh.nodes, mesh.elements, mesh.boundary and,
// when a region names a body or boundary, mesh.names. The directory is created when missing;
// each file is written through io::AtomicFile, so a failed write leaves every file that was
// there before it as it was (a write that fails part-way may have replaced some of the files).
//
// Which cells are bulk elements: with the reader's "elmer:body" cell data, those with a body
// > 0 (boundary elements carry 0); without it, the cells of the mesh's highest dimension.
// Bodies come from "elmer:body", else "gmsh:physical", else 1; boundary tags from
// "elmer:boundary", else "gmsh:physical", else 1 (Elmer numbers both from 1). Parents of a
// boundary element: the bulk elements having it as a facet (matched by corner nodes through
// the facet tables of side_regions.hpp), 0 where there is none, as ElmerGrid writes them.
// Names: a Cell region whose name is not the default "body <n>" / "boundary <n>" names the
// body or boundary of its first cell. Point and other cell data have no place in the files.
#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "formats/elmer/elmer.hpp"
#include "formats/elmer/elmer_types.hpp"
#include "io/cells/integer_cell_data.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/parallel_rows.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/side_regions.hpp"

namespace meshioplusplus::elmer {
namespace {

namespace fs = std::filesystem;
using detail::ElementType;

constexpr std::string_view kFormat = "elmer";

int cell_dimension(std::string_view cell_type) {
  if (cell_type == "vertex") return 0;
  if (cell_type.starts_with("line")) return 1;
  if (cell_type.starts_with("triangle") || cell_type.starts_with("quad")) return 2;
  return 3;
}

// Per-cell integers of `name` when the mesh has them for every cell of every block.
const std::vector<NDArray>* cell_integers(const Mesh& mesh, std::string_view name) {
  const std::vector<NDArray>* arrays = mesh.cell_data.find(name);
  return arrays != nullptr && io::holds_one_integer_per_cell(mesh, *arrays) ? arrays : nullptr;
}

// Up to four corner nodes, sorted: a facet's key whatever its orientation.
using FacetKey = std::array<std::int64_t, 4>;
struct FacetKeyHash {
  std::size_t operator()(const FacetKey& key) const noexcept {
    std::uint64_t hash = 0x9E3779B97F4A7C15ull;
    for (std::int64_t node : key) hash = (hash ^ static_cast<std::uint64_t>(node)) * 0x100000001B3ull;
    return static_cast<std::size_t>(hash ^ (hash >> 29));
  }
};

int family_corners(std::string_view cell_type) {
  switch (cell_dimension(cell_type)) {
    case 0: return 1;
    case 1: return 2;
    case 2: return cell_type.starts_with("triangle") ? 3 : 4;
    default: return 0;
  }
}

FacetKey key_of(const std::int64_t* nodes, int count) {
  // Insertion sort of at most four values.
  FacetKey key{-1, -1, -1, -1};
  for (int k = 0; k < count && k < 4; ++k) {
    int j = k;
    for (; j > 0 && key[j - 1] > nodes[k]; --j) key[j] = key[j - 1];
    key[j] = nodes[k];
  }
  return key;
}

class Writer {
 public:
  Writer(const std::string& path, const Mesh& mesh) : path_(path), mesh_(mesh) {}

  void write() {
    classify();
    std::error_code error;
    fs::create_directories(path_, error);
    if (error || !fs::is_directory(path_, error))
      throw WriteError(path_, std::string(kFormat), "cannot create the mesh directory" + (error ? ": " + error.message() : ""));
    find_parents();
    write_nodes();
    write_elements(false);
    write_elements(true);
    write_names();
    write_header();  // last: a directory with a mesh.header is a finished mesh
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { throw WriteError(path_, std::string(kFormat), message); }
  std::string file_path(std::string_view name) const { return (fs::path(path_) / std::string(name)).string(); }

  // Types, bulk/boundary split and tags of every cell.
  void classify() {
    const std::vector<NDArray>* bodies = cell_integers(mesh_, "elmer:body");
    const std::vector<NDArray>* boundaries = cell_integers(mesh_, "elmer:boundary");
    const std::vector<NDArray>* physical = cell_integers(mesh_, "gmsh:physical");
    int top_dim = -1;
    for (const CellBlock& block : mesh_.cells) top_dim = std::max(top_dim, cell_dimension(block.type));
    for (std::size_t b = 0; b < mesh_.cells.size(); ++b) {
      const CellBlock& block = mesh_.cells[b];
      const ElementType* type = detail::type_by_name(block.type);
      if (type == nullptr && block.num_cells() > 0)
        fail("cells of type '" + block.type + "' have no Elmer element type");
      types_.push_back(type);
      const std::int64_t count = block.num_cells();
      std::vector<std::int64_t> tags(static_cast<std::size_t>(count));
      std::vector<char> boundary(static_cast<std::size_t>(count));
      for (std::int64_t i = 0; i < count; ++i) {
        const std::int64_t body = bodies ? io::integer_at((*bodies)[b], i) : 0;
        const bool is_boundary = bodies ? body <= 0 : cell_dimension(block.type) < top_dim;
        const std::int64_t own = is_boundary ? (boundaries ? io::integer_at((*boundaries)[b], i) : 0) : body;
        const std::int64_t fallback = physical ? io::integer_at((*physical)[b], i) : 0;
        tags[i] = own > 0 ? own : fallback > 0 ? fallback : 1;
        boundary[i] = is_boundary;
        (is_boundary ? boundary_count_ : bulk_count_) += 1;
      }
      if (count > 0) type_counts_[type->code] += count;
      tags_.push_back(std::move(tags));
      is_boundary_.push_back(std::move(boundary));
    }
  }

  // Parents of every boundary element: bulk elements (1-based, in write order) one dimension
  // up having its corners as a facet.
  void find_parents() {
    std::unordered_map<FacetKey, std::array<std::int64_t, 2>, FacetKeyHash> parents;
    for (std::size_t b = 0; b < mesh_.cells.size(); ++b) {
      const int corners = family_corners(mesh_.cells[b].type);
      if (corners == 0) continue;
      const std::int64_t width = mesh_.cells[b].connectivity.row_width();
      const std::int64_t* nodes = mesh_.cells[b].connectivity.data_as<std::int64_t>();
      for (std::int64_t i = 0; i < mesh_.cells[b].num_cells(); ++i)
        if (is_boundary_[b][i]) parents.try_emplace(key_of(nodes + i * width, corners), std::array<std::int64_t, 2>{0, 0});
    }
    // Only facets whose corners all lie on boundary elements are looked up: most bulk facets
    // are inner ones, and the marks spare them the hash probe.
    std::vector<char> on_boundary(static_cast<std::size_t>(mesh_.points.rows()), 0);
    for (const auto& [key, unused] : parents)
      for (std::int64_t node : key)
        if (node >= 0) on_boundary[static_cast<std::size_t>(node)] = 1;
    std::int64_t id = 0;
    if (!parents.empty()) {
      for (std::size_t b = 0; b < mesh_.cells.size(); ++b) {
        const std::span<const FacetCorners> facets = cell_facets(mesh_.cells[b].type);
        const std::int64_t width = mesh_.cells[b].connectivity.row_width();
        const std::int64_t* nodes = mesh_.cells[b].connectivity.data_as<std::int64_t>();
        for (std::int64_t i = 0; i < mesh_.cells[b].num_cells(); ++i) {
          if (is_boundary_[b][i]) continue;
          ++id;
          for (const FacetCorners& facet : facets) {
            std::int64_t corner_nodes[4];
            bool candidate = true;
            for (int k = 0; k < facet.count; ++k) {
              corner_nodes[k] = nodes[i * width + facet.corners[k]];
              candidate = candidate && on_boundary[static_cast<std::size_t>(corner_nodes[k])];
            }
            if (!candidate) continue;
            const auto found = parents.find(key_of(corner_nodes, facet.count));
            if (found == parents.end()) continue;
            auto& [first, second] = found->second;
            if (first == 0) first = id;
            else if (second == 0 && first != id) second = id;
          }
        }
      }
    }
    parents_ = std::move(parents);
  }

  void write_nodes() {
    io::AtomicFile file(file_path(detail::kNodes), kFormat);
    io::OutputBuffer out(file);
    const NDArray points = mesh_.points.astype(DType::float64);
    const std::int64_t dim = points.row_width();
    const double* xyz = points.data_as<double>();
    io::write_rows_in_parallel(out, file, points.rows(), 4 * (io::kMaxNumberChars + 1) + 4, [&](char* p, std::int64_t i) {
      p = io::put_number(p, i + 1);
      *p++ = ' ';
      *p++ = '-';
      *p++ = '1';
      for (std::int64_t k = 0; k < 3; ++k) {
        *p++ = ' ';
        p = io::put_number(p, k < dim ? xyz[i * dim + k] : 0.0);
      }
      *p++ = '\n';
      return p;
    });
    out.flush();
    file.commit();
  }

  void write_elements(bool boundary) {
    io::AtomicFile file(file_path(boundary ? detail::kBoundary : detail::kElements), kFormat);
    io::OutputBuffer out(file);
    std::int64_t id = 0;
    for (std::size_t b = 0; b < mesh_.cells.size(); ++b) {
      const ElementType* type = types_[b];
      const std::int64_t width = mesh_.cells[b].connectivity.row_width();
      const std::int64_t* nodes = mesh_.cells[b].connectivity.data_as<std::int64_t>();
      const int corners = family_corners(mesh_.cells[b].type);
      const std::vector<char>& in_boundary = is_boundary_[b];
      const auto matching = std::count(in_boundary.begin(), in_boundary.end(), static_cast<char>(boundary));
      if (matching == 0) continue;
      if (!boundary && matching == mesh_.cells[b].num_cells()) {  // a whole bulk block: on all cores
        const std::int64_t first_id = id;
        const std::int64_t* tags = tags_[b].data();
        io::write_rows_in_parallel(out, file, matching, static_cast<std::size_t>(3 + type->nodes) * (io::kMaxNumberChars + 1) + 1,
                                   [&](char* p, std::int64_t i) {
                                     p = io::put_number(p, first_id + i + 1);
                                     *p++ = ' ';
                                     p = io::put_number(p, tags[i]);
                                     *p++ = ' ';
                                     p = io::put_number(p, type->code);
                                     const std::int64_t* cell = nodes + i * width;
                                     std::int64_t elmer_nodes[27];
                                     if (type->vtk_from_elmer.empty()) std::copy(cell, cell + type->nodes, elmer_nodes);
                                     else
                                       for (int k = 0; k < type->nodes; ++k) elmer_nodes[type->vtk_from_elmer[k]] = cell[k];
                                     for (int k = 0; k < type->nodes; ++k) {
                                       *p++ = ' ';
                                       p = io::put_number(p, elmer_nodes[k] + 1);
                                     }
                                     *p++ = '\n';
                                     return p;
                                   });
        id += matching;
        continue;
      }
      for (std::int64_t i = 0; i < mesh_.cells[b].num_cells(); ++i) {
        if (static_cast<bool>(is_boundary_[b][i]) != boundary) continue;
        out.number(++id);
        out.put(' ');
        out.number(tags_[b][i]);
        if (boundary) {
          std::array<std::int64_t, 2> parents{0, 0};
          if (corners > 0)
            if (const auto found = parents_.find(key_of(nodes + i * width, corners)); found != parents_.end())
              parents = found->second;
          out.put(' ');
          out.number(parents[0]);
          out.put(' ');
          out.number(parents[1]);
        }
        out.put(' ');
        out.number(type->code);
        const std::int64_t* cell = nodes + i * width;
        std::int64_t elmer_nodes[27];
        if (type->vtk_from_elmer.empty()) std::copy(cell, cell + type->nodes, elmer_nodes);
        else
          for (int k = 0; k < type->nodes; ++k) elmer_nodes[type->vtk_from_elmer[k]] = cell[k];
        for (int k = 0; k < type->nodes; ++k) {
          out.put(' ');
          out.number(elmer_nodes[k] + 1);
        }
        out.put('\n');
      }
    }
    out.flush();
    file.commit();
  }

  void write_names() {
    std::map<std::int64_t, std::string> bodies, boundaries;
    const NDArray bases = block_bases(mesh_.cells);
    const std::int64_t* base = bases.data_as<std::int64_t>();
    for (const Region& region : mesh_.regions) {
      if (region.kind != RegionKind::Cell || region.entries.rows() == 0) continue;
      const std::int64_t cell = region.entries.astype(DType::int64).data_as<std::int64_t>()[0];
      const std::size_t b = static_cast<std::size_t>(std::upper_bound(base, base + mesh_.cells.size() + 1, cell) - base - 1);
      if (b >= mesh_.cells.size()) continue;
      const std::int64_t i = cell - base[b];
      const bool boundary = is_boundary_[b][i];
      const std::int64_t tag = tags_[b][i];
      if (region.name == (boundary ? "boundary " : "body ") + std::to_string(tag)) continue;
      (boundary ? boundaries : bodies).try_emplace(tag, region.name);
    }
    if (bodies.empty() && boundaries.empty()) return;
    io::AtomicFile file(file_path(detail::kNames), kFormat);
    io::OutputBuffer out(file);
    for (const auto* section : {&bodies, &boundaries}) {
      out.text(section == &bodies ? "! ----- names for bodies -----\n" : "! ----- names for boundaries -----\n");
      for (const auto& [tag, name] : *section) {
        out.text("$ ");
        out.text(name);
        out.text(" = ");
        out.number(tag);
        out.put('\n');
      }
    }
    out.flush();
    file.commit();
  }

  void write_header() {
    io::AtomicFile file(file_path(detail::kHeader), kFormat);
    io::OutputBuffer out(file);
    out.number(mesh_.points.rows());
    out.put(' ');
    out.number(bulk_count_);
    out.put(' ');
    out.number(boundary_count_);
    out.put('\n');
    out.number(static_cast<std::int64_t>(type_counts_.size()));
    out.put('\n');
    for (const auto& [code, count] : type_counts_) {
      out.number(code);
      out.put(' ');
      out.number(count);
      out.put('\n');
    }
    out.flush();
    file.commit();
  }

  const std::string& path_;
  const Mesh& mesh_;
  std::vector<const ElementType*> types_;
  std::vector<std::vector<std::int64_t>> tags_;
  std::vector<std::vector<char>> is_boundary_;
  std::map<int, std::int64_t> type_counts_;
  std::int64_t bulk_count_ = 0, boundary_count_ = 0;
  std::unordered_map<FacetKey, std::array<std::int64_t, 2>, FacetKeyHash> parents_;
};

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions&) { Writer(path, mesh).write(); }

}  // namespace meshioplusplus::elmer
