// The structure of a Tecplot binary file (tecplot_binary_internal.hpp): the header section
// (Data Format Guide, appendix "Binary Data File Format") and the position of every array of
// the data section. Versions 100 to 112 (the older zone-record layouts after VisIt's
// TecplotFile.C: the packing word until 111, parent zone from 107, user face neighbours from
// 108); Tecplot 7 files (#!TDV71/75) are refused by version.
#include <algorithm>
#include <charconv>
#include <string>

#include "formats/tecplot/tecplot_binary_internal.hpp"
#include "io/source/binary_cursor.hpp"
#include "io/source/read_limits.hpp"

namespace meshioplusplus::tecplot_binary::detail {
namespace {

constexpr int kNodesPerElement[] = {0, 2, 3, 4, 4, 8};
constexpr int kFacesPerElement[] = {0, 0, 3, 4, 4, 6};
// A name or title longer than this is a damaged file, not a name.
constexpr std::size_t kMaxStringLength = 1 << 16;

// Strings are one int32 per character, ending with a 0.
std::string read_string(io::BinaryCursor& cursor, std::string_view what) {
  std::string out;
  const std::size_t start = cursor.position();
  while (true) {
    const std::int32_t c = cursor.i32(what);
    if (c == 0) return out;
    if (out.size() >= kMaxStringLength) cursor.fail_at(start, std::string(what) + " has no end");
    out.push_back(static_cast<char>(c & 0xff));
  }
}

std::int32_t read_count(io::BinaryCursor& cursor, std::string_view what) {
  const std::size_t at = cursor.position();
  const std::int32_t value = cursor.i32(what);
  if (value < 0) cursor.fail_at(at, std::string(what) + " is negative (" + std::to_string(value) + ")");
  return value;
}

std::size_t value_size(std::int32_t format) noexcept {
  switch (format) {
    case kFloat: return 4;
    case kDouble: return 8;
    case kLongInt: return 4;
    case kShortInt: return 2;
    case kByte: return 1;
    default: return 0;
  }
}

void read_zone_record(io::BinaryCursor& cursor, Structure& file) {
  Zone zone;
  zone.header_offset = cursor.position() - 4;
  const int version = file.version;
  const std::size_t nvar = file.variables.size();
  zone.title = read_string(cursor, "a zone name");
  if (version > 106) cursor.i32("the parent zone");
  if (version <= 102) {
    cursor.i32("an unused word");
    zone.type = cursor.i32("the zone type");
  } else {
    zone.strand = cursor.i32("the strand id");
    zone.time = cursor.f64("the solution time");
    cursor.i32("the zone colour");
    zone.type = cursor.i32("the zone type");
    if (version < 112) zone.point_packing = cursor.i32("the data packing") == 1;
  }
  if (zone.type < kOrdered || zone.type > kPolyhedron)
    cursor.fail_at(cursor.position() - 4, "unknown zone type " + std::to_string(zone.type));
  zone.cell_centered.assign(nvar, 0);
  if (cursor.i32("the variable-location flag") == 1) {
    for (std::size_t v = 0; v < nvar; ++v) {
      const std::int32_t location = cursor.i32("a variable location");
      if (location != 0 && location != 1) cursor.fail_at(cursor.position() - 4, "a variable location is neither 0 (nodal) nor 1 (cell-centred)");
      zone.cell_centered[v] = static_cast<char>(location);
    }
  }
  zone.raw_face_neighbors = cursor.i32("the face-neighbour flag");
  if (version > 107) {
    zone.misc_face_neighbors = read_count(cursor, "the number of face-neighbour connections");
    if (zone.misc_face_neighbors != 0) {
      zone.face_neighbor_mode = cursor.i32("the face-neighbour mode");
      if (zone.type != kOrdered) cursor.i32("the face-neighbour completeness flag");
    }
  }
  if (zone.type == kPolygon || zone.type == kPolyhedron)
    cursor.fail_at(zone.header_offset, "polygonal and polyhedral zones (FEPOLYGON, FEPOLYHEDRON) are not read yet");
  if (zone.type == kOrdered) {
    zone.imax = cursor.i32("IMax"), zone.jmax = cursor.i32("JMax"), zone.kmax = cursor.i32("KMax");
    if (zone.imax < 1 || zone.jmax < 1 || zone.kmax < 1)
      cursor.fail_at(cursor.position() - 12, "an ordered zone's IMax, JMax and KMax must be at least 1");
    const auto points = io::checked_product(static_cast<std::uint64_t>(zone.imax) * static_cast<std::uint64_t>(zone.jmax),
                                            static_cast<std::uint64_t>(zone.kmax));
    if (!points || *points > (std::uint64_t(1) << 40)) cursor.fail("an ordered zone's IMax × JMax × KMax is too large");
    zone.num_points = static_cast<std::int64_t>(*points);
    zone.num_elements = ordered_cell_count(zone);
  } else {
    zone.num_points = read_count(cursor, "the number of points");
    zone.num_elements = read_count(cursor, "the number of elements");
    cursor.skip(3, 4, "the cell dimensions");
  }
  if (zone.point_packing && std::any_of(zone.cell_centered.begin(), zone.cell_centered.end(), [](char c) { return c != 0; }))
    cursor.fail_at(zone.header_offset, "point packing with cell-centred variables");
  while (cursor.i32("the auxiliary-data flag") == 1) {
    read_string(cursor, "an auxiliary name");
    cursor.i32("an auxiliary value format");
    read_string(cursor, "an auxiliary value");
  }
  // Each zone keeps a few words per variable: bounded before the table grows.
  io::check_claim_fits_limit(cursor.path(), kFormat, "the zone tables", (file.zones.size() + 1) * nvar, 64,
                             {zone.header_offset, std::nullopt});
  file.zones.push_back(std::move(zone));
}

// Geometries (399.0) and text (499.0) are drawn, not meshed: skipped field by field.
void skip_geometry(io::BinaryCursor& cursor, int version) {
  cursor.skip(4, 4, "a geometry record");  // position system, scope, draw order, x origin…
  cursor.skip(3, 8, "a geometry origin");
  if (version >= 112) cursor.skip(1, 4, "a geometry zone");  // attached zone
  cursor.skip(1, 4, "a geometry colour");
  cursor.skip(1, 4, "a geometry fill colour");
  cursor.skip(1, 4, "a geometry fill flag");
  const std::int32_t type = cursor.i32("the geometry type");
  cursor.skip(1, 4, "a line pattern");
  cursor.skip(2, 8, "a pattern length and thickness");
  cursor.skip(1, 4, "a number of ellipse points");
  cursor.skip(1, 4, "an arrowhead style");
  cursor.skip(1, 4, "an arrowhead attachment");
  cursor.skip(2, 8, "an arrowhead size and angle");
  read_string(cursor, "a macro function");
  const std::int32_t format = cursor.i32("a geometry data format");
  const std::size_t each = format == 1 ? 8 : 4;
  cursor.skip(1, 4, "a clipping flag");
  if (type == 0 || type == 5) {  // lines: polylines of points
    const std::int32_t polylines = read_count(cursor, "a number of polylines");
    for (std::int32_t k = 0; k < polylines; ++k) {
      const std::int32_t points = read_count(cursor, "a number of polyline points");
      cursor.skip(static_cast<std::uint64_t>(points) * (type == 5 ? 3 : 2), each, "polyline points");
    }
  } else if (type == 1 || type == 4) {  // rectangle, ellipse: two values
    cursor.skip(2, each, "a geometry size");
  } else if (type == 2 || type == 3) {  // square, circle: one
    cursor.skip(1, each, "a geometry size");
  } else {
    cursor.fail("unknown geometry type " + std::to_string(type));
  }
}

void skip_text(io::BinaryCursor& cursor, int version) {
  cursor.skip(2, 4, "a text record");  // position system, scope
  cursor.skip(3, 8, "a text position");
  cursor.skip(1, 4, "a font");
  cursor.skip(1, 4, "a character height unit");
  cursor.skip(1, 8, "a character height");
  cursor.skip(1, 4, "a box type");
  cursor.skip(3, 8, "a box margin and line thickness");
  cursor.skip(2, 4, "box colours");
  cursor.skip(1, 8, "an angle");
  cursor.skip(1, 8, "a line spacing");
  cursor.skip(1, 4, "an anchor");
  if (version >= 112) cursor.skip(1, 4, "a text zone");
  cursor.skip(1, 4, "a text colour");
  read_string(cursor, "a macro function");
  cursor.skip(1, 4, "a clipping flag");
  read_string(cursor, "a text");
}

void skip_face_neighbors(io::BinaryCursor& cursor, const Zone& zone) {
  for (std::int32_t k = 0; k < zone.misc_face_neighbors; ++k) {
    switch (zone.face_neighbor_mode) {
      case 0: cursor.skip(3, 4, "a face-neighbour connection"); break;
      case 2: cursor.skip(4, 4, "a face-neighbour connection"); break;
      case 1:
      case 3: {
        cursor.skip(3, 4, "a face-neighbour connection");
        const std::int32_t neighbours = read_count(cursor, "a number of face neighbours");
        cursor.skip(static_cast<std::uint64_t>(neighbours) * (zone.face_neighbor_mode == 1 ? 1 : 2), 4, "face neighbours");
        break;
      }
      default: cursor.fail("unknown face-neighbour mode " + std::to_string(zone.face_neighbor_mode));
    }
  }
}

void scan_zone_data(io::BinaryCursor& cursor, Structure& file, std::size_t index) {
  Zone& zone = file.zones[index];
  const std::size_t nvar = file.variables.size();
  zone.data_offset = cursor.position();
  if (cursor.f32("a zone marker") != kZoneMarker)
    cursor.fail_at(zone.data_offset, "zone " + std::to_string(index + 1) + "'s data does not start with the zone marker 299.0");
  zone.formats.resize(nvar);
  for (std::size_t v = 0; v < nvar; ++v) {
    zone.formats[v] = cursor.i32("a variable format");
    if (zone.formats[v] == kBit) cursor.fail_at(cursor.position() - 4, "bit-packed variables are not read");
    if (value_size(zone.formats[v]) == 0)
      cursor.fail_at(cursor.position() - 4, "unknown variable format " + std::to_string(zone.formats[v]));
  }
  zone.passive.assign(nvar, 0);
  if (file.version > 102 && cursor.i32("the passive-variable flag") != 0)
    for (std::size_t v = 0; v < nvar; ++v) zone.passive[v] = cursor.i32("a passive flag") != 0;
  zone.shared_from.assign(nvar, -1);
  if (cursor.i32("the variable-sharing flag") != 0) {
    for (std::size_t v = 0; v < nvar; ++v) {
      const std::int32_t from = cursor.i32("a sharing zone");
      if (from >= static_cast<std::int32_t>(index) || from < -1)
        cursor.fail_at(cursor.position() - 4, "zone " + std::to_string(index + 1) + " shares a variable with zone " +
                                                  std::to_string(from + 1) + ", which is not an earlier zone");
      zone.shared_from[v] = from;
    }
  }
  zone.connectivity_shared_from = cursor.i32("the connectivity-sharing zone");
  if (zone.connectivity_shared_from >= static_cast<std::int32_t>(index) || zone.connectivity_shared_from < -1)
    cursor.fail_at(cursor.position() - 4, "zone " + std::to_string(index + 1) + " shares the connectivity of a zone that is not earlier");
  if (zone.connectivity_shared_from >= 0) {
    const Zone& other = file.zones[static_cast<std::size_t>(zone.connectivity_shared_from)];
    if (other.type != zone.type || other.num_elements != zone.num_elements || other.num_points != zone.num_points)
      cursor.fail_at(cursor.position() - 4, "zone " + std::to_string(index + 1) + " shares the connectivity of a zone of another type or size");
  }
  std::vector<std::size_t> owned;
  for (std::size_t v = 0; v < nvar; ++v)
    if (!zone.passive[v] && zone.shared_from[v] < 0) owned.push_back(v);
  if (file.version > 102) cursor.skip(2 * owned.size(), 8, "the variables' minima and maxima");
  zone.value_offset.assign(nvar, 0);
  zone.value_stride.assign(nvar, 0);
  if (zone.point_packing) {
    std::size_t record = 0;
    for (std::size_t v : owned) zone.value_offset[v] = cursor.position() + record, record += value_size(zone.formats[v]);
    for (std::size_t v : owned) zone.value_stride[v] = record;
    cursor.skip(static_cast<std::uint64_t>(zone.num_points), record, "the point-packed values");
  } else {
    for (std::size_t v : owned) {
      zone.value_offset[v] = cursor.position();
      zone.value_stride[v] = value_size(zone.formats[v]);
      cursor.skip(static_cast<std::uint64_t>(stored_value_count(zone, v, file.version)), zone.value_stride[v],
                  "the values of '" + file.variables[v] + "'");
    }
  }
  if (zone.connectivity_shared_from < 0) {
    if (zone.ordered()) {
      skip_face_neighbors(cursor, zone);
      return;
    }
    zone.connectivity_offset = cursor.position();
    cursor.skip(static_cast<std::uint64_t>(zone.num_elements) * kNodesPerElement[zone.type], 4, "the connectivity");
    if (zone.raw_face_neighbors != 0)
      cursor.skip(static_cast<std::uint64_t>(zone.num_elements) * kFacesPerElement[zone.type], 4, "the face neighbours");
    skip_face_neighbors(cursor, zone);
  }
}

}  // namespace

std::int64_t ordered_cell_count(const Zone& zone) noexcept {
  std::int64_t cells = 1;
  bool any = false;
  for (std::int64_t d : {zone.imax, zone.jmax, zone.kmax})
    if (d > 1) cells *= d - 1, any = true;
  return any ? cells : zone.imax * zone.jmax * zone.kmax;  // a single point: one vertex
}

std::int64_t stored_value_count(const Zone& zone, std::size_t v, int version) noexcept {
  if (!zone.cell_centered[v]) return zone.num_points;
  if (!zone.ordered()) return zone.num_elements;
  // Node dimensions with the last long one shortened by one (from 104): the others keep a
  // ghost value at their end.
  std::int64_t dims[3] = {zone.imax, zone.jmax, zone.kmax};
  if (version >= 104)
    for (int a = 2; a >= 0; --a)
      if (dims[a] > 1) {
        --dims[a];
        break;
      }
  return dims[0] * dims[1] * dims[2];
}

Structure scan(std::string_view bytes, const std::string& path) {
  Structure file;
  io::BinaryCursor cursor(bytes, path, kFormat);
  if (bytes.substr(0, 4) == "#!SZ")
    cursor.fail_at(0, "this is a Tecplot SZL file (.szplt), whose layout is not public: convert it to .plt "
                      "with Tecplot 360 or TecIO's szl2plt");
  if (bytes.size() < 8 || bytes.substr(0, 5) != "#!TDV")
    cursor.fail_at(0, "not a Tecplot binary file (no #!TDV magic); an ASCII Tecplot file is read as format 'tecplot'");
  const std::string_view digits = bytes.substr(5, 3);
  int version = 0;
  const auto parsed = std::from_chars(digits.data(), digits.data() + digits.size(), version);
  if (parsed.ec != std::errc() || version < 100 || version > 112)
    cursor.fail_at(5, "Tecplot binary version '" + std::string(digits) + "' is not read (#!TDV100 to #!TDV112 are)");
  file.version = version;
  cursor.seek(8);
  if (cursor.i32("the byte-order word") != 1) {
    cursor.seek(8);
    cursor.set_little_endian(false);
    if (cursor.i32("the byte-order word") != 1) cursor.fail_at(8, "the byte-order word is not 1 in either byte order");
  }
  file.little_endian = cursor.little_endian();
  if (version >= 111) {
    const std::int32_t file_type = cursor.i32("the file type");
    if (file_type != 0)
      cursor.fail_at(cursor.position() - 4, "GRID and SOLUTION files (file type " + std::to_string(file_type) +
                                                ") hold half a dataset; only FULL files are read");
  }
  file.title = read_string(cursor, "the title");
  const std::int32_t nvar = read_count(cursor, "the number of variables");
  cursor.need(static_cast<std::uint64_t>(nvar), 8, "the variable names");
  for (std::int32_t v = 0; v < nvar; ++v) file.variables.push_back(read_string(cursor, "a variable name"));
  while (true) {
    const std::size_t at = cursor.position();
    const float marker = cursor.f32("a header marker");
    if (marker == kZoneMarker) {
      read_zone_record(cursor, file);
    } else if (marker == kGeometryMarker) {
      skip_geometry(cursor, version);
    } else if (marker == kTextMarker) {
      skip_text(cursor, version);
    } else if (marker == kLabelMarker) {
      const std::int32_t labels = read_count(cursor, "a number of custom labels");
      for (std::int32_t k = 0; k < labels; ++k) read_string(cursor, "a custom label");
    } else if (marker == kUserRecordMarker) {
      read_string(cursor, "a user record");
    } else if (marker == kDatasetAuxMarker) {
      read_string(cursor, "an auxiliary name");
      cursor.i32("an auxiliary value format");
      read_string(cursor, "an auxiliary value");
    } else if (marker == kVariableAuxMarker) {
      cursor.i32("an auxiliary variable");
      read_string(cursor, "an auxiliary name");
      cursor.i32("an auxiliary value format");
      read_string(cursor, "an auxiliary value");
    } else if (marker == kEndOfHeaderMarker) {
      break;
    } else {
      cursor.fail_at(at, "unknown header marker " + std::to_string(marker) + " (zone records end with 357.0)");
    }
  }
  if (file.zones.empty()) cursor.fail("the file has no zone");
  for (std::size_t z = 0; z < file.zones.size(); ++z) scan_zone_data(cursor, file, z);
  return file;
}

}  // namespace meshioplusplus::tecplot_binary::detail
