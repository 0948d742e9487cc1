// PCD writer: VERSION 0.7, DATA ascii, binary or binary_compressed (option "data"; without
// it "binary" picks binary or ascii, as meshio++ 17.21's keywords).
//
// FIELDS: x y z in the points' dtype (F 4 for float32, F 8 otherwise; a 2-D mesh gets z = 0),
// then every point data array under its name and dtype (TYPE I/U/F, SIZE of the dtype),
// COUNT 1 for (n,) arrays and COUNT k for (n, k). WIDTH/HEIGHT from field data
// "pcd:width"/"pcd:height" when their product is the point count (an organised cloud read
// back as it was), else n × 1; VIEWPOINT from "pcd:viewpoint" (7 values) or the identity.
// Cells, cell data and regions have no place in a point cloud and are not written.
//
// ascii prints floats in their shortest exact form and an F 4 "rgb"/"rgba" as its uint32
// bits (as PCL's ascii writer does), so all three encodings read back bit for bit; ascii
// lines and the compressed planes are made on all cores, the file the same bytes at any
// thread count.
// binary_compressed lays the fields out one after the other and LZF-compresses them
// (io/codecs/lzf), as PCL does; PCL limits the data to 32-bit sizes, so more is a WriteError.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "formats/pcd/pcd.hpp"
#include "formats/pcd/pcd_internal.hpp"
#include "io/codecs/lzf.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/parallel_rows.hpp"
#include "io/source/byte_order.hpp"
#include "io/source/parallel.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::pcd {
namespace {

using detail::kFormat;

[[noreturn]] void fail(const std::string& path, const std::string& message) {
  throw WriteError(path, std::string(kFormat), message);
}

// One FIELDS entry: `width` values a point of `dtype`, taken from `array` (row-major (n, width))
// or, for a coordinate, column `axis` of the points (nullptr array: z of a 2-D mesh, zero).
struct Column {
  std::string name;
  DType dtype;
  std::int64_t width = 1;
  const NDArray* array = nullptr;
  int axis = -1;
  std::size_t bytes() const noexcept { return dtype_size(dtype) * static_cast<std::size_t>(width); }
};

// `size` bytes from `from` to `to`, with a fixed-size copy for the usual sizes.
inline void copy_value(std::uint8_t* to, const std::uint8_t* from, std::size_t size) noexcept {
  switch (size) {
    case 1: *to = *from; break;
    case 2: std::memcpy(to, from, 2); break;
    case 4: std::memcpy(to, from, 4); break;
    case 8: std::memcpy(to, from, 8); break;
    default: std::memcpy(to, from, size);
  }
}

// Bytes of point `i` of `column` into `out` (column.bytes() of them, little-endian).
inline void gather(const Column& column, const NDArray& points, std::int64_t i, std::uint8_t* out) noexcept {
  const std::size_t size = column.bytes();
  if (column.axis >= 0) {
    const std::int64_t dim = points.row_width();
    if (column.axis >= dim) {
      std::memset(out, 0, size);
      return;
    }
    copy_value(out, static_cast<const std::uint8_t*>(points.data()) + static_cast<std::size_t>(i * dim + column.axis) * size, size);
  } else {
    copy_value(out, static_cast<const std::uint8_t*>(column.array->data()) + static_cast<std::size_t>(i) * size, size);
  }
}

// One byte run of a binary record and where its bytes come from: consecutive columns read
// from consecutive bytes of one array (x, y, z of (n, 3) points) are one run, copied with one
// fixed-size move a point; `base` nullptr is z of a 2-D mesh (zeros).
struct RecordRun {
  const std::uint8_t* base = nullptr;
  std::size_t stride = 0;  // bytes from one point to the next in the source
  std::size_t size = 0;
  std::size_t to = 0;  // offset in the record
};

std::vector<RecordRun> record_runs(const std::vector<Column>& columns, const NDArray& points) {
  std::vector<RecordRun> runs;
  const std::int64_t dim = points.row_width();
  std::size_t offset = 0;
  for (const Column& column : columns) {
    const std::size_t size = column.bytes();
    RecordRun run{nullptr, size, size, offset};
    if (column.axis >= 0) {
      run.stride = static_cast<std::size_t>(dim) * size;
      if (column.axis < dim) run.base = static_cast<const std::uint8_t*>(points.data()) + static_cast<std::size_t>(column.axis) * size;
    } else {
      run.base = static_cast<const std::uint8_t*>(column.array->data());
    }
    offset += size;
    RecordRun* const previous = runs.empty() ? nullptr : &runs.back();
    if (previous != nullptr && run.base != nullptr && previous->base != nullptr && previous->stride == run.stride &&
        previous->base + previous->size == run.base && previous->to + previous->size == run.to)
      previous->size += size;
    else
      runs.push_back(run);
  }
  return runs;
}

// Records [first, last) gathered into `out`, record by record (each source read in order).
void gather_records(const std::vector<RecordRun>& runs, std::size_t record, std::size_t first, std::size_t last, std::uint8_t* out) noexcept {
  for (std::size_t i = first; i < last; ++i) {
    std::uint8_t* const at = out + (i - first) * record;
    for (const RecordRun& run : runs) {
      std::uint8_t* const to = at + run.to;
      if (run.base == nullptr) {
        std::memset(to, 0, run.size);
        continue;
      }
      const std::uint8_t* const from = run.base + i * run.stride;
      detail::copy_field(to, from, run.size);
    }
  }
}

std::vector<Column> columns_of(const std::string& path, const Mesh& mesh, const NDArray& points) {
  std::vector<Column> columns;
  for (int axis = 0; axis < 3; ++axis) columns.push_back(Column{std::string(1, "xyz"[axis]), points.dtype(), 1, nullptr, axis});
  for (const auto& [name, array] : mesh.point_data) {
    if (name.empty() || std::any_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) <= ' '; }))
      fail(path, "point data name '" + name + "' cannot be a PCD field name (empty or holds whitespace)");
    if (name == "x" || name == "y" || name == "z") fail(path, "point data '" + name + "' would clash with the points' field of that name");
    if (array.ndim() == 0 || array.rows() != mesh.num_points()) fail(path, "point data '" + name + "' does not have one row per point");
    columns.push_back(Column{name, array.dtype(), std::max<std::int64_t>(array.row_width(), 1), &array});
  }
  return columns;
}

