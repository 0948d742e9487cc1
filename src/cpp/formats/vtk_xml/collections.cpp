// VTK XML collections: multiblock (.vtm) and ParaView time series (.pvd), read and write.
//
// .vtm — what it holds: a tree of <Block> elements whose leaves are <DataSet file="..."/>
// entries naming .vtu/.vtp/.vts/.vtr/.vti (or nested) files beside it. What becomes what:
// ONE mesh — every leaf read with its own reader and appended (points concatenated, blocks
// kept, point/cell data kept where every leaf has it) — with a Cell region per leaf, named by
// its path of block names (or indices where unnamed) joined with '/', tag = leaf number. An
// empty file attribute (VTK writes them for empty blocks) is skipped. Writing makes one leaf
// per Cell region (its cells and the points they use), or one leaf with the whole mesh when
// it has no Cell region; leaves go into <stem>/<stem>_<n>.vtu. write_blocks()/read_blocks()
// write and read a list of named meshes, one leaf each, kept apart.
//
// .pvd — what it holds: a <Collection> of <DataSet timestep group part file/> entries.
// read_entries()/read_steps() expose them without reading any mesh; read() gives the first
// step's mesh (every part of that step appended) with field_data "pvd:time". Writing stores
// the mesh as one step (<stem>/<stem>_0.vtu) at time `time` (option, default 0).
// A missing dataset file is a ReadError naming the index file and the entry.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <sys/stat.h>

#include "formats/vtk_xml/vtk_xml.hpp"
#include "formats/vtk_xml/vtk_xml_common.hpp"
#include "formats/vtu/vtu.hpp"
#include "io/output/atomic_file.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/xml_scanner.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus {
namespace {

using namespace vtk_xml_detail;

struct Leaf {
  std::string name;  // block path
  std::string file;  // as written in the index
  std::size_t offset = 0;
};

std::string attribute_or(const io::XmlTag& tag, std::string_view name, std::string fallback) {
  const std::string_view* value = tag.attribute(name);
  return value ? io::decode_xml_entities(*value) : fallback;
}

// The collection files (.vtm, .pvd) being read on this thread, outermost first, by device and
// inode. A listed dataset is read through meshioplusplus::read, so it may be a collection
// itself: one naming itself, or two naming each other, would be read again and again until the
// stack overflows. Nesting is also capped (distinct files, each listing the next).
thread_local std::vector<std::pair<dev_t, ino_t>> t_open_collections;
constexpr std::size_t kMaxCollectionNesting = 16;

std::optional<std::pair<dev_t, ino_t>> file_identity(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return std::pair<dev_t, ino_t>(info.st_dev, info.st_ino);
}

// Marks `path` as being read for its lifetime.
class CollectionScope {
 public:
  CollectionScope(const std::string& path, std::string_view format) {
    if (t_open_collections.size() >= kMaxCollectionNesting)
      throw ReadError(path, std::string(format),
                      "collections nested more than " + std::to_string(kMaxCollectionNesting) +
                          " deep (each listing the next)");
    if (const auto identity = file_identity(path)) {
      t_open_collections.push_back(*identity);
      pushed_ = true;
    }
  }
  ~CollectionScope() {
    if (pushed_) t_open_collections.pop_back();
  }
  CollectionScope(const CollectionScope&) = delete;
  CollectionScope& operator=(const CollectionScope&) = delete;

