// STEP reader (io/occt): real files of Gmsh's repository (a tutorial part, the AS1 assembly of
// 18 solids, a CATIA cube), counted against Gmsh's OpenCASCADE import (faces, solids, bounding
// box, surface area); node sharing along edges (a closed solid's surface is watertight);
// tessellation options; hostile input. Skipped, with the reason, in a build without OCCT.
#include <gtest/gtest.h>

#include <csignal>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "formats/step/step.hpp"
#include "io/occt/cad_tessellation.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

// OpenCASCADE keeps process-wide tables it never frees (the STEP/IGES controllers' editors,
// XCAF's driver tables): the sanitizer lane's LeakSanitizer would report them at the exit of
// every STEP and IGES test (ctest runs each in a process of its own). Allocations made inside
// OCCT's libraries (libTK*) are theirs, not a leak of ours. One definition for the whole test
// executable (test_iges.cpp relies on it too).
extern "C" const char* __lsan_default_suppressions() { return "leak:libTK\n"; }

namespace {

#define SKIP_WITHOUT_OCCT() \
  if (!io::occt::available()) GTEST_SKIP() << "built without OpenCASCADE (Debian: libocct-data-exchange-dev …)"

std::string step_file(const std::string& name) { return (meshioplusplus::testing::test_data_dir() / "step" / name).string(); }

struct SurfaceFacts {
  std::array<double, 3> low{1e300, 1e300, 1e300}, high{-1e300, -1e300, -1e300};
  double area = 0;
  std::set<std::int32_t> faces, solids;
  std::int64_t open_edges = 0;  // edges used by one triangle only
};

SurfaceFacts facts_of(const Mesh& mesh) {
  SurfaceFacts facts;
  const auto points = mesh.points.values<double>();
  for (std::size_t i = 0; i < points.size(); ++i) {
    facts.low[i % 3] = std::min(facts.low[i % 3], points[i]);
    facts.high[i % 3] = std::max(facts.high[i % 3], points[i]);
  }
  const auto triangles = mesh.cells.at(0).connectivity.values<std::int64_t>();
  std::map<std::pair<std::int64_t, std::int64_t>, int> edge_uses;
  for (std::size_t t = 0; t < triangles.size(); t += 3) {
    const double* a = &points[3 * triangles[t]];
    const double* b = &points[3 * triangles[t + 1]];
    const double* c = &points[3 * triangles[t + 2]];
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    facts.area += 0.5 * std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; ++k) {
      const std::int64_t p = triangles[t + k], q = triangles[t + (k + 1) % 3];
      ++edge_uses[{std::min(p, q), std::max(p, q)}];
    }
  }
  for (const auto& [edge, uses] : edge_uses) facts.open_edges += uses == 1;
  for (const std::int32_t id : mesh.cell_data.find("cad:face_id")->at(0).values<std::int32_t>()) facts.faces.insert(id);
  for (const std::int32_t id : mesh.cell_data.find("cad:solid_id")->at(0).values<std::int32_t>()) facts.solids.insert(id);
  return facts;
}

void expect_box(const SurfaceFacts& facts, std::array<double, 3> low, std::array<double, 3> high, double tolerance) {
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(facts.low[k], low[k], tolerance) << "axis " << k;
    EXPECT_NEAR(facts.high[k], high[k], tolerance) << "axis " << k;
  }
}

std::int64_t regions_named_like(const Mesh& mesh, std::string_view prefix) {
  return std::count_if(mesh.regions.begin(), mesh.regions.end(), [&](const Region& r) { return r.name.starts_with(prefix); });
}

TEST(Step, GmshTutorialPartMatchesGmshImport) {
  SKIP_WITHOUT_OCCT();
  const Mesh mesh = read(step_file("t20_data.step"));  // through the registry (.step)
  validate(mesh);
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "triangle");
  const SurfaceFacts facts = facts_of(mesh);
  // Gmsh 4.x (occ.importShapes): 21 surfaces, 1 volume, area 6368.8 (occ.getMass); its 2-D
  // mesh's nodes span this box (OCCT's Bnd_Box of the shapes is looser: B-spline poles).
  EXPECT_EQ(facts.faces.size(), 21u);
  EXPECT_EQ(facts.solids.size(), 1u);
  expect_box(facts, {-18.4752, 155.8678, -16.0001}, {18.4752, 188.5, 16.0001}, 0.01);
  EXPECT_NEAR(facts.area, 6368.8, 0.02 * 6368.8);
  // One closed solid, faces sharing their edges' nodes: no open edge.
  EXPECT_EQ(facts.open_edges, 0);
  EXPECT_EQ(regions_named_like(mesh, "face "), 21);
}

TEST(Step, AssemblyKeepsItsProductsAndInstances) {
  SKIP_WITHOUT_OCCT();
  const Mesh mesh = step::read(step_file("as1-tu-203.stp"));
  validate(mesh);
  const SurfaceFacts facts = facts_of(mesh);
  // Gmsh: 160 surfaces, 18 volumes, box (-10, 0, -4)-(190, 150, 80), area 141079.
  EXPECT_EQ(facts.faces.size(), 160u);
  EXPECT_EQ(facts.solids.size(), 18u);
  expect_box(facts, {-10, 0, -4}, {190, 150, 80}, 0.2);
  EXPECT_NEAR(facts.area, 141079, 0.02 * 141079);
  EXPECT_EQ(facts.open_edges, 0);
  // Products by name (every instance in one region): the AS1 assembly's parts.
  std::set<std::string> names;
  for (const Region& region : mesh.regions)
    if (!region.name.starts_with("face ")) names.insert(region.name);
  EXPECT_EQ(names, (std::set<std::string>{"bolt", "l-bracket", "nut", "plate", "rod"}));
  EXPECT_EQ(regions_named_like(mesh, "face "), 160);
}

