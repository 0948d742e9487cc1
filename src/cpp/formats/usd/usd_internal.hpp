// The parts of a USD text layer the reader turns into a mesh, as usd_parser.cpp parses them:
// a flat list of prims (parents before children) with the attributes the mesh needs. Private
// to formats/usd/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace meshioplusplus::usd {

inline constexpr std::string_view kFormat = "usd";

// What an attribute's type name holds.
enum class ValueKind { real, integer, text, other };

struct Attribute {
  std::string type;                  // the scalar type name: "point3f", "int", "token" …
  ValueKind kind = ValueKind::other;
  int width = 1;                     // numbers per element (point3f: 3, matrix4d: 16)
  bool is_array = false;
  bool has_value = false;            // a default, or else the first time sample
  bool from_time_sample = false;
  std::vector<double> reals;         // kind real, flat
  std::vector<std::int64_t> integers;  // kind integer, flat
  std::vector<std::string> strings;  // kind text
  std::string interpolation;         // metadata, empty when not authored
  std::int64_t element_size = 1;     // metadata
  std::size_t offset = 0;            // where the attribute is declared (errors)

  std::size_t value_count() const noexcept {
    return kind == ValueKind::real ? reals.size() : kind == ValueKind::integer ? integers.size() : strings.size();
  }
};

struct Prim {
  std::string specifier;  // def, over, class
  std::string type_name;  // Mesh, Xform, GeomSubset … (empty for a typeless prim)
  std::string path;       // "/World/mesh"
  std::int64_t parent = -1;
  bool active = true;
  std::size_t offset = 0;
  std::vector<std::pair<std::string, Attribute>> attributes;

  const Attribute* find(std::string_view name) const noexcept {
    for (const auto& [key, attribute] : attributes)
      if (key == name) return &attribute;
    return nullptr;
  }
};

struct Layer {
  std::vector<Prim> prims;
  std::string up_axis;
  std::optional<double> meters_per_unit;
  std::size_t composition_arcs = 0;  // references, payloads, sublayers, variant sets: not followed
};

// Parses a whole .usda file. Throws ReadError(path, "usd", message, offset, line).
Layer parse_usda(std::string_view bytes, const std::string& path);

[[noreturn]] void fail_at(std::string_view bytes, const std::string& path, std::size_t offset, const std::string& message);

}  // namespace meshioplusplus::usd
