// glTF container, buffers and accessors: see gltf_document.hpp.
#include "formats/gltf/gltf_document.hpp"

#include <filesystem>
#include <string>

#include "io/codecs/base64.hpp"
#include "io/source/read_limits.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::gltf::detail {
namespace {

constexpr std::uint32_t kGlbMagic = 0x46546C67;      // "glTF"
constexpr std::uint32_t kChunkJson = 0x4E4F534A;     // "JSON"
constexpr std::uint32_t kChunkBinary = 0x004E4942;   // "BIN\0"

std::uint32_t load_u32(const char* bytes) noexcept {
  std::uint32_t value;
  std::memcpy(&value, bytes, 4);
  return value;
}

std::string item_path(std::string_view array_name, std::int64_t index) {
  return std::string(array_name) + "[" + std::to_string(index) + "]";
}

// "%20" and friends in a relative URI ("Box With Spaces.bin" is written "Box%20With%20Spaces.bin").
std::optional<std::string> percent_decoded(std::string_view uri) {
  std::string out;
  for (std::size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] != '%') {
      out.push_back(uri[i]);
      continue;
    }
    if (i + 2 >= uri.size()) return std::nullopt;
    int value = 0;
    for (int k = 1; k <= 2; ++k) {
      const char h = uri[i + static_cast<std::size_t>(k)];
      value <<= 4;
      if (h >= '0' && h <= '9') value |= h - '0';
      else if (h >= 'a' && h <= 'f') value |= h - 'a' + 10;
      else if (h >= 'A' && h <= 'F') value |= h - 'A' + 10;
      else return std::nullopt;
    }
    out.push_back(static_cast<char>(value));
    i += 2;
  }
  return out;
}

int components_of(std::string_view type, int* matrix_rows) {
  *matrix_rows = 0;
  if (type == "SCALAR") return 1;
  if (type == "VEC2") return 2;
  if (type == "VEC3") return 3;
  if (type == "VEC4") return 4;
  if (type == "MAT2") return *matrix_rows = 2, 4;
  if (type == "MAT3") return *matrix_rows = 3, 9;
  if (type == "MAT4") return *matrix_rows = 4, 16;
  return 0;
}

}  // namespace

Document::Document(const std::string& path) : path_(path) {
  file_ = std::make_unique<io::MappedFile>(path, kFormat);
  const std::string_view bytes = file_->bytes();
  if (bytes.size() >= 4 && load_u32(bytes.data()) == kGlbMagic) {
    load_glb(bytes);
  } else {
    io::reject_empty_file(bytes, path, kFormat);
    root_ = io::parse_json(bytes, path, kFormat);
  }
  if (!root_.is_object()) fail("the glTF document is not a JSON object", &root_);
  const io::JsonValue* asset = root_.find("asset");
  if (!asset || !asset->is_object()) fail("no \"asset\" object: not a glTF document");
  if (const io::JsonValue* version = asset->find("version"); version && version->is_string()) {
    const std::string& text = version->as_string();
    if (text.empty() || text[0] != '2')
      fail("asset.version is \"" + text + "\"; only glTF 2.x is read (glTF 1.0 differs throughout)", version);
  }
  if (const io::JsonValue* buffers = root_.find("buffers"); buffers && buffers->is_array())
    buffers_.resize(buffers->items().size());
  if (const io::JsonValue* accessors = root_.find("accessors"); accessors && accessors->is_array())
    accessors_.resize(accessors->items().size());
}

