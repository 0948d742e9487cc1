// Medit binary (.meshb) reader, after libMeshb's layout:
//   header   code word 1 (fixes the byte order), version (1-4), then the Dimension keyword;
//   section  keyword code (4 bytes), position of the next keyword (4 bytes before version 3,
//            8 from version 3), record count (4 bytes, 8 in version 4) for sections that
//            have one, then the records.
// Reals are float32 in version 1 and float64 after; integers are 32-bit up to version 3
// and 64-bit in version 4. Keyword codes and the Dimension value are always 4 bytes.
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "formats/medit/medit_reader.hpp"
#include "formats/medit/medit_sections.hpp"
#include "io/source/read_limits.hpp"
#include "io/source/byte_order.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::medit::detail {
namespace {

class BinaryReader {
 public:
  BinaryReader(std::string_view bytes, const std::string& path) : bytes_(bytes), path_(path) {}

  Mesh read() {
    read_header();
    while (pos_ < bytes_.size()) {
      const std::size_t start = pos_;
      const int code = read_word("a keyword code");
      const std::int64_t next = read_position();
      if (code == kCodeEnd) break;
      if (code == kCodeVertices) {
        read_vertices(start);
      } else if (const ElementSection* section = element_section_by_code(code)) {
        read_elements(*section, start);
      } else if (next == 0) {
        break;  // the last section, and one we do not use
      } else {
        jump_to(next, start, code);
      }
    }
    if (parsed_.points.empty_handle()) fail(pos_, "the file has no Vertices section");
    return assemble(std::move(parsed_), path_);
  }

 private:
  [[noreturn]] void fail(std::size_t offset, const std::string& message) const {
    throw ReadError(path_, "medit", message, offset);
  }

  void require(std::size_t size, const char* what) const {
    if (size > bytes_.size() - pos_) fail(pos_, std::string("file ends inside ") + what);
  }

  template <class T> T read_value(const char* what) {
    require(sizeof(T), what);
    T value;
    io::copy_from_file_order(&value, bytes_.data() + pos_, sizeof(T), 1, file_is_little_endian_);
    pos_ += sizeof(T);
    return value;
  }

  int read_word(const char* what) { return read_value<std::int32_t>(what); }

  std::int64_t read_position() {
    return version_ >= 3 ? read_value<std::int64_t>("a keyword position") : read_value<std::int32_t>("a keyword position");
  }

  void read_header() {
    require(4, "the code word");
    // The code word is 1 in the file's own byte order.
    file_is_little_endian_ = static_cast<unsigned char>(bytes_[0]) == 1;
    pos_ = 4;
    version_ = read_word("the version");
    if (version_ < 1 || version_ > 4) fail(4, "version " + std::to_string(version_) + " is not 1, 2, 3 or 4");
    const std::size_t keyword_at = pos_;
    if (read_word("the Dimension keyword") != kCodeDimension) fail(keyword_at, "the Dimension keyword must come first");
    read_position();
    const std::size_t dimension_at = pos_;
    dimension_ = read_word("the dimension");
    if (dimension_ != 2 && dimension_ != 3)
      fail(dimension_at, "dimension " + std::to_string(dimension_) + " is not 2 or 3");
  }

  std::size_t real_size() const noexcept { return version_ == 1 ? 4 : 8; }
  std::size_t integer_size() const noexcept { return version_ == 4 ? 8 : 4; }

  // A section's record count, checked against the bytes left before anything is allocated.
  std::int64_t read_count(std::size_t record_size, std::string_view keyword) {
    const std::size_t at = pos_;
    const std::int64_t count =
        version_ == 4 ? read_value<std::int64_t>("a record count") : read_value<std::int32_t>("a record count");
    if (count < 0) fail(at, std::string(keyword) + ": negative count " + std::to_string(count));
    if (static_cast<std::uint64_t>(count) > (bytes_.size() - pos_) / record_size)
      fail(at, std::string(keyword) + ": " + std::to_string(count) + " records do not fit in the rest of the file");
    return count;
  }

  std::int64_t read_integer() {
    return version_ == 4 ? read_value<std::int64_t>("a record") : read_value<std::int32_t>("a record");
  }

  void read_vertices(std::size_t start) {
    if (!parsed_.points.empty_handle()) fail(start, "a second Vertices section");
    const std::int64_t count = read_count(dimension_ * real_size() + integer_size(), "Vertices");
    parsed_.points = NDArray::allocate(version_ == 1 ? DType::float32 : DType::float64, {count, dimension_});
    parsed_.point_refs = allocate_refs(count);
    visit_dtype(parsed_.points.dtype(), [&](auto real) {
      using Real = decltype(real);
      if constexpr (std::is_floating_point_v<Real>) {
        Real* coordinates = parsed_.points.data_as<Real>();
        for (std::int64_t row = 0; row < count; ++row) {
          for (int axis = 0; axis < dimension_; ++axis) *coordinates++ = read_value<Real>("a vertex");
          store_ref(parsed_.point_refs, row);
        }
      }
    });
  }

  void read_elements(const ElementSection& section, std::size_t start) {
    const std::int64_t count = read_count((section.num_nodes + 1) * integer_size(), section.keyword);
    ParsedBlock block;
    block.section = &section;
    block.offset = start;
    block.connectivity = NDArray::allocate(DType::int64, {count, section.num_nodes});
    block.refs = allocate_refs(count);
    std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
    for (std::int64_t row = 0; row < count; ++row) {
      for (int k = 0; k < section.num_nodes; ++k) *nodes++ = io::zero_based(read_integer());
      store_ref(block.refs, row);
    }
    parsed_.blocks.push_back(std::move(block));
  }

  NDArray allocate_refs(std::int64_t count) const {
    return NDArray::allocate(version_ == 4 ? DType::int64 : DType::int32, {count});
  }

  void store_ref(NDArray& refs, std::int64_t row) {
    if (version_ == 4) {
      refs.data_as<std::int64_t>()[row] = read_value<std::int64_t>("a reference");
    } else {
      refs.data_as<std::int32_t>()[row] = read_value<std::int32_t>("a reference");
    }
  }

  // Unused sections are stepped over through their next-keyword position, which must move
  // forward inside the file (so a corrupt one cannot loop or leave the file).
  void jump_to(std::int64_t next, std::size_t section_start, int code) {
    if (next <= static_cast<std::int64_t>(pos_) || static_cast<std::uint64_t>(next) > bytes_.size())
      fail(section_start, "keyword " + std::to_string(code) + " points to the next keyword at " +
                              std::to_string(next) + ", outside the rest of the file");
    pos_ = static_cast<std::size_t>(next);
  }

  std::string_view bytes_;
  const std::string& path_;
  std::size_t pos_ = 0;
  bool file_is_little_endian_ = true;
  int version_ = 0;
  int dimension_ = 0;
  ParsedMesh parsed_;
};

}  // namespace

Mesh read_binary(std::string_view bytes, const std::string& path) { return BinaryReader(bytes, path).read(); }

}  // namespace meshioplusplus::medit::detail
