// FEBio .feb reader (febio_spec 2.5, 3.0 and 4.0; FEBio user manual, chapter 3 "Geometry"
// (2.5) / "Mesh" (3.0, 4.0)).
//
// The mesh sits in <Geometry> (2.5) or <Mesh> (3.0+):
//   <Nodes name=".."><node id="1">x,y,z</node>…</Nodes>            (several allowed)
//   <Elements type="hex8" mat="1" name="Part1"><elem id="1">n1,n2,…</elem>…</Elements>
//   <NodeSet name=".."><node id="5"/>…</NodeSet>   (2.5/3.0)   or   "5,6,7" as text (4.0)
//   <ElementSet name=".."><elem id="5"/>…</ElementSet>          or   text list (4.0)
//   <Surface name=".."><quad4 id="1">n1,…</quad4><tri3 …>…</Surface>
// and, in 4.0, <MeshDomains><SolidDomain name="Part1" mat="Material1"/> gives each part its
// material by name (the <Material><material id=".." name=".."> ids give the number).
//
// What becomes what:
// - points: every <node>, in file order, (n, 3) float64; ids are file ids (any order, gaps
//   allowed) mapped through io::IdMap. Several <Nodes> sections: a Point region each.
// - cells: one block per <Elements> section, node order as VTK's (febio_types.hpp; hex27
//   face centres reordered); a Cell region per section named by its name (or "Part<k>"),
//   tag = its material id; cell data "febio:material" (int64) when any section has one
//   (2.5/3.0's mat attribute, or 4.0's MeshDomains material looked up in <Material>).
// - <NodeSet> → Point region; <ElementSet> → Cell region (element ids are global).
// - <Surface> → Side regions (cell, local facet) on the cells whose facets they are
//   (side_regions.hpp). A surface with a facet on no cell (a free shell surface) instead
//   stays as its own cell block(s) and Cell region, and then all surfaces do, so that the
//   cell numbering does not depend on the match.
// Not read: loads, boundary conditions, materials' parameters, <Edge>, <DiscreteSet>,
// <SurfacePair>, <MeshData> and FEBio Studio's <Part>/<Instance> assemblies.
// Speed: long runs of one-line <node>/<elem> records (id=".." their only attribute) are parsed
// on all cores (io::parse_lines_in_parallel) without the tag scanner; any other layout goes to
// the scanner's loop, which words the errors.
#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <unordered_map>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "formats/febio/febio.hpp"
#include "formats/febio/febio_types.hpp"
#include "io/cells/id_map.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/source/uninitialized.hpp"
#include "io/text/line_values.hpp"
#include "io/text/text_scanner.hpp"
#include "io/text/xml_scanner.hpp"
#include "meshioplusplus/side_regions.hpp"

namespace meshioplusplus::febio {
namespace {

using detail::FebioType;
using detail::kFormat;

struct Part {
  const FebioType* type;
  std::string name;
  std::optional<std::int64_t> material;
  std::string material_name;  // 4.0: from MeshDomains
  std::vector<std::int64_t> ids;  // file ids
  io::UninitializedVector<std::int64_t> nodes;  // file ids; the parallel pass sizes, then fills them
  std::size_t offset;
};

struct IdSet {
  std::string name;
  std::vector<std::int64_t> ids;
};

struct Surface {
  std::string name;
  std::size_t offset;
  // One run per facet type, in order of appearance.
  std::vector<std::pair<const FebioType*, std::vector<std::int64_t>>> facets;
};

class Reader {
 public:
  explicit Reader(const io::MappedFile& file) : doc_(file.bytes()), path_(file.path()), xml_(doc_, 0, path_, kFormat) {}

  Mesh read();

