// Medit writer: .meshb binary (libMeshb layout, see medit_binary_reader.cpp) or .mesh ASCII,
// through a temporary file renamed over the target (io::AtomicFile).
#include <cctype>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "formats/medit/medit.hpp"
#include "formats/medit/medit_sections.hpp"
#include "io/output/atomic_file.hpp"
#include "io/source/byte_order.hpp"

namespace meshioplusplus::medit {
namespace {

using detail::ElementSection;

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kInt32Min = std::numeric_limits<std::int32_t>::min();
// Versions 1 and 2 store keyword positions in 32 bits.
constexpr std::uint64_t kSmallFileLimit = std::uint64_t{1} << 31;

bool is_integer(DType dtype) noexcept { return dtype_is_signed_int(dtype) || dtype_is_unsigned_int(dtype); }

// Where one ref per point (or per cell of a block) comes from; none means 0.
class RefColumn {
 public:
  RefColumn() = default;
  explicit RefColumn(const NDArray* array) : array_(array) {}

  // Usable as refs: integers, one value per row.
  static bool fits(const NDArray& array, std::int64_t rows) {
    return is_integer(array.dtype()) && array.rows() == rows && array.size() == static_cast<std::size_t>(rows);
  }

  std::int64_t at(std::int64_t row) const {
    if (array_ == nullptr) return 0;
    return visit_dtype(array_->dtype(), [&](auto tag) -> std::int64_t {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T>) {
        return static_cast<std::int64_t>(array_->data_as<T>()[row]);
      } else {
        return 0;
      }
    });
  }

  bool fits_int32() const {
    if (array_ == nullptr) return true;
    for (std::int64_t row = 0; row < array_->rows(); ++row)
      if (const std::int64_t value = at(row); value < kInt32Min || value > kInt32Max) return false;
    return true;
  }

 private:
  const NDArray* array_ = nullptr;
};

// "medit:ref" when it fits, else the first integer array with one value per point (meshio's
// pick), else none.
RefColumn point_refs(const Mesh& mesh) {
  if (const NDArray* refs = mesh.point_data.find("medit:ref"); refs && RefColumn::fits(*refs, mesh.num_points()))
    return RefColumn(refs);
  for (const auto& [name, array] : mesh.point_data)
    if (RefColumn::fits(array, mesh.num_points())) return RefColumn(&array);
  return {};
}

const std::vector<NDArray>* cell_ref_arrays(const Mesh& mesh) {
  const auto usable = [&](const std::vector<NDArray>& arrays) {
    if (arrays.size() != mesh.cells.size()) return false;
    for (std::size_t b = 0; b < arrays.size(); ++b)
      if (!RefColumn::fits(arrays[b], mesh.cells[b].num_cells())) return false;
    return true;
  };
  if (const auto* refs = mesh.cell_data.find("medit:ref"); refs && usable(*refs)) return refs;
  for (const auto& [name, arrays] : mesh.cell_data)
    if (usable(arrays)) return &arrays;
  return nullptr;
}

struct BlockToWrite {
  const ElementSection* section;
  const CellBlock* cells;
  RefColumn refs;
};

struct Layout {
  bool binary = false;
  bool big_endian = false;
  int version = 2;
  int dimension = 3;
  RefColumn point_refs;
  std::vector<BlockToWrite> blocks;

  std::size_t real_size() const noexcept { return version == 1 ? 4 : 8; }
  std::size_t integer_size() const noexcept { return version == 4 ? 8 : 4; }
  std::size_t position_size() const noexcept { return version >= 3 ? 8 : 4; }
};

std::vector<BlockToWrite> blocks_to_write(const Mesh& mesh) {
  const std::vector<NDArray>* refs = cell_ref_arrays(mesh);
  std::vector<BlockToWrite> blocks;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    const ElementSection* section = detail::element_section_for_cell_type(block.type);
    if (section == nullptr)
      throw std::invalid_argument("Medit has no section for cells of type '" + block.type + "'");
    blocks.push_back({section, &block, refs ? RefColumn(&(*refs)[b]) : RefColumn()});
  }
  return blocks;
}

