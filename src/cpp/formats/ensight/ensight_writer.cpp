// EnSight Gold writer: `<stem>.case`, `<stem>.geo` and one file per variable
// (`<stem>.<name>`), C Binary (the default; float32 values) or ASCII (`binary=false`; EnSight's
// fixed %12.5e fields, six significant digits — readers parse those widths).
//
// Parts: one per Cell region when the Cell regions give every cell exactly one part (an
// EnSight file read back, a Gmsh mesh's physical groups), each holding the nodes its cells use
// (EnSight parts do not share nodes) in the order of the mesh's points, and points no cell uses
// in a last part of `point` elements; else one part "mesh" with every point and block (the
// mesh's own numbering: points read back as written). Within a part each element type is one
// section (the cells of its blocks one block after the other): blocks of one type in one part
// come back as one block. Point data →
// per-node variables (scalars, 3-vectors, 6/9-component tensors; other widths refused), cell
// data → per-element variables, one-value field data → `constant per case`. Each file is
// written atomically, the case file last: a failed write leaves the previous case readable.
#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <numeric>

#include "formats/ensight/ensight.hpp"
#include "formats/ensight/ensight_internal.hpp"
#include "io/output/kept_geometry.hpp"
#include "io/output/atomic_file.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::ensight {
namespace {

struct TypeName {
  std::string_view meshio;
  std::string_view ensight;
};

constexpr TypeName kTypes[] = {
    {"vertex", "point"},       {"line", "bar2"},        {"line3", "bar3"},           {"triangle", "tria3"},
    {"triangle6", "tria6"},    {"quad", "quad4"},       {"quad8", "quad8"},          {"tetra", "tetra4"},
    {"tetra10", "tetra10"},    {"pyramid", "pyramid5"}, {"pyramid13", "pyramid13"},  {"wedge", "penta6"},
    {"wedge15", "penta15"},    {"hexahedron", "hexa8"}, {"hexahedron20", "hexa20"},  {"polygon", "nsided"},
    {"polyhedron", "nfaced"},
};

std::string_view ensight_type(const std::string& path, const CellBlock& block) {
  std::string_view type = block.type;
  if (type.starts_with("polygon")) type = "polygon";
  if (type.starts_with("polyhedron")) type = "polyhedron";
  for (const TypeName& entry : kTypes)
    if (entry.meshio == type) return entry.ensight;
  throw WriteError(path, kFormat, "EnSight Gold has no element for cell type '" + block.type + "'");
}

// The bytes of one geometry or variable file, in the chosen encoding.
class Output {
 public:
  explicit Output(bool binary) : binary_(binary) {}

  void string(std::string_view text) {
    if (!binary_) {
      text_.append(text).push_back('\n');
      return;
    }
    char record[80] = {};
    std::memcpy(record, text.data(), std::min<std::size_t>(text.size(), 79));
    text_.append(record, 80);
  }
  void integer(std::int64_t value) {
    if (binary_) {
      const std::int32_t narrow = static_cast<std::int32_t>(value);
      text_.append(reinterpret_cast<const char*>(&narrow), 4);
      return;
    }
    append_int(value);
    text_.push_back('\n');
  }
  // A row of ints: one line in ASCII (%10d fields), raw in binary.
  void integers(const std::int64_t* values, std::size_t count) {
    for (std::size_t k = 0; k < count; ++k) {
      if (binary_) {
        const std::int32_t narrow = static_cast<std::int32_t>(values[k]);
        text_.append(reinterpret_cast<const char*>(&narrow), 4);
      } else {
        append_int(values[k]);
      }
    }
    if (!binary_) text_.push_back('\n');
  }
  void real(double value) {
    if (binary_) {
      const float narrow = static_cast<float>(value);
      text_.append(reinterpret_cast<const char*>(&narrow), 4);
      return;
    }
    char buffer[32];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific, 5).ptr;
    const std::size_t length = static_cast<std::size_t>(end - buffer);
    if (length < 12) text_.append(12 - length, ' ');
    text_.append(buffer, length).push_back('\n');
  }
  std::string& bytes() { return text_; }

 private:
  void append_int(std::int64_t value) {
    char buffer[24];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
    const std::size_t length = static_cast<std::size_t>(end - buffer);
    if (length < 10) text_.append(10 - length, ' ');
    text_.append(buffer, length);
  }

  bool binary_;
  std::string text_;
};