 private:
  enum class Section { none, nodes, elements, node_set, element_set, surface, domains, material };

  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const { xml_.fail_at(offset, message); }
  std::string_view attribute(const io::XmlTag& tag, std::string_view name) const {
    const std::string_view* value = tag.attribute(name);
    if (value == nullptr) fail_at(tag.begin, "<" + std::string(tag.name) + "> has no attribute '" + std::string(name) + "'");
    return *value;
  }
  std::int64_t integer(const io::XmlTag& tag, std::string_view name) const {
    const std::string_view text = attribute(tag, name);
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size())
      fail_at(tag.begin, "attribute " + std::string(name) + "=\"" + std::string(text) + "\" is not an integer");
    return value;
  }
  // The text after an opening tag, up to the next '<'.
  std::pair<std::size_t, std::size_t> text_after(const io::XmlTag& tag) const {
    if (tag.self_closing) return {tag.end, tag.end};
    const std::size_t stop = doc_.find('<', tag.end);
    return {tag.end, stop == std::string_view::npos ? doc_.size() : stop};
  }
  // Numbers separated by commas and/or white space in [begin, end), appended to `out`.
  template <class Values> void numbers(std::size_t begin, std::size_t end, Values& out) const;

  void on_open(const io::XmlTag& tag);
  template <class Values>
  bool read_records_in_parallel(const io::XmlTag& section, std::string_view record, std::size_t width,
                                std::vector<std::int64_t>& ids, Values& values);

  std::string_view doc_;
  const std::string& path_;
  io::XmlScanner xml_;
  Section section_ = Section::none;
  std::string_view section_tag_;  // the element name that opened section_
  std::vector<std::int64_t> node_ids_;
  std::vector<double> coordinates_;
  std::vector<std::pair<std::string, std::size_t>> node_sections_;  // name, first node
  std::vector<Part> parts_;
  std::vector<IdSet> node_sets_, element_sets_;
  std::vector<Surface> surfaces_;
  std::unordered_map<std::string, std::int64_t> material_ids_;
  std::unordered_map<std::string, std::string> domain_materials_;  // part name → material name
};

template <class Values> void Reader::numbers(std::size_t begin, std::size_t end, Values& out) const {
  using T = typename Values::value_type;
  const char* p = doc_.data() + begin;
  const char* const last = doc_.data() + end;
  while (true) {
    while (p < last && (io::is_space(*p) || *p == ',')) ++p;
    if (p == last) return;
    T value{};
    std::from_chars_result result;
    if constexpr (std::is_floating_point_v<T>) {
      result = std::from_chars(p + (*p == '+' ? 1 : 0), last, value);
    } else {
      result = io::parse_int64(p, last, value);
    }
    if (result.ec != std::errc{} || (result.ptr < last && !io::is_space(*result.ptr) && *result.ptr != ','))
      fail_at(static_cast<std::size_t>(p - doc_.data()), "invalid number '" + std::string(p, std::min<std::size_t>(24, static_cast<std::size_t>(last - p))) + "'");
    out.push_back(value);
    p = result.ptr;
  }
}

// One record "<record id="N">v1,v2,…</record>" alone on line [p, end): its id and `width`
// values, or false for any other layout (attributes, entities, comments, other separators…).
template <class T>
bool plain_record(const char* p, const char* end, std::string_view record, std::size_t width, std::int64_t& id, T* values) noexcept {
  const auto skip_blanks = [&] {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
  };
  const auto literal = [&](std::string_view text) {
    if (static_cast<std::size_t>(end - p) < text.size() || std::memcmp(p, text.data(), text.size()) != 0) return false;
    p += text.size();
    return true;
  };
  skip_blanks();
  if (!literal("<") || !literal(record) || !literal(" id=\"")) return false;
  std::from_chars_result result = io::parse_int64(p, end, id);
  if (result.ec != std::errc{}) return false;
  p = result.ptr;
  if (!literal("\">")) return false;
  for (std::size_t k = 0; k < width; ++k) {
    if (k > 0 && !literal(",")) return false;
    if constexpr (std::is_floating_point_v<T>) result = std::from_chars(p, end, values[k]);
    else result = io::parse_int64(p, end, values[k]);
    if (result.ec != std::errc{}) return false;
    p = result.ptr;
  }
  if (!literal("</") || !literal(record) || !literal(">")) return false;
  skip_blanks();
  return p == end;
}

// Where "</" + name first starts at or after `from` (npos when nowhere): what
// doc.find("</" + name, from) returns. string_view::find stops at every '<' of the records
// before the section's close (two a line) for a memchr and a memcmp, and took 11-16 ms on
// one thread for a 71 MB section; here 16 bytes at a time are tested for '<', '/' and the
// name's first letter in a row, which record lines ("</elem>" before "</Elements") rarely hold.
std::size_t find_closing_tag(std::string_view doc, std::size_t from, std::string_view name) {
  if (name.empty() || from >= doc.size()) return doc.find("</" + std::string(name), from);
  const std::size_t needle_size = name.size() + 2;
  const char* const text = doc.data();
  const auto matches_at = [&](std::size_t at) {
    return doc.size() - at >= needle_size && text[at] == '<' && text[at + 1] == '/' &&
           std::memcmp(text + at + 2, name.data(), name.size()) == 0;
  };
  std::size_t at = from;
#if defined(__SSE2__)
  const __m128i open = _mm_set1_epi8('<'), slash = _mm_set1_epi8('/'), letter = _mm_set1_epi8(name.front());
  for (; doc.size() - at >= 18; at += 16) {
    const auto load = [&](std::size_t shift) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(text + at + shift)); };
    const __m128i hits = _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi8(load(0), open), _mm_cmpeq_epi8(load(1), slash)),
                                       _mm_cmpeq_epi8(load(2), letter));
    for (auto mask = static_cast<unsigned>(_mm_movemask_epi8(hits)); mask != 0; mask &= mask - 1) {
      const std::size_t candidate = at + static_cast<std::size_t>(std::countr_zero(mask));
      if (matches_at(candidate)) return candidate;
    }
  }