void Document::load_glb(std::string_view bytes) {
  is_glb_ = true;
  if (bytes.size() < 20) throw ReadError(path_, std::string(kFormat), "GLB file too short for its header", 0);
  const std::uint32_t version = load_u32(bytes.data() + 4);
  const std::uint32_t length = load_u32(bytes.data() + 8);
  if (version != 2)
    throw ReadError(path_, std::string(kFormat), "GLB version " + std::to_string(version) + "; only version 2 is read", 4);
  if (length > bytes.size())
    throw ReadError(path_, std::string(kFormat),
                    "GLB header claims " + std::to_string(length) + " bytes but the file has " +
                        std::to_string(bytes.size()) + " (truncated?)",
                    8);
  std::uint64_t at = 12;
  bool have_json = false;
  while (at + 8 <= length) {
    const std::uint64_t chunk_length = load_u32(bytes.data() + at);
    const std::uint32_t chunk_type = load_u32(bytes.data() + at + 4);
    if (chunk_length > length - at - 8)
      throw ReadError(path_, std::string(kFormat),
                      "GLB chunk of " + std::to_string(chunk_length) + " bytes runs past the end of the file", at);
    const std::uint64_t data = at + 8;
    if (!have_json) {
      if (chunk_type != kChunkJson)
        throw ReadError(path_, std::string(kFormat), "the first GLB chunk is not the JSON chunk", at + 4);
      root_ = io::parse_json(bytes.substr(data, chunk_length), path_, kFormat, data);
      have_json = true;
    } else if (chunk_type == kChunkBinary && glb_bin_.data == nullptr) {
      glb_bin_ = {reinterpret_cast<const std::uint8_t*>(bytes.data() + data), chunk_length};
    }
    at = data + chunk_length;  // other chunk types are skipped, as the spec asks
  }
  if (!have_json) throw ReadError(path_, std::string(kFormat), "GLB file without a JSON chunk", 12);
}

void Document::fail(const std::string& message, const io::JsonValue* at) const {
  if (at) throw ReadError(path_, std::string(kFormat), message, at->offset());
  throw ReadError(path_, std::string(kFormat), message);
}

const io::JsonValue& Document::array_item(std::string_view array_name, std::int64_t index) const {
  const io::JsonValue* array = root_.find(array_name);
  if (!array || !array->is_array())
    fail(item_path(array_name, index) + " is referred to, but the document has no \"" + std::string(array_name) +
         "\" array");
  if (index < 0 || static_cast<std::uint64_t>(index) >= array->items().size())
    fail(item_path(array_name, index) + " is referred to, but \"" + std::string(array_name) + "\" has " +
             std::to_string(array->items().size()) + " entries",
         array);
  const io::JsonValue& item = array->items()[static_cast<std::size_t>(index)];
  if (!item.is_object()) fail(item_path(array_name, index) + " is not an object", &item);
  return item;
}

std::int64_t Document::integer(const io::JsonValue& object, std::string_view key, const std::string& where,
                               std::optional<std::int64_t> fallback) const {
  const io::JsonValue* value = object.find(key);
  if (!value) {
    if (fallback) return *fallback;
    fail(where + " has no \"" + std::string(key) + "\"", &object);
  }
  if (!value->is_integer()) fail(where + "." + std::string(key) + " is not an integer", value);
  return value->as_int64();
}

BufferSpan Document::buffer(std::int64_t index, const std::string& where) {
  const io::JsonValue& object = array_item("buffers", index);
  auto& slot = buffers_[static_cast<std::size_t>(index)];
  if (slot) return *slot;
  const std::string self = item_path("buffers", index);
  const std::int64_t byte_length = integer(object, "byteLength", self);
  if (byte_length < 0) fail(self + ".byteLength is negative", &object);
  BufferSpan span;
  const io::JsonValue* uri = object.find("uri");
  if (!uri) {
    if (!is_glb_ || index != 0 || glb_bin_.data == nullptr)
      fail(self + " has no uri and is not the BIN chunk of a GLB file (referred to by " + where + ")", &object);
    span = glb_bin_;
  } else {
    if (!uri->is_string()) fail(self + ".uri is not a string", uri);
    const std::string& text = uri->as_string();
    if (text.rfind("data:", 0) == 0) {
      const std::size_t comma = text.find(',');
      if (comma == std::string::npos || text.compare(0, comma, "data:") == 0 ||
          text.substr(0, comma).find(";base64") == std::string::npos)
        fail(self + ".uri is a data URI without \";base64,\"", uri);
      const std::string_view encoded = std::string_view(text).substr(comma + 1);
      io::check_claim_fits_limit(path_, kFormat, self + " (data URI)", io::base64_decoded_capacity(encoded.size()), 1);
      std::vector<std::uint8_t> decoded(io::base64_decoded_capacity(encoded.size()));
      std::size_t bad = 0;
      const auto size = io::base64_decode(encoded, decoded.data(), &bad);
      if (!size)
        throw ReadError(path_, std::string(kFormat),
                        self + ".uri: bad base64 at character " + std::to_string(bad) + " of the data", uri->offset());
      decoded.resize(*size);
      decoded_uris_.push_back(std::move(decoded));
      span = {decoded_uris_.back().data(), decoded_uris_.back().size()};
    } else {
      if (text.find("://") != std::string::npos)
        fail(self + ".uri \"" + text + "\" is not a local file; only files beside the .gltf are read", uri);
      const std::optional<std::string> relative = percent_decoded(text);
      if (!relative || relative->empty()) fail(self + ".uri \"" + text + "\" is not a valid relative URI", uri);
      const std::filesystem::path beside = std::filesystem::path(path_).parent_path() / *relative;
      external_files_.push_back(std::make_unique<io::MappedFile>(beside.string(), kFormat));
      const std::string_view bytes = external_files_.back()->bytes();
      span = {reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()};
    }
  }
  if (static_cast<std::uint64_t>(byte_length) > span.size)
    fail(self + ".byteLength is " + std::to_string(byte_length) + " but its data holds " + std::to_string(span.size) +
             " bytes",
         &object);
  span.size = static_cast<std::uint64_t>(byte_length);
  slot = span;
  return span;
}