struct OutPart {
  std::string name;
  std::vector<std::size_t> blocks;                   // whole blocks, or
  std::vector<std::vector<std::int64_t>> cells;      // per block: the cells of this part
  std::vector<std::int64_t> nodes;                   // mesh point of each part node
};

double value_at(const NDArray& array, std::int64_t index) {
  switch (array.dtype()) {
    case DType::float32: return array.data_as<float>()[index];
    case DType::float64: return array.data_as<double>()[index];
    case DType::int8: return array.data_as<std::int8_t>()[index];
    case DType::int16: return array.data_as<std::int16_t>()[index];
    case DType::int32: return array.data_as<std::int32_t>()[index];
    case DType::int64: return static_cast<double>(array.data_as<std::int64_t>()[index]);
    case DType::uint8: return array.data_as<std::uint8_t>()[index];
    case DType::uint16: return array.data_as<std::uint16_t>()[index];
    case DType::uint32: return array.data_as<std::uint32_t>()[index];
    case DType::uint64: return static_cast<double>(array.data_as<std::uint64_t>()[index]);
  }
  return 0;
}

int components_of(const std::string& path, const std::string& name, const NDArray& array) {
  std::int64_t width = 1;
  for (std::size_t axis = 1; axis < array.shape().size(); ++axis) width *= array.shape()[axis];
  if (width == 1 || width == 3 || width == 6 || width == 9) return static_cast<int>(width);
  throw WriteError(path, kFormat, "'" + name + "' has " + std::to_string(width) +
                                      " components: EnSight holds scalars, vectors (3) and tensors (6 or 9)");
}

std::string kind_of(int components) {
  return components == 1 ? "scalar" : components == 3 ? "vector" : components == 6 ? "tensor symm" : "tensor asym";
}

// A name EnSight's case file takes as one word (descriptions hold no spaces) and a file suffix.
std::string word_of(const std::string& name) {
  std::string word;
  for (char c : name) word.push_back((c == ' ' || c == '\t' || c == '/' || c == '\\' || c == '#' || c == ':') ? '_' : c);
  return word.empty() ? std::string("unnamed") : word;
}

std::vector<OutPart> parts_of(const Mesh& mesh) {
  const NDArray bases = block_bases(mesh.cells);
  const auto* base = bases.data_as<std::int64_t>();
  const std::int64_t total = base[mesh.cells.size()];
  std::vector<int> owner(static_cast<std::size_t>(total), -1);
  std::vector<const Region*> regions;
  bool partition = true;
  for (const Region& region : mesh.regions) {
    if (region.kind != RegionKind::Cell) continue;
    const auto* entries = region.entries.data_as<std::int64_t>();
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(region.entries.size()) && partition; ++k) {
      const std::int64_t cell = entries[k];
      if (cell < 0 || cell >= total || owner[static_cast<std::size_t>(cell)] != -1) partition = false;
      else owner[static_cast<std::size_t>(cell)] = static_cast<int>(regions.size());
    }
    regions.push_back(&region);
  }
  partition = partition && !regions.empty() && std::find(owner.begin(), owner.end(), -1) == owner.end();
  std::vector<OutPart> parts;
  if (partition) {
    parts.resize(regions.size());
    for (std::size_t r = 0; r < regions.size(); ++r) {
      parts[r].name = regions[r]->name;
      parts[r].cells.resize(mesh.cells.size());
    }
    for (std::size_t b = 0; b < mesh.cells.size(); ++b)
      for (std::int64_t k = base[b]; k < base[b + 1]; ++k)
        parts[static_cast<std::size_t>(owner[static_cast<std::size_t>(k)])].cells[b].push_back(k - base[b]);
  } else {
    // One part holding every point and block: the mesh's own numbering, nothing duplicated.
    OutPart part;
    part.name = "mesh";
    part.cells.resize(mesh.cells.size());
    for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
      part.cells[b].resize(static_cast<std::size_t>(mesh.cells[b].num_cells()));
      std::iota(part.cells[b].begin(), part.cells[b].end(), 0);
    }
    part.nodes.resize(static_cast<std::size_t>(mesh.num_points()));
    std::iota(part.nodes.begin(), part.nodes.end(), 0);
    if (mesh.cells.empty()) part.cells.clear();  // points only: written as point elements
    parts.push_back(std::move(part));
    return parts;
  }
  // Each part's nodes, in the order of the mesh's points; points no cell uses go to a last part.
  std::vector<char> used_anywhere(static_cast<std::size_t>(mesh.num_points()), 0);
  for (OutPart& part : parts) {
    std::vector<char> used(static_cast<std::size_t>(mesh.num_points()), 0);
    for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
      const CellBlock& block = mesh.cells[b];
      const auto* nodes = block.connectivity.data_as<std::int64_t>();
      for (std::int64_t cell : part.cells[b]) {
        std::int64_t first = 0, last = 0;
        if (block.type.starts_with("polyhedron")) {
          const auto* offsets = block.offsets.data_as<std::int64_t>();
          const auto* faces = block.face_offsets.data_as<std::int64_t>();
          first = faces[offsets[cell]], last = faces[offsets[cell + 1]];
        } else if (block.is_ragged()) {
          const auto* offsets = block.offsets.data_as<std::int64_t>();
          first = offsets[cell], last = offsets[cell + 1];
        } else {
          const std::int64_t width = block.connectivity.shape()[1];
          first = cell * width, last = first + width;
        }
        for (std::int64_t k = first; k < last; ++k) used[static_cast<std::size_t>(nodes[k])] = 1;
      }
    }
    for (std::int64_t p = 0; p < mesh.num_points(); ++p)
      if (used[static_cast<std::size_t>(p)]) part.nodes.push_back(p), used_anywhere[static_cast<std::size_t>(p)] = 1;
  }
  OutPart loose;
  loose.name = "points";
  for (std::int64_t p = 0; p < mesh.num_points(); ++p)
    if (!used_anywhere[static_cast<std::size_t>(p)]) loose.nodes.push_back(p);
  if (!loose.nodes.empty()) parts.push_back(std::move(loose));
  return parts;
}

