// XDMF light data as a small element tree (built with the shared XML scanner), with
// XInclude/xpointer and Reference resolution and DataItem → NDArray reading for the three
// heavy-data formats. Local to the XDMF folder.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/hdf5/hdf5_file.hpp"
#include "io/source/mapped_file.hpp"
#include "meshioplusplus/ndarray.hpp"

namespace meshioplusplus::xdmf {

inline constexpr std::string_view kFormat = "xdmf";

struct Document;

struct Element {
  std::string_view name;  // local name: "xi:include" → "include"
  std::vector<std::pair<std::string_view, std::string>> attributes;  // entities decoded
  std::size_t content_begin = 0, content_end = 0;  // between the start and end tags
  std::size_t offset = 0;                          // of '<', for error messages
  std::vector<std::size_t> children;
  std::size_t parent = SIZE_MAX;

  const std::string* attribute(std::string_view key) const noexcept {
    for (const auto& [name, value] : attributes)
      if (name == key) return &value;
    return nullptr;
  }
};

// An element of some loaded document.
struct Node {
  const Document* document = nullptr;
  std::size_t index = 0;

  const Element& element() const;
  std::string_view name() const { return element().name; }
  const std::string* attribute(std::string_view key) const { return element().attribute(key); }
  std::string_view text() const;  // raw content; CDATA markers kept
  bool operator==(const Node& other) const noexcept { return document == other.document && index == other.index; }
};

struct Document {
  std::string path;
  std::unique_ptr<io::MappedFile> file;
  std::string_view bytes;
  std::vector<Element> elements;  // [0] is the root element
};

// Everything one read needs: the documents (the main one and XIncluded ones) and the HDF5
// files the heavy data lives in, each opened once.
class Context {
 public:
  explicit Context(const std::string& path);

  Node root() const { return {documents_.front().get(), 0}; }
  const std::string& path() const noexcept { return path_; }

  // Children with <xi:include> replaced by what it points at (recursively) and
  // Reference="XML" / Reference="/path" elements replaced by their target.
  std::vector<Node> children(const Node& node);
  std::vector<Node> children_named(const Node& node, std::string_view name);
  // Follows Reference attributes (Geometry/Topology/DataItem may point elsewhere).
  Node resolve(const Node& node);

  // A DataItem (Uniform; Format XML, Binary or HDF) as an array of its Dimensions, in the
  // file's dtype or, with `as`, converted while reading (inline text parsed straight into it,
  // HDF5 converting during the read).
  NDArray read_data_item(const Node& data_item, std::optional<DType> as = std::nullopt);

  // A Uniform DataItem's dtype (as read_data_item gives it without `as`) and Dimensions, from
  // the light data and, for HDF heavy data, the dataset's header; no values read. nullopt for
  // HyperSlab and Function items (their shape needs their data).
  std::optional<std::pair<DType, Shape>> data_item_info(const Node& data_item);

  [[noreturn]] void fail(const Node& node, const std::string& message) const;

 private:
  const Document& load(const std::string& path);
  std::vector<Node> evaluate_xpointer(const Node& context, std::string_view expression);
  const io::hdf5::File& hdf5_file(const std::string& path, const Node& item);
  // ItemType="HyperSlab": rows start/stride/count (one column per axis) of the second DataItem.
  NDArray read_hyperslab(const Node& item);
  // ItemType="Function": $0 … the child DataItems; + - * / unary -, numbers, parentheses,
  // JOIN(a, b, …) interlacing (columns), JOIN(a; b; …) concatenating, XDMF 3's '#' (interlace)
  // and '|' (concatenate), ABS/SQRT/SIN/COS/EXP/LOG.
  NDArray read_function(const Node& item);

  std::string path_;
  std::vector<std::unique_ptr<Document>> documents_;
  std::map<std::string, io::hdf5::File> hdf5_files_;
  int include_depth_ = 0;
};

// Splits "a b  c" into the int64 extents of Dimensions.
Shape parse_dimensions(std::string_view text, const Context& context, const Node& node);

}  // namespace meshioplusplus::xdmf