const Accessor& Document::accessor(std::int64_t index, const std::string& where) {
  const io::JsonValue& object = array_item("accessors", index);
  auto& slot = accessors_[static_cast<std::size_t>(index)];
  if (slot) return *slot;
  const std::string self = item_path("accessors", index);
  Accessor a;
  a.index = index;
  a.count = integer(object, "count", self);
  if (a.count < 0) fail(self + ".count is negative", &object);
  a.component_type = static_cast<int>(integer(object, "componentType", self));
  const int size = component_size(a.component_type);
  if (size == 0) fail(self + ".componentType " + std::to_string(a.component_type) + " is not a glTF component type", &object);
  const io::JsonValue* type = object.find("type");
  if (!type || !type->is_string()) fail(self + " has no \"type\" string", &object);
  a.components = components_of(type->as_string(), &a.matrix_rows);
  if (a.components == 0) fail(self + ".type \"" + type->as_string() + "\" is not a glTF accessor type", type);
  if (const io::JsonValue* normalized = object.find("normalized"); normalized && normalized->is_bool())
    a.normalized = normalized->as_bool();
  const std::int64_t element_bytes =
      a.matrix_rows ? a.components / a.matrix_rows * ((a.matrix_rows * size + 3) / 4 * 4) : a.components * size;
  // Each element costs memory in the output: bound the claim before any allocation.
  io::check_claim_fits_limit(path_, kFormat, self, static_cast<std::uint64_t>(a.count),
                             static_cast<std::uint64_t>(a.components) * 8, {object.offset(), std::nullopt});

  // A view (bufferViews[i]) within its buffer, returned with its stride.
  const auto view_bytes = [&](std::int64_t view_index, const std::string& referrer, std::int64_t* stride) {
    const io::JsonValue& view = array_item("bufferViews", view_index);
    const std::string view_path = item_path("bufferViews", view_index);
    const BufferSpan data = buffer(integer(view, "buffer", view_path), view_path);
    const std::int64_t offset = integer(view, "byteOffset", view_path, 0);
    const std::int64_t length = integer(view, "byteLength", view_path);
    if (offset < 0 || length < 0 || static_cast<std::uint64_t>(offset) > data.size ||
        static_cast<std::uint64_t>(length) > data.size - static_cast<std::uint64_t>(offset))
      fail(view_path + " (bytes " + std::to_string(offset) + " + " + std::to_string(length) +
               ") runs past the end of its buffer (" + std::to_string(data.size) + " bytes; used by " + referrer + ")",
           &view);
    if (stride) {
      *stride = integer(view, "byteStride", view_path, 0);
      if (*stride != 0 && (*stride < 4 || *stride > 252)) fail(view_path + ".byteStride is outside 4..252", &view);
    }
    return BufferSpan{data.data + offset, static_cast<std::uint64_t>(length)};
  };
  // `count` elements of `bytes_each` at `offset` with `stride` fit in `span`.
  const auto check_fits = [&](const BufferSpan& span, std::int64_t offset, std::int64_t stride, std::int64_t count,
                              std::int64_t bytes_each, const std::string& what) {
    bool fits = offset >= 0 && static_cast<std::uint64_t>(offset) <= span.size;
    if (fits && count > 0) {
      const auto last = io::checked_product(static_cast<std::uint64_t>(count - 1), static_cast<std::uint64_t>(stride));
      fits = last && *last + static_cast<std::uint64_t>(bytes_each) <= span.size - static_cast<std::uint64_t>(offset);
    }
    if (!fits)
      fail(what + ": " + std::to_string(count) + " elements of " + std::to_string(bytes_each) + " bytes from byte " +
               std::to_string(offset) + " run past the end of its buffer view (" + std::to_string(span.size) +
               " bytes)",
           &object);
  };

  if (const io::JsonValue* view = object.find("bufferView")) {
    if (!view->is_integer()) fail(self + ".bufferView is not an integer", view);
    std::int64_t stride = 0;
    const BufferSpan span = view_bytes(view->as_int64(), self, &stride);
    a.stride = stride ? stride : element_bytes;
    const std::int64_t offset = integer(object, "byteOffset", self, 0);
    check_fits(span, offset, a.stride, a.count, element_bytes, self);
    a.base = span.data + offset;
  }
  if (const io::JsonValue* sparse = object.find("sparse")) {
    const std::string sparse_path = self + ".sparse";
    if (!sparse->is_object()) fail(sparse_path + " is not an object", sparse);
    a.sparse_count = integer(*sparse, "count", sparse_path);
    if (a.sparse_count < 1 || a.sparse_count > a.count)
      fail(sparse_path + ".count " + std::to_string(a.sparse_count) + " is outside 1.." + std::to_string(a.count), sparse);
    const io::JsonValue* indices = sparse->find("indices");
    const io::JsonValue* values = sparse->find("values");
    if (!indices || !indices->is_object() || !values || !values->is_object())
      fail(sparse_path + " needs \"indices\" and \"values\" objects", sparse);
    const std::string indices_path = sparse_path + ".indices";
    a.sparse_index_type = static_cast<int>(integer(*indices, "componentType", indices_path));
    if (a.sparse_index_type != kUnsignedByte && a.sparse_index_type != kUnsignedShort &&
        a.sparse_index_type != kUnsignedInt)
      fail(indices_path + ".componentType must be an unsigned integer type", indices);
    const BufferSpan index_span = view_bytes(integer(*indices, "bufferView", indices_path), indices_path, nullptr);
    const std::int64_t index_offset = integer(*indices, "byteOffset", indices_path, 0);
    const int index_size = component_size(a.sparse_index_type);
    check_fits(index_span, index_offset, index_size, a.sparse_count, index_size, indices_path);
    a.sparse_indices = index_span.data + index_offset;
    const std::string values_path = sparse_path + ".values";
    const BufferSpan value_span = view_bytes(integer(*values, "bufferView", values_path), values_path, nullptr);
    const std::int64_t value_offset = integer(*values, "byteOffset", values_path, 0);
    check_fits(value_span, value_offset, element_bytes, a.sparse_count, element_bytes, values_path);
    a.sparse_values = value_span.data + value_offset;
    accessor_values::visit_component(a.sparse_index_type, [&](auto zero) {
      using Index = decltype(zero);
      for (std::int64_t i = 0; i < a.sparse_count; ++i) {
        const auto target = accessor_values::load<Index>(a.sparse_indices + i * index_size);
        if (static_cast<std::int64_t>(target) >= a.count)
          fail(indices_path + ": index " + std::to_string(target) + " is past the accessor's count " +
                   std::to_string(a.count),
               indices);
      }
    });
  }
  (void)where;
  slot = a;
  return *slot;
}

}  // namespace meshioplusplus::gltf::detail