void write_header(io::OutputBuffer& out, const Mesh& mesh, const std::vector<Column>& columns, std::int64_t n, std::string_view data) {
  out.text("# .PCD v0.7 - Point Cloud Data file format\nVERSION 0.7\nFIELDS");
  for (const Column& column : columns) out.put(' '), out.text(column.name);
  out.text("\nSIZE");
  for (const Column& column : columns) out.put(' '), out.number(static_cast<int>(dtype_size(column.dtype)));
  out.text("\nTYPE");
  for (const Column& column : columns) out.put(' '), out.put(detail::type_letter_of(column.dtype));
  out.text("\nCOUNT");
  for (const Column& column : columns) out.put(' '), out.number(column.width);
  std::int64_t width = n, height = 1;
  const NDArray* stored_width = mesh.field_data.find("pcd:width");
  const NDArray* stored_height = mesh.field_data.find("pcd:height");
  if (stored_width && stored_height && stored_width->size() == 1 && stored_height->size() == 1) {
    const auto w = static_cast<std::int64_t>(stored_width->astype(DType::int64).data_as<std::int64_t>()[0]);
    const auto h = static_cast<std::int64_t>(stored_height->astype(DType::int64).data_as<std::int64_t>()[0]);
    if (w >= 0 && h > 0 && w * h == n) width = w, height = h;
  }
  out.text("\nWIDTH "), out.number(width);
  out.text("\nHEIGHT "), out.number(height);
  out.text("\nVIEWPOINT");
  const NDArray* viewpoint = mesh.field_data.find("pcd:viewpoint");
  if (viewpoint && viewpoint->size() == 7) {
    const NDArray values = viewpoint->astype(DType::float64);
    for (double v : values.values<double>()) out.put(' '), out.number(v);
  } else {
    out.text(" 0 0 0 1 0 0 0");
  }
  out.text("\nPOINTS "), out.number(n);
  out.text("\nDATA "), out.text(data), out.put('\n');
}