#endif
  for (; at < doc.size(); ++at)
    if (matches_at(at)) return at;
  return std::string_view::npos;
}

// A long run of one-line records (what FEBio Studio and our writer produce) between
// `section`'s tag and its closing tag, read on all cores into `ids`/`values`; the scanner is
// left before the closing tag. False, with nothing read, for any other layout: the tag loop
// reads the section then and words any error.
template <class Values>
bool Reader::read_records_in_parallel(const io::XmlTag& section, std::string_view record, std::size_t width,
                                      std::vector<std::int64_t>& ids, Values& values) {
  if (section.self_closing) return false;
  const std::optional<std::size_t> begin = io::records_begin(doc_, section.end);
  const std::size_t close = find_closing_tag(doc_, section.end, section.name);
  if (!begin || close == std::string_view::npos || close < *begin) return false;
  std::size_t last_line = close;
  while (last_line > *begin && (doc_[last_line - 1] == ' ' || doc_[last_line - 1] == '\t')) --last_line;
  if (last_line != *begin && doc_[last_line - 1] != '\n') return false;
  const std::uint64_t records = io::count_newlines(doc_.data() + *begin, doc_.data() + last_line);
  // A record line holds its tags (16 bytes and more) and a digit and a separator a value.
  if (records * (16 + 2 * width) > last_line - *begin) return false;
  const std::size_t ids_before = ids.size(), values_before = values.size();
  ids.resize(ids_before + records);
  values.resize(values_before + records * width);
  const char* const text = doc_.data();
  const std::optional<std::size_t> end =
      io::parse_lines_in_parallel(doc_, *begin, records, [&](std::uint64_t i, std::size_t from, std::size_t to) {
        return plain_record(text + from, text + to, record, width, ids[ids_before + i], values.data() + values_before + i * width);
      });
  if (!end || *end != last_line) {
    ids.resize(ids_before);
    values.resize(values_before);
    return false;
  }
  xml_.seek(last_line);
  return true;
}