// A part's element sections: each EnSight type once (as readers such as VTK's expect), with
// the blocks whose cells it gathers, in the order the types first appear.
std::vector<std::pair<std::string_view, std::vector<std::size_t>>> sections_of(const std::string& path, const Mesh& mesh,
                                                                              const OutPart& part) {
  std::vector<std::pair<std::string_view, std::vector<std::size_t>>> sections;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    if (part.cells.empty() || part.cells[b].empty()) continue;
    const std::string_view type = ensight_type(path, mesh.cells[b]);
    auto found = std::find_if(sections.begin(), sections.end(), [&](const auto& section) { return section.first == type; });
    if (found == sections.end()) found = sections.insert(sections.end(), {type, {}});
    found->second.push_back(b);
  }
  return sections;
}

// One element section of a part: its type, count and node lists (1-based part nodes), the
// cells of `blocks` one block after the other.
void write_section(Output& geo, std::string_view type, const Mesh& mesh, const std::vector<std::size_t>& blocks,
                   const OutPart& part, const std::vector<std::int64_t>& local) {
  std::int64_t count = 0;
  for (std::size_t b : blocks) count += static_cast<std::int64_t>(part.cells[b].size());
  geo.string(type);
  geo.integer(count);
  std::vector<std::int64_t> row;
  const auto node_row = [&](const std::int64_t* nodes, std::int64_t first, std::int64_t last) {
    row.clear();
    for (std::int64_t k = first; k < last; ++k) row.push_back(local[static_cast<std::size_t>(nodes[k])]);
    geo.integers(row.data(), row.size());
  };
  const auto each_cell = [&](auto&& visit) {
    for (std::size_t b : blocks)
      for (std::int64_t cell : part.cells[b]) visit(mesh.cells[b], cell);
  };
  const auto count_of = [&](std::int64_t value) { geo.integers(&value, 1); };
  if (type == "nfaced") {  // faces per cell, nodes per face, then the nodes
    each_cell([&](const CellBlock& block, std::int64_t cell) {
      const auto* offsets = block.offsets.data_as<std::int64_t>();
      count_of(offsets[cell + 1] - offsets[cell]);
    });
    each_cell([&](const CellBlock& block, std::int64_t cell) {
      const auto* offsets = block.offsets.data_as<std::int64_t>();
      const auto* faces = block.face_offsets.data_as<std::int64_t>();
      for (std::int64_t f = offsets[cell]; f < offsets[cell + 1]; ++f) count_of(faces[f + 1] - faces[f]);
    });
    each_cell([&](const CellBlock& block, std::int64_t cell) {
      const auto* offsets = block.offsets.data_as<std::int64_t>();
      const auto* faces = block.face_offsets.data_as<std::int64_t>();
      for (std::int64_t f = offsets[cell]; f < offsets[cell + 1]; ++f)
        node_row(block.connectivity.data_as<std::int64_t>(), faces[f], faces[f + 1]);
    });
    return;
  }
  if (type == "nsided") {  // nodes per cell, then the nodes
    each_cell([&](const CellBlock& block, std::int64_t cell) {
      const auto* offsets = block.offsets.data_as<std::int64_t>();
      count_of(offsets[cell + 1] - offsets[cell]);
    });
    each_cell([&](const CellBlock& block, std::int64_t cell) {
      const auto* offsets = block.offsets.data_as<std::int64_t>();
      node_row(block.connectivity.data_as<std::int64_t>(), offsets[cell], offsets[cell + 1]);
    });
    return;
  }
  each_cell([&](const CellBlock& block, std::int64_t cell) {
    const std::int64_t width = block.connectivity.shape()[1];
    node_row(block.connectivity.data_as<std::int64_t>(), cell * width, cell * width + width);
  });
}

