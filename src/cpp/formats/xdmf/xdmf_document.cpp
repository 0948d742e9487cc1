#include "formats/xdmf/xdmf_document.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "io/source/byte_order.hpp"
#include "io/text/text_scanner.hpp"
#include "io/text/xml_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::xdmf {

namespace {

constexpr std::size_t kDocumentNode = SIZE_MAX;  // the node above the root element (XPath "/")
constexpr int kMaxIncludeDepth = 32;

std::string_view trim(std::string_view text) {
  while (!text.empty() && io::is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && io::is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::string_view local_name(std::string_view name) {
  const std::size_t colon = name.find(':');
  return colon == std::string_view::npos ? name : name.substr(colon + 1);
}

void build_tree(Document& document) {
  io::XmlScanner scanner(document.bytes, 0, document.path, kFormat);
  std::vector<std::size_t> open;
  while (auto tag = scanner.next_tag()) {
    if (tag->closing) {
      if (open.empty() || document.elements[open.back()].name != local_name(tag->name))
        scanner.fail_at(tag->begin, "unexpected closing tag </" + std::string(tag->name) + ">");
      document.elements[open.back()].content_end = tag->begin;
      open.pop_back();
      continue;
    }
    if (open.empty() && !document.elements.empty())
      scanner.fail_at(tag->begin, "a second root element <" + std::string(tag->name) + ">");
    Element element;
    element.name = local_name(tag->name);
    element.offset = tag->begin;
    element.content_begin = element.content_end = tag->end;
    for (const io::XmlAttribute& attribute : tag->attributes)
      element.attributes.emplace_back(local_name(attribute.name), io::decode_xml_entities(attribute.value));
    const std::size_t index = document.elements.size();
    if (!open.empty()) {
      element.parent = open.back();
      document.elements[open.back()].children.push_back(index);
    }
    document.elements.push_back(std::move(element));
    if (!tag->self_closing) open.push_back(index);
  }
  if (document.elements.empty()) throw ReadError(document.path, std::string(kFormat), "no XML element in the file", 0);
  if (!open.empty())
    scanner.fail_at(document.elements[open.back()].offset,
                    "element <" + std::string(document.elements[open.back()].name) + "> is never closed");
}

template <class T> void swap_if_needed(NDArray& array, bool big_endian) {
  if (big_endian == !io::kHostIsLittleEndian) return;
  io::swap_bytes_in_place(array.data(), sizeof(T), array.size());
}

std::optional<DType> item_dtype(std::string_view type, std::string_view precision) {
  if (type == "Float") {
    if (precision == "4") return DType::float32;
    if (precision == "8") return DType::float64;
  } else if (type == "Int" || type == "UInt") {
    const bool is_signed = type == "Int";
    if (precision == "1") return is_signed ? DType::int8 : DType::uint8;
    if (precision == "2") return is_signed ? DType::int16 : DType::uint16;
    if (precision == "4") return is_signed ? DType::int32 : DType::uint32;
    if (precision == "8") return is_signed ? DType::int64 : DType::uint64;
  } else if (type == "Char") {
    return DType::int8;
  } else if (type == "UChar") {
    return DType::uint8;
  }
  return std::nullopt;
}

std::uint64_t product(const Shape& shape) {
  std::uint64_t count = 1;
  for (std::int64_t extent : shape) count *= static_cast<std::uint64_t>(extent);
  return count;
}

}  // namespace

const Element& Node::element() const { return document->elements.at(index); }

std::string_view Node::text() const {
  const Element& e = element();
  return document->bytes.substr(e.content_begin, e.content_end - e.content_begin);
}

Context::Context(const std::string& path) : path_(path) { load(path); }

const Document& Context::load(const std::string& path) {
  for (const auto& document : documents_)
    if (document->path == path) return *document;
  auto document = std::make_unique<Document>();
  document->path = path;
  document->file = std::make_unique<io::MappedFile>(path, kFormat);
  document->bytes = document->file->bytes();
  build_tree(*document);
  documents_.push_back(std::move(document));
  return *documents_.back();
}

void Context::fail(const Node& node, const std::string& message) const {
  const Element& element = node.element();
  const std::string_view bytes = node.document->bytes;
  // The element's path, e.g. /Xdmf/Domain/Grid[@Name='mesh']/Geometry/DataItem.
  std::string where;
  for (std::size_t index = node.index; index != SIZE_MAX; index = node.document->elements[index].parent) {
    const Element& step = node.document->elements[index];
    std::string part = "/" + std::string(step.name);
    if (const std::string* name = step.attribute("Name")) part += "[@Name='" + *name + "']";
    where.insert(0, part);
  }
  throw ReadError(node.document->path, std::string(kFormat), message + " (at " + where + ")", element.offset,
                  io::line_of_offset(bytes, element.offset));
}

Shape parse_dimensions(std::string_view text, const Context& context, const Node& node) {
  Shape shape;
  std::size_t pos = 0;
  while (true) {
    while (pos < text.size() && io::is_space(text[pos])) ++pos;
    if (pos >= text.size()) break;
    std::int64_t value = -1;
    const auto result = std::from_chars(text.data() + pos, text.data() + text.size(), value);
    if (result.ec != std::errc{} || value < 0)
      context.fail(node, "invalid Dimensions '" + std::string(text) + "'");
    pos = static_cast<std::size_t>(result.ptr - text.data());
    shape.push_back(value);
  }
  if (shape.empty()) context.fail(node, "empty Dimensions");
  return shape;
}

// ---- XPath (the subset XDMF files use) --------------------------------------------------
//   /Xdmf/Domain/Grid[@Name='mesh'][1]/Geometry        absolute child steps
//   //Grid[@Name="mesh"]/*[self::Topology or self::Geometry]   descendants, name unions

namespace {

struct Step {
  bool descendant = false;
  std::string_view name;  // "*" for any
  std::vector<std::string_view> predicates;
};

std::vector<Step> parse_xpath(std::string_view expression, const Context& context, const Node& where) {
  std::vector<Step> steps;
  std::size_t pos = 0;
  while (pos < expression.size()) {
    Step step;
    if (expression.compare(pos, 2, "//") == 0) {
      step.descendant = true;
      pos += 2;
    } else if (expression[pos] == '/') {
      pos += 1;
    } else if (!steps.empty()) {
      context.fail(where, "cannot follow the XPath '" + std::string(expression) + "'");
    }
    const std::size_t name_start = pos;
    while (pos < expression.size() && expression[pos] != '[' && expression[pos] != '/') ++pos;
    step.name = trim(expression.substr(name_start, pos - name_start));
    while (pos < expression.size() && expression[pos] == '[') {
      std::size_t depth = 0, end = pos;
      char quote = 0;
      for (; end < expression.size(); ++end) {
        const char c = expression[end];
        if (quote) {
          if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
          quote = c;
        } else if (c == '[') {
          ++depth;
        } else if (c == ']' && --depth == 0) {
          break;
        }
      }
      if (end >= expression.size()) context.fail(where, "unbalanced [ in XPath '" + std::string(expression) + "'");
      step.predicates.push_back(trim(expression.substr(pos + 1, end - pos - 1)));
      pos = end + 1;
    }
    if (step.name.empty()) context.fail(where, "empty step in XPath '" + std::string(expression) + "'");
    steps.push_back(step);
  }
  return steps;
}

bool matches_predicate(const Element& element, std::string_view predicate, const Context& context, const Node& where) {
  if (predicate.starts_with('@')) {
    const std::size_t equals = predicate.find('=');
    if (equals == std::string_view::npos) return element.attribute(trim(predicate.substr(1))) != nullptr;
    const std::string_view key = trim(predicate.substr(1, equals - 1));
    std::string_view value = trim(predicate.substr(equals + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    const std::string* actual = element.attribute(key);
    return actual != nullptr && *actual == value;
  }
  if (predicate.starts_with("self::")) {
    std::string_view rest = predicate;
    while (!rest.empty()) {
      const std::size_t or_at = rest.find(" or ");
      std::string_view term = trim(rest.substr(0, or_at));
      if (!term.starts_with("self::")) context.fail(where, "unsupported XPath predicate [" + std::string(predicate) + "]");
      if (local_name(term.substr(6)) == element.name) return true;
      if (or_at == std::string_view::npos) break;
      rest = rest.substr(or_at + 4);
    }
    return false;
  }
  context.fail(where, "unsupported XPath predicate [" + std::string(predicate) + "]");
}

void collect_descendants(const Document& document, std::size_t index, std::vector<std::size_t>& out) {
  const std::vector<std::size_t> roots = index == kDocumentNode ? std::vector<std::size_t>{0} : document.elements[index].children;
  for (std::size_t child : roots) {
    out.push_back(child);
    collect_descendants(document, child, out);
  }
}

bool is_position(std::string_view predicate) {
  return !predicate.empty() && std::all_of(predicate.begin(), predicate.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::vector<Node> Context::evaluate_xpointer(const Node& where, std::string_view expression) {
  expression = trim(expression);
  if (expression.starts_with("xpointer(") && expression.ends_with(")"))
    expression = trim(expression.substr(9, expression.size() - 10));
  const Document& document = *where.document;
  const std::vector<Step> steps = parse_xpath(expression, *this, where);
  std::vector<std::size_t> current{kDocumentNode};
  for (const Step& step : steps) {
    std::vector<std::size_t> next;
    for (std::size_t context_index : current) {
      std::vector<std::size_t> candidates;
      if (step.descendant) {
        collect_descendants(document, context_index, candidates);
      } else {
        candidates = context_index == kDocumentNode ? std::vector<std::size_t>{0} : document.elements[context_index].children;
      }
      std::vector<std::size_t> matched;
      for (std::size_t candidate : candidates)
        if (step.name == "*" || local_name(step.name) == document.elements[candidate].name) matched.push_back(candidate);
      for (std::string_view predicate : step.predicates) {
        if (is_position(predicate)) {
          const std::size_t position = std::stoul(std::string(predicate));
          matched = position >= 1 && position <= matched.size() ? std::vector<std::size_t>{matched[position - 1]}
                                                                 : std::vector<std::size_t>{};
          continue;
        }
        std::erase_if(matched, [&](std::size_t candidate) {
          return !matches_predicate(document.elements[candidate], predicate, *this, where);
        });
      }
      for (std::size_t index : matched)
        if (std::find(next.begin(), next.end(), index) == next.end()) next.push_back(index);
    }
    current = std::move(next);
  }
  std::vector<Node> nodes;
  for (std::size_t index : current)
    if (index != kDocumentNode) nodes.push_back({&document, index});
  return nodes;
}

std::vector<Node> Context::children(const Node& node) {
  std::vector<Node> result;
  for (std::size_t child_index : node.element().children) {
    const Node child{node.document, child_index};
    if (child.name() != "include") {
      result.push_back(child);
      continue;
    }
    if (++include_depth_ > kMaxIncludeDepth) fail(child, "XInclude nested too deeply (a cycle?)");
    Node target_document_root = root();
    target_document_root.document = node.document;
    target_document_root.index = 0;
    if (const std::string* href = child.attribute("href"); href != nullptr && !href->empty()) {
      const std::filesystem::path target =
          std::filesystem::path(node.document->path).parent_path() / std::filesystem::path(*href);
      std::error_code error;
      if (!std::filesystem::is_regular_file(target, error))
        fail(child, "dangling XInclude: the file '" + target.string() + "' does not exist");
      target_document_root = {&load(target.string()), 0};
    }
    std::vector<Node> included;
    if (const std::string* xpointer = child.attribute("xpointer"); xpointer != nullptr && !xpointer->empty()) {
      included = evaluate_xpointer(target_document_root, *xpointer);
      if (included.empty()) fail(child, "dangling XInclude: xpointer '" + *xpointer + "' matches no element");
    } else {
      included.push_back(target_document_root);
    }
    for (const Node& target : included) {
      if (target.name() == "include") {  // an include of includes: expand through the parent
        fail(target, "XInclude pointing at another XInclude is not supported");
      }
      result.push_back(target);
    }
    --include_depth_;
  }
  return result;
}

std::vector<Node> Context::children_named(const Node& node, std::string_view name) {
  std::vector<Node> result;
  for (const Node& child : children(node))
    if (child.name() == name) result.push_back(child);
  return result;
}

Node Context::resolve(const Node& node) {
  Node current = node;
  for (int hops = 0; hops < kMaxIncludeDepth; ++hops) {
    const std::string* reference = current.attribute("Reference");
    if (reference == nullptr) return current;
    const std::string_view xpath = *reference == "XML" ? trim(current.text()) : std::string_view(*reference);
    const std::vector<Node> targets = evaluate_xpointer(current, xpath);
    if (targets.empty()) fail(current, "Reference '" + std::string(xpath) + "' matches no element");
    current = targets.front();
  }
  fail(node, "Reference chain too long (a cycle?)");
}

const io::hdf5::File& Context::hdf5_file(const std::string& path, const Node& item) {
  if (auto found = hdf5_files_.find(path); found != hdf5_files_.end()) return found->second;
  if (!io::hdf5::available()) fail(item, std::string(io::hdf5::kMissingLibrary));
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    fail(item, "heavy data refers to the HDF5 file '" + path + "', which does not exist");
  return hdf5_files_.emplace(path, io::hdf5::File::open(path, kFormat)).first->second;
}

std::optional<std::pair<DType, Shape>> Context::data_item_info(const Node& reference) {
  const Node item = resolve(reference);
  if (item.name() != "DataItem") fail(item, "expected a <DataItem>");
  if (const std::string* item_type = item.attribute("ItemType"); item_type != nullptr && *item_type != "Uniform")
    return std::nullopt;
  const std::string* dimensions = item.attribute("Dimensions");
  if (dimensions == nullptr) fail(item, "DataItem without Dimensions");
  const Shape shape = parse_dimensions(*dimensions, *this, item);
  const std::string* data_type = item.attribute("DataType");
  const std::string* number_type = item.attribute("NumberType");
  const std::string type = data_type ? *data_type : number_type ? *number_type : "Float";
  const std::string* precision_text = item.attribute("Precision");
  const std::string precision = precision_text ? *precision_text : (type == "Float" || type == "Int" || type == "UInt") ? "4" : "1";
  const std::optional<DType> dtype = item_dtype(type, precision);
  if (!dtype) fail(item, "unsupported DataType '" + type + "' with Precision " + precision);
  const std::string* format = item.attribute("Format");
  if (format == nullptr || *format != "HDF") return std::pair{*dtype, shape};
  const std::string_view text = trim(item.text());
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0)
    fail(item, "HDF heavy data '" + std::string(text) + "' is not 'file.h5:/path'");
  const std::string directory = std::filesystem::path(item.document->path).parent_path().string();
  const std::string h5_path = (std::filesystem::path(directory) / std::string(text.substr(0, colon))).string();
  const std::string dataset(text.substr(colon + 1));
  const io::hdf5::File& file = hdf5_file(h5_path, item);
  if (file.kind(dataset) != io::hdf5::ObjectKind::dataset)
    fail(item, "HDF5 file '" + h5_path + "' has no dataset '" + dataset + "'");
  const io::hdf5::DatasetInfo info = file.dataset_info(dataset);
  if (info.compound || info.string) return std::nullopt;
  return std::pair{info.dtype, shape};
}

NDArray Context::read_data_item(const Node& reference, std::optional<DType> as) {
  const Node item = resolve(reference);
  if (item.name() != "DataItem") fail(item, "expected a <DataItem>");
  if (const std::string* item_type = item.attribute("ItemType"); item_type != nullptr && *item_type != "Uniform") {
    if (++include_depth_ > kMaxIncludeDepth) fail(item, "DataItems nested too deeply");
    NDArray array;
    if (*item_type == "HyperSlab") array = read_hyperslab(item);
    else if (*item_type == "Function") array = read_function(item);
    else fail(item, "DataItem ItemType '" + *item_type + "' is not supported (Uniform, HyperSlab or Function)");
    --include_depth_;
    return as && *as != array.dtype() ? array.astype(*as) : array;
  }
  const std::string* dimensions = item.attribute("Dimensions");
  if (dimensions == nullptr) fail(item, "DataItem without Dimensions");
  const Shape shape = parse_dimensions(*dimensions, *this, item);
  const std::string* data_type = item.attribute("DataType");
  const std::string* number_type = item.attribute("NumberType");
  const std::string type = data_type ? *data_type : number_type ? *number_type : "Float";
  const std::string* precision_text = item.attribute("Precision");
  const std::string precision = precision_text ? *precision_text : (type == "Float" || type == "Int" || type == "UInt") ? "4" : "1";
  const std::optional<DType> dtype = item_dtype(type, precision);
  if (!dtype) fail(item, "unsupported DataType '" + type + "' with Precision " + precision);
  const std::string* format_text = item.attribute("Format");
  const std::string format = format_text ? *format_text : "XML";
  const std::uint64_t count = product(shape);
  const std::string directory = std::filesystem::path(item.document->path).parent_path().string();

  if (format == "XML") {
    const Element& element = item.element();
    io::TextScanner scanner(item.document->bytes, element.content_begin, element.content_end, item.document->path,
                            kFormat);
    const std::uint64_t available_bytes = element.content_end - element.content_begin;
    if (count > available_bytes / 2 + 1)  // every value needs a digit and a separator
      fail(item, "Dimensions " + *dimensions + " ask for more values than the element holds");
    NDArray array = NDArray::allocate(as.value_or(*dtype), shape);
    visit_dtype(array.dtype(), [&](auto zero) {
      using T = decltype(zero);
      scanner.next_numbers(array.data_as<T>(), array.size());
    });
    scanner.skip_whitespace();
    if (!scanner.at_end()) fail(item, "more values than Dimensions " + *dimensions);
    return array;
  }
  if (format == "Binary") {
    const std::string* compression = item.attribute("Compression");
    if (compression != nullptr && *compression != "Raw")
      fail(item, "binary heavy data with Compression '" + *compression + "' is not supported");
    const std::string name(trim(item.text()));
    const std::string path = (std::filesystem::path(directory) / name).string();
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error))
      fail(item, "heavy data refers to the binary file '" + path + "', which does not exist");
    io::MappedFile file(path, kFormat);
    std::uint64_t seek = 0;
    if (const std::string* seek_text = item.attribute("Seek")) {
      const auto result = std::from_chars(seek_text->data(), seek_text->data() + seek_text->size(), seek);
      if (result.ec != std::errc{}) fail(item, "invalid Seek '" + *seek_text + "'");
    }
    const std::uint64_t nbytes = count * dtype_size(*dtype);
    if (count > file.bytes().size() || seek > file.bytes().size() || nbytes > file.bytes().size() - seek)
      throw ReadError(path, std::string(kFormat),
                      "holds " + std::to_string(file.bytes().size()) + " bytes, the DataItem needs " +
                          std::to_string(nbytes) + " from offset " + std::to_string(seek),
                      file.bytes().size());
    NDArray array = NDArray::allocate(*dtype, shape);
    if (nbytes > 0) std::memcpy(array.data(), file.bytes().data() + seek, nbytes);
    const std::string* endian = item.attribute("Endian");
    if (endian != nullptr && *endian != "Native" && *endian != "Little" && *endian != "Big")
      fail(item, "unknown Endian '" + *endian + "'");
    const bool big = endian != nullptr && *endian == "Big";
    const bool little = endian != nullptr && *endian == "Little";
    if (big || little) visit_dtype(*dtype, [&](auto zero) { swap_if_needed<decltype(zero)>(array, big); });
    return as && *as != array.dtype() ? array.astype(*as) : array;
  }
  if (format == "HDF") {
    const std::string_view text = trim(item.text());
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos || colon == 0)
      fail(item, "HDF heavy data '" + std::string(text) + "' is not 'file.h5:/path'");
    const std::string h5_path = (std::filesystem::path(directory) / std::string(text.substr(0, colon))).string();
    const std::string dataset(text.substr(colon + 1));
    const io::hdf5::File& file = hdf5_file(h5_path, item);
    if (file.kind(dataset) != io::hdf5::ObjectKind::dataset)
      fail(item, "HDF5 file '" + h5_path + "' has no dataset '" + dataset + "'");
    NDArray array = as ? file.read(dataset, *as) : file.read(dataset);
    if (array.size() != count)
      fail(item, "HDF5 dataset '" + h5_path + ":" + dataset + "' holds " + std::to_string(array.size()) +
                     " values, Dimensions " + *dimensions + " say " + std::to_string(count));
    return array.reshaped(shape);
  }
  fail(item, "unknown heavy-data Format '" + format + "' (XML, Binary or HDF)");
}

// ---- HyperSlab and Function DataItems --------------------------------------------------------

NDArray Context::read_hyperslab(const Node& item) {
  const std::vector<Node> items = children_named(item, "DataItem");
  if (items.size() != 2) fail(item, "a HyperSlab DataItem needs two DataItems (start/stride/count, then the data)");
  const NDArray selection = read_data_item(items[0], DType::int64);
  const NDArray source = read_data_item(items[1]);
  const std::size_t rank = source.ndim();
  if (rank == 0 || selection.size() != 3 * rank)
    fail(item, "HyperSlab selection holds " + std::to_string(selection.size()) + " values, the data has rank " +
                   std::to_string(rank) + " (3 x rank needed)");
  const std::int64_t* sel = selection.data_as<std::int64_t>();
  Shape count(rank);
  std::vector<std::int64_t> start(rank), stride(rank);
  for (std::size_t axis = 0; axis < rank; ++axis) {
    start[axis] = sel[axis];
    stride[axis] = sel[rank + axis];
    count[axis] = sel[2 * rank + axis];
    const std::int64_t extent = source.dim(axis);
    if (start[axis] < 0 || stride[axis] < 1 || count[axis] < 0 ||
        (count[axis] > 0 && (start[axis] >= extent || (count[axis] - 1) > (extent - 1 - start[axis]) / stride[axis])))
      fail(item, "HyperSlab start " + std::to_string(start[axis]) + " stride " + std::to_string(stride[axis]) +
                     " count " + std::to_string(count[axis]) + " on axis " + std::to_string(axis) +
                     " leaves the data (extent " + std::to_string(extent) + ")");
  }
  NDArray result = NDArray::allocate(source.dtype(), count);
  const std::size_t element = dtype_size(source.dtype());
  std::vector<std::int64_t> source_strides(rank, 1);
  for (std::size_t axis = rank - 1; axis > 0; --axis) source_strides[axis - 1] = source_strides[axis] * source.dim(axis);
  std::vector<std::int64_t> index(rank, 0);
  const char* from = static_cast<const char*>(source.data());
  char* to = static_cast<char*>(result.data());
  for (std::size_t out = 0; out < result.size(); ++out) {
    std::int64_t offset = 0;
    for (std::size_t axis = 0; axis < rank; ++axis) offset += (start[axis] + index[axis] * stride[axis]) * source_strides[axis];
    std::memcpy(to + out * element, from + static_cast<std::size_t>(offset) * element, element);
    for (std::size_t axis = rank; axis-- > 0;) {
      if (++index[axis] < count[axis]) break;
      index[axis] = 0;
    }
  }
  if (const std::string* dimensions = item.attribute("Dimensions")) {
    const Shape shape = parse_dimensions(*dimensions, *this, item);
    if (product(shape) != result.size())
      fail(item, "HyperSlab Dimensions " + *dimensions + " but the selection holds " + std::to_string(result.size()) + " values");
    result = result.reshaped(shape);
  }
  return result;
}

namespace {

struct Values {
  std::vector<double> data;
  std::int64_t columns = 1;
  bool integer = true;
};

class FunctionParser {
 public:
  FunctionParser(std::string_view text, const std::vector<NDArray>& operands, const Context& context, const Node& item)
      : text_(text), operands_(operands), context_(context), item_(item) {}

  Values parse() {
    Values result = chain();
    skip();
    if (pos_ != text_.size()) error("unexpected '" + std::string(1, text_[pos_]) + "'");
    return result;
  }
  bool arithmetic = false;  // anything beyond $k and JOIN: the result is computed in float64/int64

 private:
  [[noreturn]] void error(const std::string& message) const {
    context_.fail(item_, "Function '" + std::string(text_) + "': " + message + " at column " + std::to_string(pos_ + 1));
  }
  void skip() {
    while (pos_ < text_.size() && io::is_space(text_[pos_])) ++pos_;
  }
  bool accept(char c) {
    skip();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  static Values join(std::vector<Values>& parts, bool interlace) {
    Values result;
    result.integer = std::all_of(parts.begin(), parts.end(), [](const Values& v) { return v.integer; });
    if (!interlace) {
      for (Values& part : parts) result.data.insert(result.data.end(), part.data.begin(), part.data.end());
      result.columns = parts.front().columns;
      for (const Values& part : parts)
        if (part.columns != result.columns) result.columns = 1;
      return result;
    }
    std::int64_t rows = -1, width = 0;
    for (const Values& part : parts) {
      const std::int64_t part_rows = static_cast<std::int64_t>(part.data.size()) / part.columns;
      if (rows >= 0 && part_rows != rows) return Values{{}, -1, false};
      rows = part_rows;
      width += part.columns;
    }
    result.columns = width;
    result.data.resize(static_cast<std::size_t>(rows * width));
    std::int64_t column = 0;
    for (const Values& part : parts) {
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < part.columns; ++c)
          result.data[static_cast<std::size_t>(r * width + column + c)] = part.data[static_cast<std::size_t>(r * part.columns + c)];
      column += part.columns;
    }
    return result;
  }

  Values combine(const Values& a, const Values& b, char op) {
    arithmetic = true;
    const std::size_t n = std::max(a.data.size(), b.data.size());
    if (a.data.size() != n && a.data.size() != 1) error("operands of '" + std::string(1, op) + "' differ in size");
    if (b.data.size() != n && b.data.size() != 1) error("operands of '" + std::string(1, op) + "' differ in size");
    Values result;
    result.columns = a.data.size() == n ? a.columns : b.columns;
    result.integer = a.integer && b.integer && op != '/';
    result.data.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const double x = a.data[a.data.size() == 1 ? 0 : i], y = b.data[b.data.size() == 1 ? 0 : i];
      result.data[i] = op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y;
    }
    return result;
  }

  // chain := sum (('|' | '#') sum)*   (XDMF 3: '|' concatenates, '#' interlaces)
  Values chain() {
    Values left = sum();
    while (true) {
      skip();
      if (pos_ >= text_.size() || (text_[pos_] != '|' && text_[pos_] != '#')) return left;
      const bool interlace = text_[pos_++] == '#';
      std::vector<Values> parts{std::move(left), sum()};
      left = join(parts, interlace);
      if (left.columns < 0) error("'#' of arrays of different lengths");
    }
  }
  Values sum() {
    Values left = product();
    while (true) {
      skip();
      if (pos_ >= text_.size() || (text_[pos_] != '+' && text_[pos_] != '-')) return left;
      const char op = text_[pos_++];
      left = combine(left, product(), op);
    }
  }
  Values product() {
    Values left = unary();
    while (true) {
      skip();
      if (pos_ >= text_.size() || (text_[pos_] != '*' && text_[pos_] != '/')) return left;
      const char op = text_[pos_++];
      left = combine(left, unary(), op);
    }
  }
  Values unary() {
    if (accept('-')) {
      Values value = unary();
      for (double& x : value.data) x = -x;
      arithmetic = true;
      return value;
    }
    if (accept('+')) return unary();
    return primary();
  }
  Values primary() {
    skip();
    if (pos_ >= text_.size()) error("unexpected end");
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      Values inner = chain();
      if (!accept(')')) error("')' expected");
      return inner;
    }
    if (c == '$') {
      ++pos_;
      std::size_t index = 0;
      const auto result = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), index);
      if (result.ec != std::errc{}) error("'$' without an operand number");
      pos_ = static_cast<std::size_t>(result.ptr - text_.data());
      if (index >= operands_.size())
        error("$" + std::to_string(index) + " but the Function has " + std::to_string(operands_.size()) + " DataItems");
      const NDArray& array = operands_[index];
      Values value;
      value.integer = !dtype_is_float(array.dtype());
      value.columns = array.ndim() >= 2 ? array.row_width() : 1;
      if (value.columns < 1) value.columns = 1;
      const NDArray as_double = array.dtype() == DType::float64 ? array : array.astype(DType::float64);
      value.data.assign(as_double.data_as<double>(), as_double.data_as<double>() + as_double.size());
      return value;
    }
    if ((c >= '0' && c <= '9') || c == '.') {
      double number = 0;
      const auto result = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), number);
      if (result.ec != std::errc{}) error("invalid number");
      const std::string_view digits = text_.substr(pos_, static_cast<std::size_t>(result.ptr - text_.data()) - pos_);
      pos_ = static_cast<std::size_t>(result.ptr - text_.data());
      arithmetic = true;
      return Values{{number}, 1, digits.find_first_of(".eE") == std::string_view::npos};
    }
    if (std::isalpha(static_cast<unsigned char>(c))) {
      const std::size_t begin = pos_;
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
      std::string name(text_.substr(begin, pos_ - begin));
      for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      if (!accept('(')) error("'(' expected after " + name);
      std::vector<Values> arguments{chain()};
      std::optional<char> separator;
      while (true) {
        skip();
        if (pos_ < text_.size() && (text_[pos_] == ',' || text_[pos_] == ';')) {
          if (separator && *separator != text_[pos_]) error("JOIN mixes ',' and ';'");
          separator = text_[pos_++];
          arguments.push_back(chain());
          continue;
        }
        break;
      }
      if (!accept(')')) error("')' expected");
      if (name == "JOIN") {
        // XDMF 2: JOIN($0, $1, $2) interlaces (one column each), JOIN($0; $1) concatenates.
        Values joined = join(arguments, separator.value_or(',') == ',');
        if (joined.columns < 0) error("JOIN of arrays of different lengths");
        return joined;
      }
      if (arguments.size() != 1) error(name + " takes one argument");
      Values value = std::move(arguments.front());
      arithmetic = true;
      double (*fn)(double) = nullptr;
      if (name == "ABS") fn = [](double x) { return std::fabs(x); };
      else if (name == "SQRT") fn = [](double x) { return std::sqrt(x); };
      else if (name == "SIN") fn = [](double x) { return std::sin(x); };
      else if (name == "COS") fn = [](double x) { return std::cos(x); };
      else if (name == "EXP") fn = [](double x) { return std::exp(x); };
      else if (name == "LOG") fn = [](double x) { return std::log(x); };
      else error("unknown function " + name);
      for (double& x : value.data) x = fn(x);
      if (name != "ABS") value.integer = false;
      return value;
    }
    error("unexpected '" + std::string(1, c) + "'");
  }

  std::string_view text_;
  const std::vector<NDArray>& operands_;
  const Context& context_;
  const Node& item_;
  std::size_t pos_ = 0;
};

}  // namespace