// Whether some value a version 1-3 file stores in 32 bits would not fit there.
bool needs_64bit_integers(const Mesh& mesh, const Layout& layout) {
  if (mesh.num_points() > kInt32Max || !layout.point_refs.fits_int32()) return true;
  for (const BlockToWrite& block : layout.blocks)
    if (!block.refs.fits_int32()) return true;
  return false;  // node numbers are below the point count, checked above
}

std::uint64_t binary_size(const Mesh& mesh, const Layout& layout) {
  const std::uint64_t header = 4 * 4 + layout.position_size();
  const std::uint64_t section_header = 4 + layout.position_size() + layout.integer_size();
  std::uint64_t size = header + section_header +
                       mesh.num_points() * (layout.dimension * layout.real_size() + layout.integer_size());
  for (const BlockToWrite& block : layout.blocks)
    size += section_header + block.cells->num_cells() * (block.section->num_nodes + 1) * layout.integer_size();
  return size + 4 + layout.position_size();  // End
}

int chosen_version(const Mesh& mesh, Layout layout) {
  if (needs_64bit_integers(mesh, layout)) return 4;
  const auto fits_small_file = [&](int version) {
    layout.version = version;
    return !layout.binary || binary_size(mesh, layout) < kSmallFileLimit;
  };
  if (mesh.points.dtype() == DType::float32 && fits_small_file(1)) return 1;
  return fits_small_file(2) ? 2 : 3;
}

void check_forced_version(const Mesh& mesh, const Layout& layout) {
  if (layout.version < 1 || layout.version > 4) throw std::invalid_argument("version must be 1, 2, 3 or 4");
  if (layout.version < 4 && needs_64bit_integers(mesh, layout))
    throw std::invalid_argument("version " + std::to_string(layout.version) +
                                " stores 32-bit integers; this mesh needs version 4");
  if (layout.binary && layout.version < 3 && binary_size(mesh, layout) >= kSmallFileLimit)
    throw std::invalid_argument("version " + std::to_string(layout.version) +
                                " cannot address a file of 2 GiB or more; use version 3 or 4");
}

bool ends_with_ignoring_case(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && detail::equals_ignoring_case(text.substr(text.size() - suffix.size()), suffix);
}

Layout plan(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  Layout layout;
  layout.binary = ends_with_ignoring_case(path, ".meshb");
  layout.big_endian = options.get_bool("big_endian", false);
  layout.dimension = static_cast<int>(mesh.points.dim(1));
  // 1-D points go to ASCII only, as meshio writes them ("Dimension 1", which meshio's and our
  // ASCII readers read back); libMeshb and meshio's binary reader refuse a binary 1-D file.
  if (layout.dimension < (layout.binary ? 2 : 1) || layout.dimension > 3)
    throw std::invalid_argument(std::string(layout.binary ? "binary Medit stores 2-D or 3-D points"
                                                          : "Medit stores 1-D to 3-D points") +
                                ", not " + std::to_string(layout.dimension) + "-D");
  layout.point_refs = point_refs(mesh);
  layout.blocks = blocks_to_write(mesh);
  const std::string_view version = options.get("version", "");
  if (version.empty()) {
    layout.version = chosen_version(mesh, layout);
  } else {
    layout.version = version.size() == 1 ? version[0] - '0' : 0;
    check_forced_version(mesh, layout);
  }
  return layout;
}

// Calls fn(x) for every coordinate of `points` as a double (float32 widened exactly).
template <class Fn> void for_each_coordinate(const NDArray& points, Fn&& fn) {
  visit_dtype(points.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>)
      for (const T value : points.values<T>()) fn(static_cast<double>(value));
  });
}

class AsciiWriter {
 public:
  AsciiWriter(io::OutputBuffer& out, const Layout& layout) : out_(out), layout_(layout) {}

  void write(const Mesh& mesh) {
    out_.text("MeshVersionFormatted ");
    out_.number(layout_.version);
    out_.text("\n\nDimension ");
    out_.number(layout_.dimension);
    out_.text("\n\nVertices\n");
    out_.number(mesh.num_points());
    out_.put('\n');
    std::int64_t index = 0;
    for_each_coordinate(mesh.points, [&](double value) {
      write_real(value);
      if (++index % layout_.dimension != 0) return out_.put(' ');
      out_.put(' ');
      out_.number(layout_.point_refs.at(index / layout_.dimension - 1));
      out_.put('\n');
    });
    for (const BlockToWrite& block : layout_.blocks) write_block(block);
    out_.text("\nEnd\n");
  }

