// glTF's container and data layer, private to formats/gltf: the JSON (from a .gltf file or a
// GLB's JSON chunk), its buffers (GLB BIN chunk, files beside the .gltf, base64 data URIs) and
// accessors (every component type, normalised integers, byteStride, sparse substitution),
// each checked against its buffer view and buffer before a byte is read. Errors name the
// JSON path of the object at fault ("bufferViews[3]", "accessors[2].sparse.indices").
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/source/byte_order.hpp"
#include "io/source/mapped_file.hpp"
#include "io/text/json.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::gltf::detail {

inline constexpr std::string_view kFormat = "gltf";

static_assert(io::kHostIsLittleEndian, "the glTF reader copies little-endian values as they are");

enum ComponentType : int {
  kByte = 5120,
  kUnsignedByte = 5121,
  kShort = 5122,
  kUnsignedShort = 5123,
  kUnsignedInt = 5125,
  kFloat = 5126,
};

// Bytes of one component, 0 for an unknown type.
constexpr int component_size(int type) noexcept {
  switch (type) {
    case kByte: case kUnsignedByte: return 1;
    case kShort: case kUnsignedShort: return 2;
    case kUnsignedInt: case kFloat: return 4;
    default: return 0;
  }
}

struct BufferSpan {
  const std::uint8_t* data = nullptr;
  std::uint64_t size = 0;
};

// An accessor, checked: every element lies inside its buffer view and buffer.
struct Accessor {
  std::int64_t index = 0;
  std::int64_t count = 0;
  int component_type = kFloat;
  int components = 1;  // 1 SCALAR, 2..4 VECn, 4/9/16 MATn
  int matrix_rows = 0;  // MATn: n (columns are padded to 4 bytes), else 0
  bool normalized = false;
  const std::uint8_t* base = nullptr;  // nullptr: no bufferView, all zeros (before sparse)
  std::int64_t stride = 0;
  // Sparse substitution: `sparse_count` (index, value) pairs.
  std::int64_t sparse_count = 0;
  int sparse_index_type = kUnsignedInt;
  const std::uint8_t* sparse_indices = nullptr;
  const std::uint8_t* sparse_values = nullptr;  // tightly packed elements
};

class Document {
 public:
  explicit Document(const std::string& path);
  Document(const Document&) = delete;
  Document& operator=(const Document&) = delete;

  const io::JsonValue& root() const noexcept { return root_; }
  const std::string& path() const noexcept { return path_; }

  [[noreturn]] void fail(const std::string& message, const io::JsonValue* at = nullptr) const;

  // Member access that fails with the JSON path on a wrong type or a missing member.
  const io::JsonValue& array_item(std::string_view array_name, std::int64_t index) const;
  std::int64_t integer(const io::JsonValue& object, std::string_view key, const std::string& where,
                       std::optional<std::int64_t> fallback = std::nullopt) const;

  // The checked accessor `index` (cached); `where` names the referring JSON path.
  const Accessor& accessor(std::int64_t index, const std::string& where);

  // Reads element `first .. first + count` of `accessor` as T into out[(i * out_width) + c],
  // c < components (normalised integers as the spec's formulas, other integers as they are);
  // sparse values are applied. T is float, double or int64_t.
  template <class T> void read(const Accessor& accessor, T* out, std::int64_t out_width) const;

 private:
  BufferSpan buffer(std::int64_t index, const std::string& where);
  void load_glb(std::string_view bytes);

  std::string path_;
  std::unique_ptr<io::MappedFile> file_;
  io::JsonValue root_;
  BufferSpan glb_bin_;
  bool is_glb_ = false;
  std::vector<std::optional<BufferSpan>> buffers_;
  std::vector<std::unique_ptr<io::MappedFile>> external_files_;
  std::vector<std::vector<std::uint8_t>> decoded_uris_;
  std::vector<std::optional<Accessor>> accessors_;
};