TEST(Step, CatiaCubeIsClosedWithOutwardNormals) {
  SKIP_WITHOUT_OCCT();
  const Mesh mesh = step::read(step_file("step_boundary_colors.stp"));
  const SurfaceFacts facts = facts_of(mesh);
  EXPECT_EQ(facts.faces.size(), 6u);
  expect_box(facts, {-50, -50, -50}, {50, 50, 50}, 1e-6);
  EXPECT_NEAR(facts.area, 60000, 1e-6 * 60000);
  EXPECT_EQ(facts.open_edges, 0);
  // Outward: the signed volume of the closed surface is the cube's, positive.
  const auto points = mesh.points.values<double>();
  const auto triangles = mesh.cells[0].connectivity.values<std::int64_t>();
  double volume = 0;
  for (std::size_t t = 0; t < triangles.size(); t += 3) {
    const double* a = &points[3 * triangles[t]];
    const double* b = &points[3 * triangles[t + 1]];
    const double* c = &points[3 * triangles[t + 2]];
    volume += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0])) / 6;
  }
  EXPECT_NEAR(volume, 1e6, 1e-6 * 1e6);
}

TEST(Step, FinerDeflectionGivesMoreTrianglesAndACloserArea) {
  SKIP_WITHOUT_OCCT();
  io::occt::TessellationOptions coarse, fine;
  coarse.linear_deflection = 1.0;
  coarse.angular_deflection = 1.0;
  fine.linear_deflection = 0.005;
  fine.angular_deflection = 0.1;
  const Mesh a = step::read(step_file("t20_data.step"), coarse);
  const Mesh b = step::read(step_file("t20_data.step"), fine);
  EXPECT_LT(a.cells[0].num_cells(), b.cells[0].num_cells());
  const double exact = 6368.8;
  EXPECT_LE(std::abs(facts_of(b).area - exact), std::abs(facts_of(a).area - exact) + 1e-9);
  io::occt::TessellationOptions relative;
  relative.relative = true;
  relative.linear_deflection = 0.01;
  EXPECT_GT(step::read(step_file("t20_data.step"), relative).cells[0].num_cells(), 0);
}

TEST(Step, BadOptionsAreReadErrors) {
  io::occt::TessellationOptions options;
  options.angular_deflection = 0;
  EXPECT_THROW(step::read(step_file("t20_data.step"), options), ReadError);
  options.angular_deflection = 0.5;
  options.linear_deflection = std::nan("");
  EXPECT_THROW(step::read(step_file("t20_data.step"), options), ReadError);
}

void expect_read_error(const std::string& path, std::string_view needle) {
  try {
    (void)step::read(path);
    FAIL() << "no ReadError for " << path;
  } catch (const ReadError& error) {
    EXPECT_EQ(error.path(), path);
    EXPECT_EQ(error.format(), "step");
    EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << error.what();
  }
}

TEST(Step, HostileInputIsAReadErrorNamingTheFile) {
  if (!io::occt::available()) {
    // Without OCCT every read names the library.
    expect_read_error(step_file("t20_data.step"), "OpenCASCADE");
    GTEST_SKIP() << "built without OpenCASCADE: only the missing-library error is checked";
  }
  const ScratchDir dir;
  const std::string whole = read_file(step_file("t20_data.step"));
  expect_read_error(dir.write("half.step", whole.substr(0, whole.size() / 2)), "");
  expect_read_error(dir.write("header_only.step", whole.substr(0, 400)), "");
  expect_read_error(dir.write("text.step", "this is not a STEP file\nat all\n"), "");
  expect_read_error(dir.write("empty.stp", ""), "");
  expect_read_error(dir.write("binary.step", std::string("\x00\xff\x13\x37ISO-10303-21;\x00\x01", 18)), "");
  expect_read_error((dir.path() / "missing.step").string(), "no such file");
  // OCCT's parser names the line where the text ends: it becomes the error's line.
  try {
    (void)step::read(dir.write("cut.step", whole.substr(0, 30000)));
    FAIL() << "no ReadError";
  } catch (const ReadError& error) {
    ASSERT_TRUE(error.line().has_value()) << error.what();
    EXPECT_GT(*error.line(), 600u);
  }
}

// A mutated copy of t20_data.step (a B-spline curve's control point names an entity of another
// type): OCCT 7.6 dereferences the null handle. The read survives it (io/occt's FaultScope: OCCT's
// own handlers for the read), leaves the caller's SIGSEGV handler as it was, and reads on after.
TEST(Step, AFaultInsideOpenCascadeIsSurvived) {
  SKIP_WITHOUT_OCCT();
  const std::string path = step_file("fault-bspline-point.step");
  struct sigaction before {}, after {};
  sigaction(SIGSEGV, nullptr, &before);
  try {
    validate(step::read(path));
  } catch (const ReadError& error) {
    EXPECT_EQ(error.path(), path);
  }
  sigaction(SIGSEGV, nullptr, &after);
  EXPECT_EQ(reinterpret_cast<void*>(before.sa_handler), reinterpret_cast<void*>(after.sa_handler));
  EXPECT_EQ(step::read(step_file("step_boundary_colors.stp")).points.rows(), 8);
}

TEST(Step, RegistryRowsClaimTheExtensions) {
  EXPECT_EQ(format_for_path("part.STEP")->name, "step");
  EXPECT_EQ(format_for_path("part.stp")->name, "step");
  EXPECT_EQ(format_for_path("part.igs")->name, "iges");
  EXPECT_EQ(format_for_path("part.iges")->name, "iges");
  EXPECT_EQ(format_by_name("step").write, nullptr);
}

}  // namespace
