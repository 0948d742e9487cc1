// MSC Nastran HDF5 results: MSC Nastran's own .h5 files from pyNastran's models (statics of a
// solid/shell/bar model) and CoFE's verification runs (eight modes of a ten-bar truss),
// checked against numbers h5py reads from the same datasets; lazy steps; hostile input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "formats/nastran_h5/nastran_h5.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data_file(const std::string& name) {
  return unpacked(meshioplusplus::testing::test_data_dir() / "nastran_h5" / (name + ".gz"));
}

double sum(const NDArray& array) {
  double total = 0;
  for (const double v : array.values<double>())
    if (!std::isnan(v)) total += v;
  return total;
}

const CellBlock* block(const Mesh& mesh, const std::string& type, std::size_t* index = nullptr) {
  for (std::size_t b = 0; b < mesh.cells.size(); ++b)
    if (mesh.cells[b].type == type) {
      if (index) *index = b;
      return &mesh.cells[b];
    }
  return nullptr;
}

std::string read_error(const std::string& path, const std::string& format = "nastran_h5") {
  try {
    read(path, format);
  } catch (const ReadError& error) {
    return error.what();
  }
  return "no error";
}

}  // namespace

TEST(NastranH5, StaticSolidShellBarMatchesH5py) {
  if (!io::hdf5::available()) GTEST_SKIP() << "built without HDF5";
  const Mesh mesh = read(data_file("static_solid_shell_bar.h5"));  // by extension: .h5
  ASSERT_EQ(mesh.num_points(), 25);
  EXPECT_DOUBLE_EQ(sum(mesh.points), 16.0);
  std::int64_t id_sum = 0;
  for (const std::int64_t id : mesh.point_data.find("nastran:grid_id")->values<std::int64_t>()) id_sum += id;
  EXPECT_EQ(id_sum, 325);
  ASSERT_NE(block(mesh, "line"), nullptr);
  EXPECT_EQ(block(mesh, "line")->num_cells(), 4);  // CBAR, CBEAM, 2 CROD
  EXPECT_EQ(block(mesh, "hexahedron")->num_cells(), 1);
  EXPECT_EQ(block(mesh, "wedge")->num_cells(), 2);
  EXPECT_EQ(block(mesh, "quad")->num_cells(), 4);
  EXPECT_EQ(block(mesh, "tetra")->num_cells(), 2);
  EXPECT_EQ(block(mesh, "triangle")->num_cells(), 8);
  EXPECT_EQ(mesh.cells.size(), 6u);
  // DISPLACEMENT of domain 1: sums of X and RZ as h5py reads them.
  EXPECT_NEAR(sum(*mesh.point_data.find("displacement")), 0, 1);  // all three components
  double x_sum = 0, rz_sum = 0;
  const NDArray& displacement = *mesh.point_data.find("displacement");
  const NDArray& rotation = *mesh.point_data.find("rotation");
  for (std::int64_t i = 0; i < 25; ++i) {
    x_sum += displacement.data_as<double>()[3 * i];
    rz_sum += rotation.data_as<double>()[3 * i + 2];
  }
  EXPECT_DOUBLE_EQ(x_sum, -0.026207135189730266);
  EXPECT_NEAR(rz_sum, 5.882003779144229e-06, 1e-18);
  // Solid centroid stress (HEXA X[0]) and shell bottom-fibre stress (TRIA3 X1).
  std::size_t hexa = 0, triangle = 0;
  block(mesh, "hexahedron", &hexa);
  block(mesh, "triangle", &triangle);
  const auto& stress = *mesh.cell_data.find("stress");
  EXPECT_DOUBLE_EQ(stress[hexa].data_as<double>()[0], 487.60925893637245);
  double tria_x1 = 0;
  for (std::int64_t i = 0; i < 8; ++i) {
    const double v = stress[triangle].data_as<double>()[6 * i];
    if (!std::isnan(v)) tria_x1 += v;
  }
  EXPECT_NEAR(tria_x1, 3880.051281742626, 1e-9);
  EXPECT_TRUE(std::isnan(stress[triangle].data_as<double>()[6 * 7]));  // a composite: ply table, not read
  EXPECT_NE(mesh.cell_data.find("von_mises_z2"), nullptr);
  EXPECT_EQ(mesh.field_data.find("nastran:subcase")->values<std::int64_t>()[0], 1);
  // Property regions.
  bool found = false;
  for (const Region& region : mesh.regions) found |= region.name.starts_with("property_") && region.kind == RegionKind::Cell;
  EXPECT_TRUE(found);
}