// Variable file suffixes: the variable's name as one word, made unique.
struct VariableFiles {
  std::vector<std::string> used;
  std::string suffix_for(const std::string& name) {
    std::string suffix = word_of(name);
    while (std::find(used.begin(), used.end(), suffix) != used.end()) suffix += "_";
    used.push_back(suffix);
    return suffix;
  }
};

// One-value field data as `constant per case` lines.
std::string constant_lines(const NamedList<NDArray>& field_data) {
  std::string lines;
  for (const auto& [name, array] : field_data) {
    if (array.size() != 1) continue;  // EnSight's constants are single numbers
    char buffer[32];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, value_at(array, 0)).ptr;
    lines += "constant per case: " + word_of(name) + " " + std::string(buffer, end) + "\n";
  }
  return lines;
}


std::string geometry_bytes(const std::string& path, const Mesh& mesh, const std::vector<OutPart>& parts, bool binary) {
  const int dim = static_cast<int>(mesh.points.shape()[1]);
  Output geo(binary);
  if (binary) geo.string("C Binary");
  geo.string("EnSight Gold geometry");
  geo.string("written by meshio++");
  geo.string("node id assign");
  geo.string("element id assign");
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const OutPart& part = parts[p];
    geo.string("part");
    geo.integer(static_cast<std::int64_t>(p + 1));
    geo.string(part.name);
    geo.string("coordinates");
    geo.integer(static_cast<std::int64_t>(part.nodes.size()));
    for (int axis = 0; axis < 3; ++axis)
      for (std::int64_t node : part.nodes) geo.real(axis < dim ? value_at(mesh.points, node * dim + axis) : 0.0);
    // Mesh point → 1-based node of this part.
    std::vector<std::int64_t> local(static_cast<std::size_t>(mesh.num_points()), 0);
    for (std::size_t k = 0; k < part.nodes.size(); ++k) local[static_cast<std::size_t>(part.nodes[k])] = static_cast<std::int64_t>(k + 1);
    if (part.cells.empty()) {  // the loose points
      geo.string("point");
      geo.integer(static_cast<std::int64_t>(part.nodes.size()));
      for (std::size_t k = 0; k < part.nodes.size(); ++k) {
        const std::int64_t node = static_cast<std::int64_t>(k + 1);
        geo.integers(&node, 1);
      }
      continue;
    }
    for (const auto& [type, blocks] : sections_of(path, mesh, part)) write_section(geo, type, mesh, blocks, part, local);
  }
  return std::move(geo.bytes());
}

std::string node_variable_bytes(const std::string& path, const std::string& name, const NDArray& array,
                                const std::vector<OutPart>& parts, bool binary) {
  const int components = components_of(path, name, array);
  Output out(binary);
  out.string(name);
  for (std::size_t p = 0; p < parts.size(); ++p) {
    out.string("part");
    out.integer(static_cast<std::int64_t>(p + 1));
    out.string("coordinates");
    for (int c = 0; c < components; ++c)
      for (std::int64_t node : parts[p].nodes) out.real(value_at(array, node * components + c));
  }
  return std::move(out.bytes());
}