NDArray Context::read_function(const Node& item) {
  const std::string* function = item.attribute("Function");
  if (function == nullptr) fail(item, "a Function DataItem without a Function attribute");
  std::vector<NDArray> operands;
  for (const Node& child : children_named(item, "DataItem")) operands.push_back(read_data_item(child));
  FunctionParser parser(*function, operands, *this, item);
  const Values values = parser.parse();
  DType dtype = values.integer ? DType::int64 : DType::float64;
  if (!parser.arithmetic && !operands.empty() &&
      std::all_of(operands.begin(), operands.end(), [&](const NDArray& a) { return a.dtype() == operands.front().dtype(); }))
    dtype = operands.front().dtype();  // a plain JOIN keeps the operands' dtype
  Shape shape = values.columns > 1 ? Shape{static_cast<std::int64_t>(values.data.size()) / values.columns, values.columns}
                                   : Shape{static_cast<std::int64_t>(values.data.size())};
  if (const std::string* dimensions = item.attribute("Dimensions")) {
    const Shape declared = parse_dimensions(*dimensions, *this, item);
    if (product(declared) != values.data.size())
      fail(item, "Function Dimensions " + *dimensions + " but the expression gives " + std::to_string(values.data.size()) + " values");
    shape = declared;
  }
  NDArray as_double = NDArray::allocate(DType::float64, shape);
  std::copy(values.data.begin(), values.data.end(), as_double.data_as<double>());
  return dtype == DType::float64 ? as_double : as_double.astype(dtype);
}

}  // namespace meshioplusplus::xdmf