TEST(NastranH5, TenBarTrussModesAreSteps) {
  if (!io::hdf5::available()) GTEST_SKIP() << "built without HDF5";
  const std::string path = data_file("ten_bar_truss_modes.h5");
  auto reader = open_time_series(path, "nastran_h5");
  ASSERT_EQ(reader->num_steps(), 8u);
  EXPECT_DOUBLE_EQ(reader->time(0), 3161.9670229386184);
  EXPECT_NEAR(reader->time(7), 234849.15806887, 1e-6);
  const Mesh mesh = reader->read_mesh();
  EXPECT_EQ(mesh.num_points(), 6);
  ASSERT_EQ(mesh.cells.size(), 1u);  // 10 CROD; the 12 CMASS1 are no cells
  EXPECT_EQ(mesh.cells[0].num_cells(), 10);
  EXPECT_EQ(mesh.field_data.find("nastran:eigenvalues")->size(), 8u);
  const TimeStep step = reader->read_step(2);
  EXPECT_EQ(step.field_data.find("nastran:mode")->values<std::int64_t>()[0], 3);
  EXPECT_EQ(step.point_data.find("displacement")->shape(), (Shape{6, 3}));
  EXPECT_THROW(reader->read_step(8), ReadError);
}

TEST(NastranH5, HostileInput) {
  if (!io::hdf5::available()) GTEST_SKIP() << "built without HDF5";
  const ScratchDir dir;
  // Truncated: every prefix tried is refused with a ReadError, never a crash.
  const std::string bytes = read_file(data_file("ten_bar_truss_modes.h5"));
  for (const std::size_t keep : {std::size_t{100}, bytes.size() / 3, bytes.size() / 2, bytes.size() - 1000}) {
    const std::string cut = dir.write("cut.h5", std::string_view(bytes).substr(0, keep));
    EXPECT_NE(read_error(cut).find("cut.h5"), std::string::npos) << keep;
  }
  // An HDF5 file that is not Nastran's.
  const std::string other = (dir.path() / "other.h5").string();
  {
    auto file = io::hdf5::File::create(other, "test");
    file.write("/values", NDArray::from_values<double>({1.0, 2.0}));
    file.commit();
  }
  EXPECT_NE(read_error(other).find("no /NASTRAN group"), std::string::npos);
  // Nastran's groups without GRID.
  const std::string no_grid = (dir.path() / "no_grid.h5").string();
  {
    auto file = io::hdf5::File::create(no_grid, "test");
    file.create_group("/NASTRAN");
    file.create_group("/NASTRAN/INPUT");
    file.commit();
  }
  EXPECT_NE(read_error(no_grid).find("/NASTRAN/INPUT/NODE/GRID"), std::string::npos);
  // GRID that is not a table of records.
  const std::string numbers = (dir.path() / "numbers.h5").string();
  {
    auto file = io::hdf5::File::create(numbers, "test");
    file.create_group("/NASTRAN");
    file.create_group("/NASTRAN/INPUT");
    file.create_group("/NASTRAN/INPUT/NODE");
    file.write("/NASTRAN/INPUT/NODE/GRID", NDArray::from_values<double>({1.0, 2.0}));
    file.commit();
  }
  EXPECT_NE(read_error(numbers).find("compound"), std::string::npos);
}