std::string element_variable_bytes(const std::string& path, const std::string& name, const std::vector<NDArray>& arrays,
                                   const Mesh& mesh, const std::vector<OutPart>& parts, bool binary) {
  if (arrays.size() != mesh.cells.size()) throw WriteError(path, kFormat, "cell data '" + name + "': one array per block needed");
  const int components = components_of(path, name, arrays.front());
  Output out(binary);
  out.string(name);
  for (std::size_t p = 0; p < parts.size(); ++p) {
    if (parts[p].cells.empty()) continue;
    out.string("part");
    out.integer(static_cast<std::int64_t>(p + 1));
    for (const auto& [type, blocks] : sections_of(path, mesh, parts[p])) {
      for (std::size_t b : blocks)
        if (components_of(path, name, arrays[b]) != components)
          throw WriteError(path, kFormat, "cell data '" + name + "': blocks with different numbers of components");
      out.string(type);
      for (int c = 0; c < components; ++c)
        for (std::size_t b : blocks)
          for (std::int64_t cell : parts[p].cells[b]) out.real(value_at(arrays[b], cell * components + c));
    }
  }
  return std::move(out.bytes());
}

void check_writable(const std::string& path, const Mesh& mesh) {
  if (mesh.points.ndim() != 2 || mesh.points.shape()[1] < 1 || mesh.points.shape()[1] > 3)
    throw WriteError(path, kFormat, "points must be (n, 1..3)");
  for (const CellBlock& block : mesh.cells) ensight_type(path, block);  // refuse what EnSight cannot hold first
}

std::string variable_line(const std::string& site, int components, const std::string& name, const std::string& file,
                          const std::string& time_set) {
  return kind_of(components) + " per " + site + ": " + time_set + word_of(name) + " " + file + "\n";
}

void commit(const std::string& path, std::string_view bytes) {
  io::AtomicFile file(path, kFormat);
  file.write(bytes);
  file.commit();
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const bool binary = options.get_bool("binary", true);
  check_writable(path, mesh);
  const std::filesystem::path case_path(path);
  const std::string stem = case_path.stem().string();
  const std::filesystem::path folder = case_path.parent_path();
  const std::vector<OutPart> parts = parts_of(mesh);
  const std::string geometry = geometry_bytes(path, mesh, parts, binary);
  std::string case_text = "# written by meshio++\nFORMAT\ntype: ensight gold\n\nGEOMETRY\nmodel: " + stem + ".geo\n";
  std::vector<std::pair<std::string, std::string>> files;  // (path, bytes) of the variables
  std::string variables;
  VariableFiles names;
  for (const auto& [name, array] : mesh.point_data) {
    const std::string file = stem + "." + names.suffix_for(name);
    files.emplace_back((folder / file).string(), node_variable_bytes(path, name, array, parts, binary));
    variables += variable_line("node", components_of(path, name, array), name, file, "");
  }
  for (const auto& [name, arrays] : mesh.cell_data) {
    const std::string file = stem + "." + names.suffix_for(name);
    files.emplace_back((folder / file).string(), element_variable_bytes(path, name, arrays, mesh, parts, binary));
    variables += variable_line("element", components_of(path, name, arrays.front()), name, file, "");
  }
  variables += constant_lines(mesh.field_data);
  if (!variables.empty()) case_text += "\nVARIABLE\n" + variables;
  commit((folder / (stem + ".geo")).string(), geometry);
  for (auto& [file, bytes] : files) commit(file, bytes);
  commit(path, case_text);
}


namespace {

// A series (include/meshioplusplus/time_series.hpp): each step's variables in
// `<stem>.<name>NNNNN` (time set 1, file numbers 0, 1, …), written as the step arrives; the
// geometry in `<stem>.geoNNNNN` once per mesh given — one file for a mesh that stays (the case's
// model static), a file per write_mesh() call when it changes (the model on time set 2, its
// `filename numbers` repeating a geometry's number for the steps that keep it). close() writes
// the case; a writer dropped before leaves the step files and no case.
class SeriesWriter final : public TimeSeriesWriter {
 public:
  SeriesWriter(std::string path, const WriteOptions& options)
      : path_(std::move(path)), binary_(options.get_bool("binary", true)) {
    const std::filesystem::path case_path(path_);
    stem_ = case_path.stem().string();
    folder_ = case_path.parent_path();
  }

  void write_mesh(const Mesh& mesh) override {
    check_writable(path_, mesh);
    mesh_ = io::kept_geometry(mesh);
    parts_ = parts_of(mesh_);
    geometry_pending_ = true;
  }

