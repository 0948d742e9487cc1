// IGES reader (io/occt): real files of Gmsh's repository (a cube of six trimmed planes, a
// Rhino sphere, a 28-surface model), counted against Gmsh's OpenCASCADE import (faces,
// bounding box of its mesh, surface area) and meshio++ 17.21 (points after merging equal
// coordinates); hostile input. Skipped, with the reason, in a build without OCCT.
#include <gtest/gtest.h>

#include <csignal>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <set>
#include <string>

#include "formats/iges/iges.hpp"
#include "io/occt/cad_tessellation.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

#define SKIP_WITHOUT_OCCT() \
  if (!io::occt::available()) GTEST_SKIP() << "built without OpenCASCADE (Debian: libocct-data-exchange-dev …)"

std::string iges_file(const std::string& name) {
  return (meshioplusplus::testing::test_data_dir() / "iges" / name).string();
}

double surface_area(const Mesh& mesh) {
  const auto points = mesh.points.values<double>();
  const auto triangles = mesh.cells.at(0).connectivity.values<std::int64_t>();
  double area = 0;
  for (std::size_t t = 0; t < triangles.size(); t += 3) {
    const double* a = &points[3 * triangles[t]];
    const double* b = &points[3 * triangles[t + 1]];
    const double* c = &points[3 * triangles[t + 2]];
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    area += 0.5 * std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  }
  return area;
}

std::array<double, 6> box_of(const Mesh& mesh) {
  std::array<double, 6> box{1e300, 1e300, 1e300, -1e300, -1e300, -1e300};
  const auto points = mesh.points.values<double>();
  for (std::size_t i = 0; i < points.size(); ++i) {
    box[i % 3] = std::min(box[i % 3], points[i]);
    box[3 + i % 3] = std::max(box[3 + i % 3], points[i]);
  }
  return box;
}

std::set<std::int32_t> face_ids(const Mesh& mesh) {
  const auto ids = mesh.cell_data.find("cad:face_id")->at(0).values<std::int32_t>();
  return {ids.begin(), ids.end()};
}

TEST(Iges, CubeOfTrimmedPlanesIsWeldedAtItsCorners) {
  SKIP_WITHOUT_OCCT();
  const Mesh mesh = read(iges_file("cube1000.igs"));  // through the registry (.igs)
  validate(mesh);
  // Six planar faces of two triangles; their corners coincide exactly: 8 points (17.21: 8).
  EXPECT_EQ(mesh.points.rows(), 8);
  EXPECT_EQ(mesh.cells[0].num_cells(), 12);
  EXPECT_EQ(face_ids(mesh).size(), 6u);
  // Gmsh: 6 surfaces, box (-707.107, -353.553, -250)-(0, 353.553, 250), area 1.5e6.
  const auto box = box_of(mesh);
  const std::array<double, 6> gmsh{-707.107, -353.553, -250, 0, 353.553, 250};
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(box[k], gmsh[k], 1e-3) << k;
  EXPECT_NEAR(surface_area(mesh), 1.5e6, 1e-6 * 1.5e6);
  // The file's entity labels name the faces' parts (F1(1) … F6(6)), faces stay numbered.
  std::set<std::string> names;
  for (const Region& region : mesh.regions) names.insert(region.name);
  EXPECT_TRUE(names.contains("F1(1)") && names.contains("F6(6)") && names.contains("face 6")) << ::testing::PrintToString(names);
}

TEST(Iges, RhinoSphereIsTheUnitSphere) {
  SKIP_WITHOUT_OCCT();
  const Mesh mesh = iges::read(iges_file("sphere_Rhino3D_default.igs"));
  validate(mesh);
  EXPECT_EQ(face_ids(mesh).size(), 1u);
  // 17.21 (same OCCT defaults): 3702 points, 7400 triangles.
  EXPECT_EQ(mesh.points.rows(), 3702);
  EXPECT_EQ(mesh.cells[0].num_cells(), 7400);
  const auto points = mesh.points.values<double>();
  for (std::size_t i = 0; i < points.size(); i += 3)
    ASSERT_NEAR(std::hypot(points[i], points[i + 1], points[i + 2]), 1.0, 1e-6) << i / 3;
  EXPECT_NEAR(surface_area(mesh), 4 * std::numbers::pi, 0.01 * 4 * std::numbers::pi);
}

TEST(Iges, ModelOfTwentyEightSurfacesMatchesGmsh) {
  SKIP_WITHOUT_OCCT();
  const Mesh mesh = iges::read(iges_file("model1.igs"));
  validate(mesh);
  // Gmsh: 28 surfaces, area 1.43622e7 (occ.getMass); its mesh spans x 0…2591.1968,
  // z 0…508, y up to 2540.
  EXPECT_EQ(face_ids(mesh).size(), 28u);
  const auto box = box_of(mesh);
  EXPECT_NEAR(box[0], 0, 1e-3);
  EXPECT_NEAR(box[3], 2591.1968, 1e-3);
  EXPECT_NEAR(box[4], 2540, 1e-3);
  EXPECT_NEAR(box[2], 0, 1e-2);
  EXPECT_NEAR(box[5], 508, 1e-2);
  EXPECT_NEAR(surface_area(mesh), 1.43622e7, 0.02 * 1.43622e7);
}

// A mutated copy of model1.igs (a curve on a surface whose parts are gone): OCCT 7.6
// dereferences a null handle. The read survives it and leaves the caller's SIGSEGV handler.
TEST(Iges, AFaultInsideOpenCascadeIsSurvived) {
  SKIP_WITHOUT_OCCT();
  const std::string path = iges_file("fault-curve-on-surface.igs");
  struct sigaction before {}, after {};
  sigaction(SIGSEGV, nullptr, &before);
  try {
    validate(iges::read(path));
  } catch (const ReadError& error) {
    EXPECT_EQ(error.path(), path);
  }
  sigaction(SIGSEGV, nullptr, &after);
  EXPECT_EQ(reinterpret_cast<void*>(before.sa_handler), reinterpret_cast<void*>(after.sa_handler));
  EXPECT_EQ(iges::read(iges_file("cube1000.igs")).points.rows(), 8);
}

void expect_read_error(const std::string& path) {
  try {
    (void)iges::read(path);
    FAIL() << "no ReadError for " << path;
  } catch (const ReadError& error) {
    EXPECT_EQ(error.path(), path);
    EXPECT_EQ(error.format(), "iges");
  }
}

TEST(Iges, HostileInputIsAReadErrorNamingTheFile) {
  if (!io::occt::available()) {
    expect_read_error(iges_file("cube1000.igs"));
    GTEST_SKIP() << "built without OpenCASCADE: only the missing-library error is checked";
  }
  const ScratchDir dir;
  const std::string whole = read_file(iges_file("cube1000.igs"));
  expect_read_error(dir.write("start_only.igs", whole.substr(0, 81 * 3)));
  expect_read_error(dir.write("text.igs", "not an IGES file\n"));
  expect_read_error(dir.write("empty.iges", ""));
  expect_read_error((dir.path() / "missing.igs").string());
  // Cut inside the parameter data: whatever OCCT keeps, the answer is a mesh or a ReadError.
  const std::string half = dir.write("half.igs", whole.substr(0, whole.size() / 2));
  try {
    validate(iges::read(half));
  } catch (const ReadError& error) {
    EXPECT_EQ(error.path(), half);
  }
}

}  // namespace