// One value as text at p (io::put_number: integers in decimal, floats shortest exact); an
// F 4 "rgb"/"rgba" as its uint32 bits, as PCL's ascii writer prints it.
inline char* put_ascii_value(char* p, DType dtype, const std::uint8_t* bytes, bool packed_colour) noexcept {
  const auto put = [&](auto zero) {
    decltype(zero) value;
    std::memcpy(&value, bytes, sizeof value);
    if constexpr (sizeof(value) == 1) return io::put_number(p, static_cast<int>(value));
    else return io::put_number(p, value);
  };
  return packed_colour ? put(std::uint32_t{}) : visit_dtype(dtype, put);
}

// A column's values for point i: where the first is and how far apart (points' axis or array).
struct AsciiColumn {
  const std::uint8_t* base = nullptr;  // nullptr: z of a 2-D mesh, printed as 0
  std::size_t stride = 0;              // bytes from one point to the next
  std::size_t size = 0;                // bytes of one value
  std::int64_t width = 1;
  DType dtype = DType::float32;
  bool packed_colour = false;
};

// One point a line, values separated by one blank; formatted on all cores (io::write_rows_in_parallel),
// the file byte for byte what one thread writes.
void write_ascii(io::OutputBuffer& out, io::AtomicFile& file, const std::vector<Column>& columns, const NDArray& points,
                 std::int64_t n) {
  std::vector<AsciiColumn> layout;
  std::size_t values = 0;
  const std::int64_t dim = points.row_width();
  for (const Column& column : columns) {
    AsciiColumn to{nullptr, column.bytes(), dtype_size(column.dtype), column.width, column.dtype,
                   detail::is_packed_colour(column.name, column.dtype)};
    if (column.axis >= 0) {
      to.stride = static_cast<std::size_t>(dim) * to.size;
      if (column.axis < dim) to.base = static_cast<const std::uint8_t*>(points.data()) + static_cast<std::size_t>(column.axis) * to.size;
    } else {
      to.base = static_cast<const std::uint8_t*>(column.array->data());
    }
    layout.push_back(to);
    values += static_cast<std::size_t>(column.width);
  }
  const char zero[8] = {};
  const std::size_t longest = values * (io::kMaxNumberChars + 1) + 1;
  // Wide descriptors (COUNT in the hundreds) go in fewer rows at a time: buffers stay small.
  const auto rows_at_once = static_cast<std::int64_t>(std::max<std::size_t>(1, (std::size_t{64} << 20) / longest));
  for (std::int64_t start = 0; start < n; start += rows_at_once)
  io::write_rows_in_parallel(out, file, std::min(rows_at_once, n - start), longest, [&](char* p, std::int64_t row) {
    const std::int64_t i = start + row;
    const char* const line = p;
    for (const AsciiColumn& column : layout) {
      const std::uint8_t* value = column.base == nullptr ? reinterpret_cast<const std::uint8_t*>(zero)
                                                         : column.base + static_cast<std::size_t>(i) * column.stride;
      for (std::int64_t k = 0; k < column.width; ++k) {
        if (p != line) *p++ = ' ';
        p = put_ascii_value(p, column.dtype, value, column.packed_colour);
        if (column.base != nullptr) value += column.size;
      }
    }
    *p++ = '\n';
    return p;
  });
  out.flush();  // the header, when there is no point
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  std::string_view data = options.get("data", "");
  if (data.empty()) data = options.get_bool("binary", true) ? "binary" : "ascii";
  if (data != "ascii" && data != "binary" && data != "binary_compressed")
    fail(path, "data must be ascii, binary or binary_compressed, not '" + std::string(data) + "'");
  const NDArray points = dtype_is_float(mesh.points.dtype()) ? mesh.points : mesh.points.astype(DType::float64);
  if (points.ndim() != 2 || points.row_width() < 1 || points.row_width() > 3) fail(path, "points must be (n, 1..3)");
  const std::int64_t n = mesh.num_points();
  const std::vector<Column> columns = columns_of(path, mesh, points);
  std::size_t record = 0;
  for (const Column& column : columns) record += column.bytes();

  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  write_header(out, mesh, columns, n, data);
  if (data == "ascii") {
    write_ascii(out, file, columns, points, n);
    file.commit();
    return;
  }
  if (!io::kHostIsLittleEndian) fail(path, "binary PCD output needs a little-endian host");
  const std::uint64_t total = static_cast<std::uint64_t>(n) * record;
  if (data == "binary") {
    // Records are gathered a block at a time into one reused buffer: no file-sized copy. One
    // thread: the kernel's copy into the page cache dominates, and a second thread per block
    // cost more CPU than it saved time (16-18 vs 15 ms for 24 MB).
    out.flush();
    const std::vector<RecordRun> runs = record_runs(columns, points);
    constexpr std::int64_t kBlockPoints = 1 << 16;
    std::vector<std::uint8_t> records(static_cast<std::size_t>(std::min(n, kBlockPoints)) * record);
    for (std::int64_t first = 0; first < n; first += kBlockPoints) {
      const std::int64_t last = std::min(n, first + kBlockPoints);
      gather_records(runs, record, static_cast<std::size_t>(first), static_cast<std::size_t>(last), records.data());
      file.write(records.data(), static_cast<std::size_t>(last - first) * record);
    }
    file.commit();
    return;
  }
  if (total > UINT32_MAX / 3 * 2) fail(path, "binary_compressed holds at most 2.8 GB of point data (32-bit sizes); write binary instead");
  // The planes (all x, then all y, …) in scratch memory (not zeroed), gathered on all cores.
  NDArray planes_array = NDArray::allocate_scratch(DType::uint8, {static_cast<std::int64_t>(total)});
  std::uint8_t* const planes = planes_array.data_as<std::uint8_t>();
  std::vector<std::size_t> plane_offsets;
  std::size_t plane = 0;
  for (const Column& column : columns) {
    plane_offsets.push_back(plane);
    plane += static_cast<std::size_t>(n) * column.bytes();
  }
  io::parallel_ranges(static_cast<std::size_t>(n), std::size_t{1} << 16, [&](std::size_t first, std::size_t last) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const Column& column = columns[c];
      std::uint8_t* const to = planes + plane_offsets[c];
      const std::size_t size = column.bytes();
      if (column.array != nullptr) {
        std::memcpy(to + first * size, static_cast<const std::uint8_t*>(column.array->data()) + first * size, (last - first) * size);
      } else {
        for (std::size_t i = first; i < last; ++i) gather(column, points, static_cast<std::int64_t>(i), to + i * size);
      }
    }
  });
  const std::vector<std::vector<std::uint8_t>> pieces = io::lzf_compress_pieces(planes, total);
  std::uint64_t compressed = 0;
  for (const auto& piece : pieces) compressed += piece.size();
  const std::uint32_t sizes[2] = {static_cast<std::uint32_t>(compressed), static_cast<std::uint32_t>(total)};
  out.bytes(sizes, sizeof sizes);
  out.flush();
  for (const auto& piece : pieces) file.write(piece.data(), piece.size());
  file.commit();
}

}  // namespace meshioplusplus::pcd