 private:
  bool pushed_ = false;
};

// Reads one listed dataset (`resolved`: `file` against the index's folder), naming the index
// and the entry when its file is missing, not a regular file, or a collection being read.
Mesh read_listed(const std::string& index_path, std::string_view format, const std::string& file,
                 const std::string& resolved, const std::string& entry) {
  check_listed_file(index_path, format, entry, file, resolved);
  if (const auto identity = file_identity(resolved)) {
    if (!t_open_collections.empty() && t_open_collections.back() == *identity)
      throw ReadError(index_path, std::string(format), entry + ": file '" + file + "' is this file itself");
    if (std::find(t_open_collections.begin(), t_open_collections.end(), *identity) != t_open_collections.end())
      throw ReadError(index_path, std::string(format),
                      entry + ": file '" + file + "' is a collection that lists this one (a cycle)");
  }
  return meshioplusplus::read(resolved);
}

int dimension_of(const Mesh& mesh, std::size_t first_block) {
  int dimension = -1;
  for (std::size_t b = first_block; b < mesh.cells.size(); ++b)
    if (const CellTypeInfo* info = find_cell_type(mesh.cells[b].type)) dimension = std::max(dimension, info->dimension);
  return dimension;
}

std::vector<Leaf> vtm_leaves(const std::string& path, std::string_view document) {
  io::XmlScanner xml(document, 0, path, "vtm");
  std::vector<std::string> names;  // open Block path
  std::vector<Leaf> leaves;
  bool seen_root = false;
  while (std::optional<io::XmlTag> tag = xml.next_tag()) {
    if (tag->name == "Block") {
      if (tag->closing) {
        if (!names.empty()) names.pop_back();
        continue;
      }
      const std::string name = attribute_or(*tag, "name", attribute_or(*tag, "index", std::to_string(names.size())));
      if (!tag->self_closing) names.push_back(name);
    } else if (!tag->closing && tag->name == "VTKFile") {
      seen_root = true;
      const std::string type = attribute_or(*tag, "type", "");
      if (type != "vtkMultiBlockDataSet" && type != "vtkPartitionedDataSetCollection" && type != "vtkPartitionedDataSet")
        xml.fail_at(tag->begin, "VTKFile type is '" + type + "'; .vtm files hold a vtkMultiBlockDataSet");
    } else if (!tag->closing && tag->name == "DataSet") {
      const std::string file = attribute_or(*tag, "file", "");
      if (file.empty()) continue;
      std::string name;
      for (const std::string& part : names) name += part + "/";
      name += attribute_or(*tag, "name", attribute_or(*tag, "index", std::to_string(leaves.size())));
      leaves.push_back({name, file, tag->begin});
    }
  }
  if (!seen_root) throw ReadError(path, "vtm", "not a VTK XML file: no <VTKFile> element", 0);
  return leaves;
}

std::string number_text(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

// "<stem>/<stem>_<n>.vtu", created folder included; returns (absolute path, index-relative name).
std::pair<std::string, std::string> leaf_file(const std::string& index_path, std::size_t n) {
  const std::filesystem::path index(index_path);
  const std::string stem = index.stem().string();
  const std::filesystem::path folder = index.parent_path() / stem;
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) throw WriteError(index_path, "", "cannot create the folder '" + folder.string() + "': " + error.message());
  const std::string name = stem + "_" + std::to_string(n) + ".vtu";
  return {(folder / name).string(), stem + "/" + name};
}

}  // namespace

namespace vtm {

Mesh read(const std::string& path) {
  const CollectionScope scope(path, "vtm");
  std::vector<Leaf> leaves;
  {
    const io::MappedFile file(path, "vtm");
    io::reject_empty_file(file.bytes(), path, "vtm");
    leaves = vtm_leaves(path, file.bytes());
  }
  Mesh mesh;
  std::vector<Region> regions;
  for (std::size_t n = 0; n < leaves.size(); ++n) {
    const std::string entry = "dataset " + std::to_string(n) + " ('" + leaves[n].name + "')";
    Mesh leaf = read_listed(path, "vtm", leaves[n].file, resolve_beside(path, leaves[n].file), entry);
    const std::int64_t first_cell = n == 0 ? 0 : mesh.num_cells();
    const std::size_t first_block = n == 0 ? 0 : mesh.cells.size();
    std::vector<Region> leaf_regions = std::move(leaf.regions);
    leaf.regions.clear();
    merge_piece(mesh, std::move(leaf), path, entry, "vtm", n == 0, false);
    Region region;
    region.name = leaves[n].name;
    region.kind = RegionKind::Cell;
    region.tag = static_cast<std::int64_t>(n);
    region.dim = dimension_of(mesh, first_block);
    const std::int64_t count = mesh.num_cells() - first_cell;
    region.entries = NDArray::allocate(DType::int64, {count});
    for (std::int64_t c = 0; c < count; ++c) region.entries.data_as<std::int64_t>()[c] = first_cell + c;
    regions.push_back(std::move(region));
  }
  if (leaves.empty()) mesh.points = NDArray::allocate(DType::float64, {0, 3});
  mesh.regions = std::move(regions);
  return mesh;
}

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  validate(mesh);
  io::vtk_xml::parse_write_settings(options);  // bad options fail before any file is written
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> leaves;
  for (const Region& region : mesh.regions) {
    if (region.kind != RegionKind::Cell) continue;
    const auto values = region.entries.values<std::int64_t>();
    std::vector<std::int64_t> cells(values.begin(), values.end());
    std::sort(cells.begin(), cells.end());
    cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
    leaves.emplace_back(region.name, std::move(cells));
  }
  std::string text = index_prologue("vtkMultiBlockDataSet", "1.0") + "  <vtkMultiBlockDataSet>\n";
  if (leaves.empty()) {
    const auto [file, relative] = leaf_file(path, 0);
    vtu::write(file, mesh, options);
    text += "    <DataSet index=\"0\" name=\"mesh\" file=\"" + io::escape_xml_attribute(relative) + "\"/>\n";
  }
  for (std::size_t n = 0; n < leaves.size(); ++n) {
    const auto [file, relative] = leaf_file(path, n);
    vtu::write(file, extract_cells(mesh, leaves[n].second), options);
    text += "    <DataSet index=\"" + std::to_string(n) + "\" name=\"" + io::escape_xml_attribute(leaves[n].first) +
            "\" file=\"" + io::escape_xml_attribute(relative) + "\"/>\n";
  }
  text += "  </vtkMultiBlockDataSet>\n</VTKFile>\n";
  io::AtomicFile file(path, "vtm");
  file.write(text);
  file.commit();
}