void Reader::on_open(const io::XmlTag& tag) {
  const std::string_view name = tag.name;
  switch (section_) {
    case Section::nodes:
      if (name == "node") {
        node_ids_.push_back(integer(tag, "id"));
        const std::size_t before = coordinates_.size();
        const auto [begin, end] = text_after(tag);
        numbers(begin, end, coordinates_);
        if (coordinates_.size() != before + 3) fail_at(tag.begin, "a <node> holds " + std::to_string(coordinates_.size() - before) + " coordinates, not 3");
      }
      return;
    case Section::elements:
      if (name == "elem") {
        Part& part = parts_.back();
        part.ids.push_back(integer(tag, "id"));
        const std::size_t before = part.nodes.size();
        const auto [begin, end] = text_after(tag);
        numbers(begin, end, part.nodes);
        if (part.nodes.size() != before + static_cast<std::size_t>(part.type->num_nodes))
          fail_at(tag.begin, "a " + std::string(part.type->febio_name) + " <elem> lists " +
                                 std::to_string(part.nodes.size() - before) + " nodes, not " + std::to_string(part.type->num_nodes));
      }
      return;
    case Section::node_set:
    case Section::element_set:
      if (name == "node" || name == "elem" || name == "n" || name == "e")
        (section_ == Section::node_set ? node_sets_ : element_sets_).back().ids.push_back(integer(tag, "id"));
      return;
    case Section::surface: {
      const FebioType* type = detail::find_by_febio_name(name);
      if (type == nullptr || type->dim != 2) fail_at(tag.begin, "<" + std::string(name) + "> is not a surface facet type (tri3, tri6, tri7, quad4, quad8, quad9)");
      auto& runs = surfaces_.back().facets;
      if (runs.empty() || runs.back().first != type) runs.push_back({type, {}});
      const std::size_t before = runs.back().second.size();
      const auto [begin, end] = text_after(tag);
      numbers(begin, end, runs.back().second);
      if (runs.back().second.size() != before + static_cast<std::size_t>(type->num_nodes))
        fail_at(tag.begin, "a <" + std::string(name) + "> facet lists " + std::to_string(runs.back().second.size() - before) + " nodes");
      return;
    }
    case Section::domains:
      if (const std::string_view* part = tag.attribute("name"))
        if (const std::string_view* material = tag.attribute("mat")) domain_materials_[std::string(*part)] = std::string(*material);
      return;
    case Section::material:
      if (name == "material") {
        const std::string_view* id = tag.attribute("id");
        const std::string_view* material = tag.attribute("name");
        if (id != nullptr && material != nullptr) material_ids_[std::string(*material)] = integer(tag, "id");
      }
      return;
    case Section::none:
      break;
  }
  if (name == "Nodes") {
    const std::string_view* part = tag.attribute("name");
    node_sections_.emplace_back(part ? std::string(*part) : "Nodes" + std::to_string(node_sections_.size() + 1), node_ids_.size());
    section_ = Section::nodes;
    read_records_in_parallel(tag, "node", 3, node_ids_, coordinates_);
  } else if (name == "Elements") {
    const std::string_view type_name = attribute(tag, "type");
    const FebioType* type = detail::find_by_febio_name(type_name);
    if (type == nullptr) fail_at(tag.begin, "element type '" + std::string(type_name) + "' is not supported");
    Part part{type, "", std::nullopt, "", {}, {}, 0};
    const std::string_view* part_name = tag.attribute("name");
    part.name = part_name ? std::string(*part_name) : "Part" + std::to_string(parts_.size() + 1);
    if (const std::string_view* mat = tag.attribute("mat")) {
      std::int64_t id = 0;
      const auto [end, error] = std::from_chars(mat->data(), mat->data() + mat->size(), id);
      if (error == std::errc{} && end == mat->data() + mat->size()) part.material = id;
      else part.material_name = std::string(*mat);
    }
    parts_.push_back(std::move(part));
    section_ = Section::elements;
    Part& added = parts_.back();
    read_records_in_parallel(tag, "elem", static_cast<std::size_t>(type->num_nodes), added.ids, added.nodes);
  } else if (name == "NodeSet" || name == "ElementSet") {
    auto& sets = name == "NodeSet" ? node_sets_ : element_sets_;
    const std::string_view* set_name = tag.attribute("name");
    sets.push_back({set_name ? std::string(*set_name) : std::string(name) + std::to_string(sets.size() + 1), {}});
    const auto [begin, end] = text_after(tag);
    numbers(begin, end, sets.back().ids);  // 4.0's text list; 2.5/3.0 list child tags
    section_ = name == "NodeSet" ? Section::node_set : Section::element_set;
  } else if (name == "Surface") {
    const std::string_view* surface_name = tag.attribute("name");
    surfaces_.push_back({surface_name ? std::string(*surface_name) : "Surface" + std::to_string(surfaces_.size() + 1), 0, {}});
    section_ = Section::surface;
  } else if (name == "MeshDomains") {
    section_ = Section::domains;
  } else if (name == "Material") {
    section_ = Section::material;
  } else {
    return;
  }
  section_tag_ = name;
  if (tag.self_closing) section_ = Section::none;
}

