// MED files built object by object through the project's HDF5 layer (io/hdf5/hdf5_file.hpp),
// for the MED tests: meshes (with node families), fields on a named mesh, the layouts Salome
// and code_aster write (src/cpp/formats/med/med.hpp describes them); and the tests' helpers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "io/hdf5/hdf5_file.hpp"
#include "support/test_support.hpp"
#include "support/hdf5_skip.hpp"

namespace meshioplusplus::testing_support {

inline std::vector<double> double_values(const NDArray& array) {
  const NDArray converted = array.astype(DType::float64);
  const auto values = converted.values<double>();
  return {values.begin(), values.end()};
}

// The group of a mesh's (or field's) computation step, as the MED library names it.
inline const std::string kMedNoStep = "-0000000000000000001-0000000000000000001";

// One mesh of /ENS_MAA. Arrays row-major here, written in MED's Fortran order.
struct MedMeshSpec {
  std::string name = "m";
  std::int32_t dimension = 2;                  // ESP
  std::vector<double> points;                  // (n, dimension)
  std::string med_type;                        // one cell block ("TR3", "SE2" …); empty: no MAI
  std::int64_t nodes_per_cell = 0;
  std::vector<std::int32_t> cells;             // (cells, nodes_per_cell), 1-based node numbers
  std::vector<std::int32_t> node_families;     // NOE/FAM, one per node; empty: none
  std::vector<std::pair<std::int32_t, std::string>> groups;  // node family number → its one group
  bool in_step = true;  // MED 3: NOE and MAI in the mesh's step group; false: in the mesh group
};

// `values` (n, k) row-major → MED's order (value i of component c at i + n * c).
template <class T> std::vector<T> med_fortran_order(const std::vector<T>& values, std::size_t k) {
  const std::size_t n = values.size() / k;
  std::vector<T> out(values.size());
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < k; ++c) out[i + n * c] = values[i * k + c];
  return out;
}

inline void write_med_mesh(io::hdf5::File& file, const MedMeshSpec& mesh) {
  if (!file.exists("/ENS_MAA")) file.create_group("/ENS_MAA");
  const std::string mesh_path = "/ENS_MAA/" + mesh.name;
  file.create_group(mesh_path);
  file.set_int32_attribute(mesh_path, "ESP", mesh.dimension);
  file.set_int32_attribute(mesh_path, "DIM", mesh.dimension);
  std::string at = mesh_path;
  if (mesh.in_step) {
    at += "/" + kMedNoStep;
    file.create_group(at);
    file.set_int32_attribute(at, "NDT", -1);
    file.set_int32_attribute(at, "NOR", -1);
  }
  const auto n = static_cast<std::int64_t>(mesh.points.size()) / mesh.dimension;
  file.create_group(at + "/NOE");
  file.write(at + "/NOE/COO",
             array_of<double>({n * mesh.dimension}, med_fortran_order(mesh.points, static_cast<std::size_t>(mesh.dimension))));
  file.set_int32_attribute(at + "/NOE/COO", "NBR", static_cast<std::int32_t>(n));
  if (!mesh.node_families.empty()) {
    file.write(at + "/NOE/FAM", array_of<std::int32_t>({n}, mesh.node_families));
    file.set_int32_attribute(at + "/NOE/FAM", "NBR", static_cast<std::int32_t>(n));
  }
  if (!mesh.med_type.empty()) {
    const std::string group = at + "/MAI/" + mesh.med_type;
    const auto count = static_cast<std::int64_t>(mesh.cells.size()) / mesh.nodes_per_cell;
    file.create_group(at + "/MAI");
    file.create_group(group);
    file.write(group + "/NOD", array_of<std::int32_t>({count * mesh.nodes_per_cell},
                                                      med_fortran_order(mesh.cells, static_cast<std::size_t>(mesh.nodes_per_cell))));
    file.set_int32_attribute(group + "/NOD", "NBR", static_cast<std::int32_t>(count));
  }
  if (mesh.groups.empty()) return;
  if (!file.exists("/FAS")) file.create_group("/FAS");
  const std::string fas = "/FAS/" + mesh.name;
  file.create_group(fas);
  file.create_group(fas + "/NOEUD");
  for (const auto& [number, group] : mesh.groups) {
    const std::string family = fas + "/NOEUD/FAM_" + std::to_string(number) + "_" + group;
    file.create_group(family);
    file.set_int32_attribute(family, "NUM", number);
    file.create_group(family + "/GRO");
    NDArray names = NDArray::zeros(DType::int8, {1, 80});
    std::copy(group.begin(), group.end(), static_cast<char*>(names.data()));
    io::hdf5::DatasetWriteOptions options;
    options.as_array_type = true;
    file.write(family + "/GRO/NOM", names, options);
  }
}

// A scalar field /CHA/<name> on one support of mesh `mesh` ("" : no MAI attribute), one
// computation step per (NDT, time) with `values` times (step index + 1).
struct MedFieldSpec {
  std::string name;
  std::string mesh;
  std::string support = "NOE";  // "NOE" (nodes) or "MAI.<type>" (cells)
  std::vector<double> values;
  std::vector<std::pair<std::int32_t, double>> steps = {{1, 0.0}};
};

inline void write_med_field(io::hdf5::File& file, const MedFieldSpec& field) {
  if (!file.exists("/CHA")) file.create_group("/CHA");
  const std::string field_path = "/CHA/" + field.name;
  file.create_group(field_path);
  if (!field.mesh.empty()) file.set_fixed_string_attribute(field_path, "MAI", field.mesh);
  file.set_int32_attribute(field_path, "NCO", 1);
  for (std::size_t s = 0; s < field.steps.size(); ++s) {
    const auto [ndt, time] = field.steps[s];
    char name[48];
    std::snprintf(name, sizeof name, "%020d%020d", ndt, -1);
    const std::string step = field_path + "/" + name;
    file.create_group(step);
    file.set_int32_attribute(step, "NDT", ndt);
    file.set_int32_attribute(step, "NOR", -1);
    file.set_attribute(step, "PDT", time);
    const std::string support = step + "/" + field.support;
    file.create_group(support);
    file.set_fixed_string_attribute(support, "PFL", "MED_NO_PROFILE_INTERNAL");
    const std::string profile = support + "/MED_NO_PROFILE_INTERNAL";
    file.create_group(profile);
    file.set_int32_attribute(profile, "NBR", static_cast<std::int32_t>(field.values.size()));
    file.set_int32_attribute(profile, "NGA", 1);
    std::vector<double> values = field.values;
    for (double& value : values) value *= static_cast<double>(s + 1);
    file.write(profile + "/CO", array_of<double>({static_cast<std::int64_t>(values.size())}, values));
  }
}

// The smallest MED mesh the error tests build on: mesh "m" in 2-D with two points and no cells
// (NOE in the mesh group, as MED 2 files have it).
inline void write_two_point_mesh(io::hdf5::File& file) {
  write_med_mesh(file, MedMeshSpec{.points = {0, 0, 1, 1}, .in_step = false});
}

}  // namespace meshioplusplus::testing_support