void write_blocks(const std::string& path, const std::vector<std::pair<std::string, Mesh>>& blocks,
                  const WriteOptions& options) {
  io::vtk_xml::parse_write_settings(options);  // bad options fail before any file is written
  std::vector<std::string> names;
  for (std::size_t n = 0; n < blocks.size(); ++n) {
    validate(blocks[n].second);
    std::string name = blocks[n].first.empty() ? "block" + std::to_string(n) : blocks[n].first;
    if (std::find(names.begin(), names.end(), name) != names.end())
      throw WriteError(path, "vtm", "two blocks are named '" + name + "'");
    names.push_back(std::move(name));
  }
  std::string text = index_prologue("vtkMultiBlockDataSet", "1.0") + "  <vtkMultiBlockDataSet>\n";
  for (std::size_t n = 0; n < blocks.size(); ++n) {
    const auto [file, relative] = leaf_file(path, n);
    vtu::write(file, blocks[n].second, options);
    text += "    <DataSet index=\"" + std::to_string(n) + "\" name=\"" + io::escape_xml_attribute(names[n]) +
            "\" file=\"" + io::escape_xml_attribute(relative) + "\"/>\n";
  }
  text += "  </vtkMultiBlockDataSet>\n</VTKFile>\n";
  io::AtomicFile file(path, "vtm");
  file.write(text);
  file.commit();
}

std::vector<std::pair<std::string, Mesh>> read_blocks(const std::string& path) {
  const CollectionScope scope(path, "vtm");
  std::vector<Leaf> leaves;
  {
    const io::MappedFile file(path, "vtm");
    io::reject_empty_file(file.bytes(), path, "vtm");
    leaves = vtm_leaves(path, file.bytes());
  }
  std::vector<std::pair<std::string, Mesh>> blocks;
  for (std::size_t n = 0; n < leaves.size(); ++n) {
    const std::string entry = "dataset " + std::to_string(n) + " ('" + leaves[n].name + "')";
    const std::string resolved = resolve_beside(path, leaves[n].file);
    blocks.emplace_back(leaves[n].name, read_listed(path, "vtm", leaves[n].file, resolved, entry));
  }
  return blocks;
}

}  // namespace vtm

