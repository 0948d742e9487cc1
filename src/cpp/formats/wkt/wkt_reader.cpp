// WKT reader: one surface geometry.
//
// Accepted: TIN, POLYHEDRALSURFACE, MULTIPOLYGON (a list of polygons), POLYGON and TRIANGLE
// (one polygon), each optionally tagged Z, M or ZM, or EMPTY; keywords in any case. A polygon
// is one closed ring "((x y z, x y z, x y z, x y z))"; polygons with holes are refused. Points
// have 2, 3 or 4 values, the same number throughout. Numbers may carry exponents (meshio's
// pattern reads none, and reads neither "TIN Z", nor 2-D points, nor anything but a TIN).
//
// What becomes what: points float64 (n, values per point) — meshio keeps the M value as a
// fourth column too. Corners are deduplicated exactly as meshio does: two corners are one
// point when every value compares equal (so 0 and -0 are one point, keeping the first
// spelling, and a NaN coordinate never matches), numbered in order of first appearance.
// Faces become triangle blocks (meshio: uint64 (n, 3); here int64), and quad/polygon blocks
// for larger faces of a POLYHEDRALSURFACE or MULTIPOLYGON. A ring whose last point differs from
// its first, or a TIN face that is not a triangle, is a ReadError.
//
// Arrays: the number of distinct points is only known at the end, so coordinates and corners
// are gathered in scratch vectors and copied once into arrays of final shape.
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "formats/wkt/wkt.hpp"
#include "io/cells/coordinate_welder.hpp"
#include "io/cells/face_blocks.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::wkt {
namespace {

constexpr std::string_view kFormat = "wkt";

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& path) : doc_(bytes), path_(path) {}

  Mesh read() {
    skip_space();
    const std::size_t start = pos_;
    const std::string tag = keyword();
    bool polygon_list = false, tin = false;
    if (tag == "TIN") polygon_list = tin = true;
    else if (tag == "POLYHEDRALSURFACE" || tag == "MULTIPOLYGON") polygon_list = true;
    else if (tag != "POLYGON" && tag != "TRIANGLE")
      fail_at(start, "expected TIN, POLYHEDRALSURFACE, MULTIPOLYGON, POLYGON or TRIANGLE, found '" + snippet(start) + "'");
    if (!empty_geometry()) {
      if (polygon_list) {
        expect('(');
        do {
          read_polygon(tin);
        } while (next_is(','));
        expect(')');
      } else {
        read_polygon(tag == "TRIANGLE");
      }
    }
    skip_space();
    if (pos_ < doc_.size() && doc_[pos_] == ';') ++pos_;
    skip_space();
    if (pos_ < doc_.size()) fail_at(pos_, "unexpected text after the geometry: '" + snippet(pos_) + "'");
    return assemble();
  }

 private:
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    throw ReadError(path_, std::string(kFormat), message, offset, io::line_of_offset(doc_, offset));
  }
  std::string snippet(std::size_t offset) const { return std::string(doc_.substr(offset, 24)); }
  void skip_space() {
    while (pos_ < doc_.size() && io::is_space(doc_[pos_])) ++pos_;
  }
  std::string keyword() {
    std::string out;
    while (pos_ < doc_.size() && std::isalpha(static_cast<unsigned char>(doc_[pos_])))
      out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(doc_[pos_++]))));
    return out;
  }
  // Reads an optional Z/M/ZM tag (the point width says it all) and an optional EMPTY.
  bool empty_geometry() {
    skip_space();
    std::size_t start = pos_;
    std::string word = keyword();
    if (word == "Z" || word == "M" || word == "ZM") {
      skip_space();
      start = pos_;
      word = keyword();
    }
    if (word == "EMPTY") return true;
    pos_ = start;
    return false;
  }
  void expect(char c) {
    skip_space();
    if (pos_ >= doc_.size()) fail_at(pos_, std::string("unexpected end of file: expected '") + c + "'");
    if (doc_[pos_] != c) fail_at(pos_, std::string("expected '") + c + "', found '" + snippet(pos_) + "'");
    ++pos_;
  }
  bool next_is(char c) {
    skip_space();
    if (pos_ < doc_.size() && doc_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  double number() {
    skip_space();
    if (pos_ >= doc_.size()) fail_at(pos_, "unexpected end of file while reading a coordinate");
    const char* const first = doc_.data() + pos_;
    const char* const last = doc_.data() + doc_.size();
    double value;
    const auto [stop, error] = std::from_chars(first + (*first == '+' ? 1 : 0), last, value, std::chars_format::general);
    if (error != std::errc{} || (stop < last && !io::is_space(*stop) && *stop != ',' && *stop != ')')) {
      const char* end = first;
      while (end < last && !io::is_space(*end) && *end != ',' && *end != ')' && end - first < 32) ++end;
      if (end == first) fail_at(pos_, "expected a coordinate, found '" + snippet(pos_) + "'");
      fail_at(pos_, "invalid number '" + std::string(first, end) + "'");
    }
    pos_ = static_cast<std::size_t>(stop - doc_.data());
    return value;
  }

  // One point: its index after deduplication.
  std::int64_t point() {
    const std::size_t start = pos_;
    double values[4];
    int count = 0;
    while (true) {
      skip_space();
      if (pos_ >= doc_.size() || doc_[pos_] == ',' || doc_[pos_] == ')') break;
      if (count == 4) fail_at(start, "a point has more than 4 coordinates");
      values[count++] = number();
    }
    if (pos_ >= doc_.size()) fail_at(pos_, "unexpected end of file inside a point list");
    if (count < 2) fail_at(start, "a point needs 2 to 4 coordinates, found " + std::to_string(count));
    if (dim_ == 0) {
      dim_ = count;
      welder_.emplace(static_cast<std::size_t>(dim_), doc_.size() / 256);
    }
    if (count != dim_)
      fail_at(start, "points have mixed dimensionality: " + std::to_string(count) + " coordinates here, " +
                         std::to_string(dim_) + " before");
    const auto next = static_cast<std::int64_t>(coords_.size() / static_cast<std::size_t>(dim_));
    const double* const coords = coords_.data();  // stays valid: coords_ grows only after the lookup
    const auto coordinates_of = [coords, this](std::int64_t id) { return coords + id * dim_; };
    const std::int64_t found = welder_->find_or_add(values, next, coordinates_of);
    if (found == next) coords_.insert(coords_.end(), values, values + count);
    return found;
  }

  void read_polygon(bool triangles_only) {
    const std::size_t start = pos_;
    expect('(');
    expect('(');
    const std::size_t first = corners_.size();
    do {
      corners_.push_back(point());
    } while (next_is(','));
    expect(')');
    if (next_is(',')) fail_at(pos_, "polygons with holes (several rings) are not supported");
    expect(')');
    const std::size_t ring = corners_.size() - first;
    if (ring < 4 || corners_.back() != corners_[first])
      fail_at(start, ring < 4 ? "a ring needs at least 4 points (3 corners and the first again)"
                              : "the ring is not closed: its last point differs from its first");
    corners_.pop_back();
    if (triangles_only && ring != 4) fail_at(start, "a TIN or TRIANGLE face must be a triangle, this one has " +
                                                        std::to_string(ring - 1) + " corners");
    face_sizes_.push_back(static_cast<std::int64_t>(ring - 1));
  }

  Mesh assemble() {
    Mesh mesh;
    const std::int64_t dim = dim_ == 0 ? 3 : dim_;
    const auto num_points = static_cast<std::int64_t>(coords_.size()) / dim;
    mesh.points = NDArray::allocate(DType::float64, {num_points, dim});
    // "TIN Z EMPTY" has no coordinates: both pointers may be null, which memcpy must never see.
    if (!coords_.empty()) std::memcpy(mesh.points.data(), coords_.data(), coords_.size() * sizeof(double));
    if (face_sizes_.empty()) return mesh;
    const io::FaceBlockLayout layout(face_sizes_);
    mesh.cells = layout.allocate_blocks();
    io::FaceBlockFiller filler(layout, mesh.cells);
    std::size_t next = 0;
    for (std::int64_t size : face_sizes_) {
      const io::FaceSlot slot = filler.place(size);
      std::memcpy(slot.corners, corners_.data() + next, static_cast<std::size_t>(size) * sizeof(std::int64_t));
      next += static_cast<std::size_t>(size);
    }
    return mesh;
  }

  std::string_view doc_;
  const std::string& path_;
  std::size_t pos_ = 0;
  int dim_ = 0;
  std::vector<double> coords_;
  std::vector<std::int64_t> corners_;
  std::vector<std::int64_t> face_sizes_;
  std::optional<io::CoordinateWelder<double>> welder_;  // made once the point width is known
};

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  return Reader(file.bytes(), path).read();
}

}  // namespace meshioplusplus::wkt
