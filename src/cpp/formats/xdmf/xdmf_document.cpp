#include "formats/xdmf/xdmf_document.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "io/byte_order.hpp"
#include "io/text_scanner.hpp"
#include "io/xml_scanner.hpp"
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
  throw ReadError(node.document->path, std::string(kFormat), message + " (in <" + std::string(element.name) + ">)",
                  element.offset, io::line_of_offset(bytes, element.offset));
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

NDArray Context::read_data_item(const Node& reference, std::optional<DType> as) {
  const Node item = resolve(reference);
  if (item.name() != "DataItem") fail(item, "expected a <DataItem>");
  if (const std::string* item_type = item.attribute("ItemType"); item_type != nullptr && *item_type != "Uniform")
    fail(item, "DataItem ItemType '" + *item_type + "' is not supported (only Uniform)");
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

}  // namespace meshioplusplus::xdmf
