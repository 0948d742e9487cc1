// Private to tecplot_binary_*.cpp: the structure of a .plt file as the scan finds it (header
// records and where each zone's arrays lie), shared by the reader and the time series.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>


namespace meshioplusplus::tecplot_binary::detail {

inline constexpr std::string_view kFormat = "tecplot_binary";

inline constexpr float kZoneMarker = 299.0f;
inline constexpr float kGeometryMarker = 399.0f;
inline constexpr float kTextMarker = 499.0f;
inline constexpr float kLabelMarker = 599.0f;
inline constexpr float kUserRecordMarker = 699.0f;
inline constexpr float kDatasetAuxMarker = 799.0f;
inline constexpr float kVariableAuxMarker = 899.0f;
inline constexpr float kEndOfHeaderMarker = 357.0f;

// Zone types as the file numbers them.
enum ZoneType : std::int32_t {
  kOrdered = 0, kLineSeg = 1, kTriangle = 2, kQuadrilateral = 3, kTetrahedron = 4, kBrick = 5,
  kPolygon = 6, kPolyhedron = 7,
};
// Variable formats as the file numbers them (1 float … 5 byte, 6 bit).
enum ValueFormat : std::int32_t { kFloat = 1, kDouble = 2, kLongInt = 3, kShortInt = 4, kByte = 5, kBit = 6 };

struct Zone {
  std::string title;
  std::int32_t strand = -1;  // -1: static (TecIO's 0 written less one)
  double time = 0.0;
  std::int32_t type = kOrdered;
  std::vector<char> cell_centered;  // per variable
  bool point_packing = false;       // versions before 112 only
  std::int32_t raw_face_neighbors = 0, misc_face_neighbors = 0, face_neighbor_mode = 0;
  std::int64_t imax = 1, jmax = 1, kmax = 1;  // ordered zones
  std::int64_t num_points = 0, num_elements = 0;
  std::size_t header_offset = 0;
  // Data section.
  std::size_t data_offset = 0;
  std::vector<std::int32_t> formats;     // per variable
  std::vector<char> passive;             // per variable
  std::vector<std::int32_t> shared_from; // per variable: 0-based zone, -1 none
  std::int32_t connectivity_shared_from = -1;
  std::vector<std::size_t> value_offset;  // per variable: first value (owned variables)
  std::vector<std::size_t> value_stride;  // per variable: bytes between values
  std::size_t connectivity_offset = 0;

  bool ordered() const noexcept { return type == kOrdered; }
};

struct Structure {
  int version = 112;
  bool little_endian = true;
  std::string title;
  std::vector<std::string> variables;
  std::vector<Zone> zones;
};

// Cells per ordered zone: hexahedra, quads or lines from its long (> 1) directions.
std::int64_t ordered_cell_count(const Zone& zone) noexcept;
// Values stored for variable `v` of `zone` (ordered cell-centred arrays keep ghost values).
std::int64_t stored_value_count(const Zone& zone, std::size_t v, int version) noexcept;

// Reads the header and walks every zone's data section, recording where its arrays lie; reads
// no array. ReadError (with the byte offset) on anything malformed or unsupported.
Structure scan(std::string_view bytes, const std::string& path);

}  // namespace meshioplusplus::tecplot_binary::detail