namespace accessor_values {

template <class Source> inline Source load(const std::uint8_t* bytes) noexcept {
  Source value;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

// The spec's normalised-integer formulas (3.11, "Animations"/"Accessor data types").
template <class Source> inline double normalized(Source value) noexcept {
  if constexpr (std::is_same_v<Source, std::int8_t>) return value < -127 ? -1.0 : value / 127.0;
  else if constexpr (std::is_same_v<Source, std::uint8_t>) return value / 255.0;
  else if constexpr (std::is_same_v<Source, std::int16_t>) return value < -32767 ? -1.0 : value / 32767.0;
  else if constexpr (std::is_same_v<Source, std::uint16_t>) return value / 65535.0;
  else if constexpr (std::is_same_v<Source, std::uint32_t>) return value / 4294967295.0;
  else return static_cast<double>(value);
}

// `value` as T: a float read into an integer array (indices or JOINTS a file stores as floats)
// converts only when it fits — NaN and out-of-range values become T's lowest, which the index
// checks refuse — since the plain conversion is undefined there.
template <class T, class Source> inline T converted(Source value) noexcept {
  if constexpr (std::is_floating_point_v<Source> && std::is_integral_v<T>) {
    const double v = static_cast<double>(value);
    // max() as a double rounds up to a power of two: `<` keeps every accepted value in range.
    if (!(v >= static_cast<double>(std::numeric_limits<T>::lowest()) && v < static_cast<double>(std::numeric_limits<T>::max())))
      return std::numeric_limits<T>::lowest();
  }
  return static_cast<T>(value);
}

template <class Source, class T>
void copy_elements(const Accessor& accessor, const std::uint8_t* base, std::int64_t stride, std::int64_t count,
                   T* out, std::int64_t out_width, const std::int64_t* targets) {
  const int components = accessor.components;
  const std::int64_t column_bytes =
      accessor.matrix_rows ? ((accessor.matrix_rows * static_cast<std::int64_t>(sizeof(Source)) + 3) / 4 * 4) : 0;
  const bool normalize = accessor.normalized && !std::is_floating_point_v<Source> && std::is_floating_point_v<T>;
  for (std::int64_t i = 0; i < count; ++i) {
    const std::uint8_t* element = base + i * stride;
    T* row = out + (targets ? targets[i] : i) * out_width;
    for (int c = 0; c < components; ++c) {
      const std::int64_t at = accessor.matrix_rows
                                  ? (c / accessor.matrix_rows) * column_bytes + (c % accessor.matrix_rows) * sizeof(Source)
                                  : c * static_cast<std::int64_t>(sizeof(Source));
      const Source value = load<Source>(element + at);
      if (normalize) row[c] = converted<T>(normalized(value));
      else row[c] = converted<T>(value);
    }
  }
}

template <class Fn> void visit_component(int type, Fn&& fn) {
  switch (type) {
    case kByte: fn(std::int8_t{}); break;
    case kUnsignedByte: fn(std::uint8_t{}); break;
    case kShort: fn(std::int16_t{}); break;
    case kUnsignedShort: fn(std::uint16_t{}); break;
    case kUnsignedInt: fn(std::uint32_t{}); break;
    default: fn(float{}); break;
  }
}

}  // namespace accessor_values

template <class T> void Document::read(const Accessor& accessor, T* out, std::int64_t out_width) const {
  using namespace accessor_values;
  // Every row of `out` holds out_width values: an accessor of more components (a VEC3 where an
  // index accessor must be SCALAR) would write past it (a fuzz finding).
  if (accessor.components > out_width)
    throw ReadError(path_, std::string(kFormat),
                    "an accessor of " + std::to_string(accessor.components) + " components where " +
                        std::to_string(out_width) + " are read (index accessors are SCALAR)");
  if (accessor.base) {
    visit_component(accessor.component_type, [&](auto zero) {
      using Source = decltype(zero);
      if constexpr (std::is_same_v<Source, float>) {
        // The common case, tightly packed float vectors: a plain converting copy.
        if (accessor.stride == accessor.components * 4 && out_width == accessor.components && !accessor.matrix_rows) {
          const std::int64_t n = accessor.count * accessor.components;
          const std::uint8_t* bytes = accessor.base;
          for (std::int64_t i = 0; i < n; ++i) out[i] = converted<T>(load<float>(bytes + 4 * i));
          return;
        }
      }
      copy_elements<Source>(accessor, accessor.base, accessor.stride, accessor.count, out, out_width, nullptr);
    });
  } else {
    for (std::int64_t i = 0; i < accessor.count; ++i)
      for (int c = 0; c < accessor.components; ++c) out[i * out_width + c] = T{};
  }
  if (accessor.sparse_count == 0) return;
  // Indices were checked against count when the accessor was made.
  std::vector<std::int64_t> targets(static_cast<std::size_t>(accessor.sparse_count));
  visit_component(accessor.sparse_index_type, [&](auto zero) {
    using Index = decltype(zero);
    for (std::int64_t i = 0; i < accessor.sparse_count; ++i)
      targets[static_cast<std::size_t>(i)] =
          static_cast<std::int64_t>(load<Index>(accessor.sparse_indices + i * static_cast<std::int64_t>(sizeof(Index))));
  });
  visit_component(accessor.component_type, [&](auto zero) {
    using Source = decltype(zero);
    const std::int64_t element = accessor.matrix_rows
                                     ? accessor.components / accessor.matrix_rows *
                                           ((accessor.matrix_rows * static_cast<std::int64_t>(sizeof(Source)) + 3) / 4 * 4)
                                     : accessor.components * static_cast<std::int64_t>(sizeof(Source));
    copy_elements<Source>(accessor, accessor.sparse_values, element, accessor.sparse_count, out, out_width,
                          targets.data());
  });
}

}  // namespace meshioplusplus::gltf::detail