namespace pvd {

std::vector<Step> read_entries(const std::string& path) {
  const io::MappedFile file(path, "pvd");
  io::reject_empty_file(file.bytes(), path, "pvd");
  io::XmlScanner xml(file.bytes(), 0, path, "pvd");
  std::vector<Step> steps;
  bool seen_root = false;
  while (std::optional<io::XmlTag> tag = xml.next_tag()) {
    if (tag->closing) continue;
    if (tag->name == "VTKFile") {
      seen_root = true;
      if (attribute_or(*tag, "type", "") != "Collection")
        xml.fail_at(tag->begin, "VTKFile type is '" + attribute_or(*tag, "type", "") + "'; .pvd files hold a Collection");
    } else if (tag->name == "DataSet") {
      Step step;
      const std::string time = attribute_or(*tag, "timestep", "0");
      const auto [end, error] = std::from_chars(time.data(), time.data() + time.size(), step.time);
      // NaN equals no time, so its step could be listed but never read.
      if (error != std::errc{} || end != time.data() + time.size() || std::isnan(step.time))
        xml.fail_at(tag->begin, "timestep=\"" + time + "\" is not a number");
      const std::string part = attribute_or(*tag, "part", "0");
      const auto [part_end, part_error] = std::from_chars(part.data(), part.data() + part.size(), step.part);
      if (part_error != std::errc{} || part_end != part.data() + part.size())
        xml.fail_at(tag->begin, "part=\"" + part + "\" is not an integer");
      step.group = attribute_or(*tag, "group", "");
      const std::string listed = attribute_or(*tag, "file", "");
      if (listed.empty()) xml.fail_at(tag->begin, "DataSet " + std::to_string(steps.size()) + " has no file attribute");
      step.file = resolve_beside(path, listed);
      steps.push_back(std::move(step));
    }
  }
  if (!seen_root) throw ReadError(path, "pvd", "not a VTK XML file: no <VTKFile> element", 0);
  return steps;
}

std::vector<std::pair<double, std::string>> read_steps(const std::string& path) {
  std::vector<std::pair<double, std::string>> steps;
  for (const Step& entry : read_entries(path)) {
    const bool known = std::any_of(steps.begin(), steps.end(), [&](const auto& step) { return step.first == entry.time; });
    if (!known) steps.emplace_back(entry.time, entry.file);
  }
  std::stable_sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return steps;
}

Mesh read_at_time(const std::string& path, double time) {
  const CollectionScope scope(path, "pvd");
  const std::vector<Step> entries = read_entries(path);
  Mesh mesh;
  bool first = true;
  for (std::size_t n = 0; n < entries.size(); ++n) {
    if (entries[n].time != time) continue;
    const std::string entry = "DataSet " + std::to_string(n) + " (timestep " + number_text(entries[n].time) + ")";
    Mesh part = read_listed(path, "pvd", entries[n].file, entries[n].file, entry);
    merge_piece(mesh, std::move(part), path, entry, "pvd", first, false);
    first = false;
  }
  if (first) throw ReadError(path, "pvd", "no DataSet has timestep " + number_text(time));
  NDArray stamp = NDArray::allocate(DType::float64, {1});
  stamp.data_as<double>()[0] = time;
  mesh.field_data.set("pvd:time", std::move(stamp));
  return mesh;
}

Mesh read(const std::string& path) {
  const std::vector<std::pair<double, std::string>> steps = read_steps(path);
  if (steps.empty()) throw ReadError(path, "pvd", "the collection lists no DataSet");
  return read_at_time(path, steps.front().first);
}

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  validate(mesh);
  const std::string_view time_text = options.get("time", "0");
  double time = 0;
  const auto [end, error] = std::from_chars(time_text.data(), time_text.data() + time_text.size(), time);
  if (error != std::errc{} || end != time_text.data() + time_text.size())
    throw std::invalid_argument("time must be a number, got '" + std::string(time_text) + "'");
  WriteOptions piece_options;
  for (const auto& [name, value] : options.items())
    if (name != "time") piece_options.set(name, value);
  io::vtk_xml::parse_write_settings(piece_options);
  const auto [file, relative] = leaf_file(path, 0);
  vtu::write(file, mesh, piece_options);
  const std::string text = index_prologue("Collection") + "  <Collection>\n    <DataSet timestep=\"" + number_text(time) +
                           "\" group=\"\" part=\"0\" file=\"" + io::escape_xml_attribute(relative) +
                           "\"/>\n  </Collection>\n</VTKFile>\n";
  io::AtomicFile index(path, "pvd");
  index.write(text);
  index.commit();
}

}  // namespace pvd

}  // namespace meshioplusplus
