// MED geometric type names ↔ our cell types (meshio's table), shared by the MED reader and writer.
#pragma once

#include <array>
#include <string_view>

namespace meshioplusplus::med {

struct MedType {
  std::string_view med, cell_type;
};

inline constexpr std::array kMedTypes{
    MedType{"PO1", "vertex"},     MedType{"SE2", "line"},         MedType{"SE3", "line3"},
    MedType{"TR3", "triangle"},   MedType{"TR6", "triangle6"},    MedType{"QU4", "quad"},
    MedType{"QU8", "quad8"},      MedType{"TE4", "tetra"},        MedType{"T10", "tetra10"},
    MedType{"HE8", "hexahedron"}, MedType{"H20", "hexahedron20"}, MedType{"PY5", "pyramid"},
    MedType{"P13", "pyramid13"},  MedType{"PE6", "wedge"},        MedType{"P15", "wedge15"},
    // Ragged types: index datasets (INN, IFN) beside NOD, see med.hpp.
    MedType{"POG", "polygon"},    MedType{"POE", "polyhedron"},
};

inline std::string_view cell_type_of_med(std::string_view med) {
  for (const MedType& entry : kMedTypes)
    if (entry.med == med) return entry.cell_type;
  return {};
}

inline std::string_view med_of_cell_type(std::string_view cell_type) {
  for (const MedType& entry : kMedTypes)
    if (entry.cell_type == cell_type) return entry.med;
  return {};
}

inline constexpr std::string_view kNoProfile = "MED_NO_PROFILE_INTERNAL";

}  // namespace meshioplusplus::med