  void write_step(const TimeStep& step) override {
    if (parts_.empty() && mesh_.points.empty_handle()) throw WriteError(path_, kFormat, "write_step() before write_mesh()");
    if (closed_) throw WriteError(path_, kFormat, "write_step() after close()");
    const std::size_t number = times_.size();
    if (!times_.empty() && !(step.time > times_.back()))
      throw WriteError(path_, kFormat, "step " + std::to_string(number) + ": times must increase");
    if (geometry_pending_) {
      commit(file(stem_ + ".geo", geometries_), geometry_bytes(path_, mesh_, parts_, binary_));
      ++geometries_;
      geometry_pending_ = false;
    }
    geometry_of_step_.push_back(geometries_ - 1);
    std::vector<std::string> names;
    for (const auto& [name, array] : step.point_data) {
      const std::string& suffix = suffix_of(name, "node", components_of(path_, name, array));
      commit(file(stem_ + "." + suffix, number), node_variable_bytes(path_, name, array, parts_, binary_));
      names.push_back(name);
    }
    for (const auto& [name, arrays] : step.cell_data) {
      const std::string& suffix = suffix_of(name, "element", components_of(path_, name, arrays.front()));
      commit(file(stem_ + "." + suffix, number), element_variable_bytes(path_, name, arrays, mesh_, parts_, binary_));
      names.push_back(name);
    }
    if (number > 0 && names != step_names_)
      throw WriteError(path_, kFormat, "step " + std::to_string(number) + ": every step needs the same point and cell data");
    step_names_ = names;
    times_.push_back(step.time);
  }

  void close() override {
    if (closed_) return;
    closed_ = true;
    if (times_.empty()) throw WriteError(path_, kFormat, "no step was written");
    std::string text = "# written by meshio++\nFORMAT\ntype: ensight gold\n\nGEOMETRY\n";
    text += geometries_ == 1 ? "model: " + name(stem_ + ".geo", 0) + "\n"
                             : "model: 2 " + stem_ + ".geo" + std::string(kDigits, '*') + "\n";
    if (!variables_.empty()) text += "\nVARIABLE\n" + variables_;
    text += "\nTIME\n" + time_set(1, false);
    if (geometries_ > 1) text += time_set(2, true);
    commit(path_, text);
  }

 private:
  static constexpr std::size_t kDigits = 5;

  std::string name(const std::string& base, std::size_t number) const {
    std::string digits = std::to_string(number);
    return base + std::string(kDigits > digits.size() ? kDigits - digits.size() : 0, '0') + digits;
  }
  std::string file(const std::string& base, std::size_t number) const { return (folder_ / name(base, number)).string(); }

  // The file suffix of a variable, its case line added the first time it is seen.
  const std::string& suffix_of(const std::string& variable, const std::string& site, int components) {
    for (const auto& [known, suffix] : suffixes_)
      if (known == site + ":" + variable) return suffix;
    const std::string suffix = files_.suffix_for(variable);
    variables_ += variable_line(site, components, variable, stem_ + "." + suffix + std::string(kDigits, '*'), "1 ");
    return suffixes_.emplace_back(site + ":" + variable, suffix).second;
  }

  std::string time_set(int set, bool geometry_numbers) const {
    std::string text = "time set: " + std::to_string(set) + "\nnumber of steps: " + std::to_string(times_.size()) + "\n";
    if (geometry_numbers) {
      text += "filename numbers:";
      for (std::size_t k = 0; k < geometry_of_step_.size(); ++k)
        text += (k % 10 == 0 ? "\n" : " ") + std::to_string(geometry_of_step_[k]);
      text += "\n";
    } else {
      text += "filename start number: 0\nfilename increment: 1\n";
    }
    text += "time values:";
    for (std::size_t k = 0; k < times_.size(); ++k) {
      char buffer[32];
      const auto end = std::to_chars(buffer, buffer + sizeof buffer, times_[k]).ptr;
      text += (k % 6 == 0 ? "\n" : " ") + std::string(buffer, end);
    }
    return text + "\n";
  }

  std::string path_, stem_;
  std::filesystem::path folder_;
  bool binary_;
  Mesh mesh_;
  std::vector<OutPart> parts_;
  bool geometry_pending_ = false, closed_ = false;
  std::size_t geometries_ = 0;
  std::vector<std::size_t> geometry_of_step_;
  std::vector<double> times_;
  std::vector<std::string> step_names_;
  std::vector<std::pair<std::string, std::string>> suffixes_;  // ("node:T", suffix)
  VariableFiles files_;
  std::string variables_;
};

}  // namespace

std::unique_ptr<TimeSeriesWriter> create_time_series(const std::string& path, const WriteOptions& options) {
  return std::make_unique<SeriesWriter>(path, options);
}

}  // namespace meshioplusplus::ensight