 private:
  // Version 1 files hold float32 values: written as such, they read back to the same float.
  void write_real(double value) {
    if (layout_.version == 1) {
      out_.number(static_cast<float>(value));
    } else {
      out_.number(value);
    }
  }

  void write_block(const BlockToWrite& block) {
    out_.put('\n');
    out_.text(block.section->keyword);
    out_.put('\n');
    const std::int64_t count = block.cells->num_cells();
    out_.number(count);
    out_.put('\n');
    const std::int64_t* nodes = block.cells->connectivity.data_as<std::int64_t>();
    for (std::int64_t row = 0; row < count; ++row) {
      for (int k = 0; k < block.section->num_nodes; ++k) {
        out_.number(*nodes++ + 1);
        out_.put(' ');
      }
      out_.number(block.refs.at(row));
      out_.put('\n');
    }
  }

  io::OutputBuffer& out_;
  const Layout& layout_;
};

class BinaryWriter {
 public:
  BinaryWriter(io::OutputBuffer& out, const Layout& layout) : out_(out), layout_(layout) {}

  void write(const Mesh& mesh) {
    put<std::int32_t>(1);  // the code word, in the file's byte order
    put<std::int32_t>(layout_.version);
    put<std::int32_t>(detail::kCodeDimension);
    put_position(written_ + layout_.position_size() + 4);
    put<std::int32_t>(layout_.dimension);
    write_vertices(mesh);
    for (const BlockToWrite& block : layout_.blocks) write_block(block);
    put<std::int32_t>(detail::kCodeEnd);
    put_position(0);
  }

 private:
  template <class T> void put(T value) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    if (layout_.big_endian == io::kHostIsLittleEndian) io::swap_bytes_in_place(bytes, sizeof(T), 1);
    out_.bytes(bytes, sizeof(T));
    written_ += sizeof(T);
  }

  void put_position(std::uint64_t position) {
    if (layout_.position_size() == 8) {
      put(static_cast<std::int64_t>(position));
    } else {
      put(static_cast<std::int32_t>(position));
    }
  }

  void put_integer(std::int64_t value) {
    if (layout_.integer_size() == 8) {
      put(value);
    } else {
      put(static_cast<std::int32_t>(value));
    }
  }

  // Keyword, next-keyword position (just past this section) and record count.
  void put_section_header(int code, std::int64_t count, std::uint64_t record_size) {
    put<std::int32_t>(code);
    const std::uint64_t header_rest = layout_.position_size() + layout_.integer_size();
    put_position(written_ + header_rest + count * record_size);
    put_integer(count);
  }

  void write_vertices(const Mesh& mesh) {
    const std::int64_t count = mesh.num_points();
    put_section_header(detail::kCodeVertices, count, layout_.dimension * layout_.real_size() + layout_.integer_size());
    std::int64_t index = 0;
    for_each_coordinate(mesh.points, [&](double value) {
      if (layout_.version == 1) {
        put(static_cast<float>(value));
      } else {
        put(value);
      }
      if (++index % layout_.dimension == 0) put_integer(layout_.point_refs.at(index / layout_.dimension - 1));
    });
  }

  void write_block(const BlockToWrite& block) {
    const std::int64_t count = block.cells->num_cells();
    const int nodes_per_cell = block.section->num_nodes;
    put_section_header(block.section->code, count, (nodes_per_cell + 1) * layout_.integer_size());
    const std::int64_t* nodes = block.cells->connectivity.data_as<std::int64_t>();
    for (std::int64_t row = 0; row < count; ++row) {
      for (int k = 0; k < nodes_per_cell; ++k) put_integer(*nodes++ + 1);
      put_integer(block.refs.at(row));
    }
  }

  io::OutputBuffer& out_;
  const Layout& layout_;
  std::uint64_t written_ = 0;
};

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const Layout layout = plan(path, mesh, options);
  io::AtomicFile file(path, "medit");
  io::OutputBuffer out(file);
  out.set_float_format(io::parse_float_format(options.get("float_fmt", "")));  // meshio's float_fmt (ASCII), when given
  if (layout.binary) {
    BinaryWriter(out, layout).write(mesh);
  } else {
    AsciiWriter(out, layout).write(mesh);
  }
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::medit