Mesh Reader::read() {
  std::optional<io::XmlTag> root = xml_.next_tag();
  if (!root || root->name != "febio_spec") fail_at(root ? root->begin : 0, "not an FEBio file: the root element is not <febio_spec>");
  while (std::optional<io::XmlTag> tag = xml_.next_tag()) {
    if (!tag->closing) {
      on_open(*tag);
      continue;
    }
    // Only the closing tag of the open section ends it (one compare per record's closing tag).
    if (section_ != Section::none && tag->name == section_tag_) section_ = Section::none;
  }

  Mesh mesh;
  const std::int64_t n_points = static_cast<std::int64_t>(node_ids_.size());
  mesh.points = NDArray::allocate(DType::float64, {n_points, 3});
  std::copy(coordinates_.begin(), coordinates_.end(), mesh.points.data_as<double>());
  io::IdMap nodes;
  if (const auto repeated = nodes.build(node_ids_))
    fail_at(0, "node id " + std::to_string(node_ids_[*repeated]) + " appears twice");
  // `where` names the record for the message; it is called only on failure.
  auto node_index = [&](std::int64_t id, auto&& where) {
    const std::int64_t index = nodes.find(id);
    if (index < 0) [[unlikely]]
      fail_at(0, where() + " names node " + std::to_string(id) + ", which no <node> defines");
    return index;
  };

  // Elements: one block per section; global element ids for the sets.
  std::vector<std::int64_t> element_ids;
  bool any_material = false;
  for (Part& part : parts_) {
    if (!part.material && !part.material_name.empty()) {
      const auto it = material_ids_.find(part.material_name);
      if (it != material_ids_.end()) part.material = it->second;
    }
    if (!part.material) {
      const auto domain = domain_materials_.find(part.name);
      if (domain != domain_materials_.end()) {
        const auto it = material_ids_.find(domain->second);
        if (it != material_ids_.end()) part.material = it->second;
      }
    }
    any_material = any_material || part.material.has_value();
    part.offset = element_ids.size();
    element_ids.insert(element_ids.end(), part.ids.begin(), part.ids.end());
    const FebioType& type = *part.type;
    const auto n_cells = static_cast<std::int64_t>(part.ids.size());
    CellBlock block{std::string(type.name), NDArray::allocate(DType::int64, {n_cells, type.num_nodes}), {}, {}};
    std::int64_t* out = block.connectivity.data_as<std::int64_t>();
    const auto width = static_cast<std::size_t>(type.num_nodes);
    const auto file_slot = [&](std::size_t k) { return type.order.empty() ? k : static_cast<std::size_t>(type.order[k]); };
    // Ids to indices on all cores: parallel_ranges rethrows the earliest range's error, so an
    // unknown node is reported for the first cell naming one, as a sequential loop does.
    io::parallel_ranges(static_cast<std::size_t>(n_cells), std::size_t{1} << 16, [&](std::size_t first, std::size_t last) {
      for (std::size_t c = first; c < last; ++c)
        for (std::size_t k = 0; k < width; ++k)
          out[c * width + k] = node_index(part.nodes[c * width + file_slot(k)], [&] { return "element " + std::to_string(part.ids[c]); });
    });
    mesh.cells.push_back(std::move(block));
    part.nodes = {};
  }
  // Element ids matter only to element sets: files with a repeated id across sections exist
  // (febio-python's hex_half_ellipsoid sample), and FEBio numbers elements in file order.
  io::IdMap elements;
  if (!element_sets_.empty())
    if (const auto repeated = elements.build(element_ids))
      fail_at(0, "element id " + std::to_string(element_ids[*repeated]) + " appears twice, so element sets are ambiguous");
  if (any_material) {
    std::vector<NDArray> materials;
    for (const Part& part : parts_) {
      NDArray values = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(part.ids.size())});
      std::fill_n(values.data_as<std::int64_t>(), values.rows(), part.material.value_or(-1));
      materials.push_back(std::move(values));
    }
    mesh.cell_data.set("febio:material", std::move(materials));
  }

  auto index_region = [](std::string name, RegionKind kind, int dim, std::int64_t tag, const std::vector<std::int64_t>& entries) {
    Region region{std::move(name), kind, dim, tag, NDArray::allocate(DType::int64, {static_cast<std::int64_t>(entries.size())})};
    std::copy(entries.begin(), entries.end(), region.entries.data_as<std::int64_t>());
    return region;
  };
  if (node_sections_.size() > 1)
    for (std::size_t s = 0; s < node_sections_.size(); ++s) {
      const std::size_t end = s + 1 < node_sections_.size() ? node_sections_[s + 1].second : node_ids_.size();
      std::vector<std::int64_t> entries(end - node_sections_[s].second);
      for (std::size_t i = 0; i < entries.size(); ++i) entries[i] = static_cast<std::int64_t>(node_sections_[s].second + i);
      mesh.regions.push_back(index_region(node_sections_[s].first, RegionKind::Point, 0, -1, entries));
    }
  for (const Part& part : parts_) {
    std::vector<std::int64_t> entries(part.ids.size());
    for (std::size_t i = 0; i < entries.size(); ++i) entries[i] = static_cast<std::int64_t>(part.offset + i);
    mesh.regions.push_back(index_region(part.name, RegionKind::Cell, part.type->dim, part.material.value_or(-1), entries));
  }
  for (IdSet& set : node_sets_) {
    for (std::int64_t& id : set.ids) id = node_index(id, [&] { return "node set '" + set.name + "'"; });
    mesh.regions.push_back(index_region(set.name, RegionKind::Point, 0, -1, set.ids));
  }
  for (IdSet& set : element_sets_) {
    for (std::int64_t& id : set.ids) {
      const std::int64_t index = elements.find(id);
      if (index < 0) fail_at(0, "element set '" + set.name + "' names element " + std::to_string(id) + ", which no <elem> defines");
      id = index;
    }
    mesh.regions.push_back(index_region(set.name, RegionKind::Cell, -1, -1, set.ids));
  }
  if (surfaces_.empty()) return mesh;

  // Surfaces: facet blocks and Cell regions first, then matched to the cells' facets.
  Mesh with_facets = mesh;
  std::int64_t next_cell = with_facets.num_cells();
  for (const Surface& surface : surfaces_) {
    std::vector<std::int64_t> entries;
    for (const auto& [type, facet_nodes] : surface.facets) {
      const std::int64_t n_facets = static_cast<std::int64_t>(facet_nodes.size()) / type->num_nodes;
      CellBlock block{std::string(type->name), NDArray::allocate(DType::int64, {n_facets, type->num_nodes}), {}, {}};
      std::int64_t* out = block.connectivity.data_as<std::int64_t>();
      for (std::size_t i = 0; i < facet_nodes.size(); ++i) out[i] = node_index(facet_nodes[i], [&] { return "surface '" + surface.name + "'"; });
      for (std::int64_t f = 0; f < n_facets; ++f) entries.push_back(next_cell++);
      with_facets.cells.push_back(std::move(block));
    }
    with_facets.regions.push_back(index_region(surface.name, RegionKind::Cell, 2, -1, entries));
  }
  if (with_facets.cell_data.contains("febio:material")) {
    auto& materials = *with_facets.cell_data.find("febio:material");
    for (std::size_t b = materials.size(); b < with_facets.cells.size(); ++b) {
      NDArray values = NDArray::allocate(DType::int64, {with_facets.cells[b].num_cells()});
      std::fill_n(values.data_as<std::int64_t>(), values.rows(), -1);
      materials.push_back(std::move(values));
    }
  }
  Mesh matched = with_facets;
  const SideRegionReport report = derive_side_regions(matched);
  // Only the surfaces count: a shell part's Cell region may have been matched too.
  std::vector<std::string> surface_names;
  for (const Surface& surface : surfaces_) surface_names.push_back(surface.name);
  std::size_t surfaces_matched = 0;
  for (std::size_t i = 0; i < report.region_names.size(); ++i) {
    if (std::find(surface_names.begin(), surface_names.end(), report.region_names[i]) == surface_names.end()) continue;
    if (report.unmatched_counts[i] != 0) return with_facets;
    ++surfaces_matched;
  }
  if (surfaces_matched != surfaces_.size() || !report.already_present.empty()) return with_facets;
  // Every surface lies on the cells: keep their Side regions, drop the facet blocks.
  for (Region& region : matched.regions)
    if (region.kind == RegionKind::Side && std::find(surface_names.begin(), surface_names.end(), region.name) != surface_names.end())
      mesh.regions.push_back(std::move(region));
  return mesh;
}

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  return Reader(file).read();
}

}  // namespace meshioplusplus::febio
