// glTF reader and writer: Khronos and trimesh sample files (GLB, external .bin, data URIs,
// interleaved views, triangle strips, node hierarchies, instancing), every primitive mode,
// component types and normalisation, sparse accessors, transforms (normals by the inverse
// transpose, mirrors flipping winding), round trips through .gltf/.glb, and hostile input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/gltf/gltf.hpp"
#include "io/codecs/base64.hpp"
#include "io/geometry/node_transform.hpp"
#include "io/text/json.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data_file(const std::string& name) { return (meshioplusplus::testing::test_data_dir() / "gltf" / name).string(); }

template <class T> void append_values(std::string& bytes, std::initializer_list<T> values) {
  for (T value : values) bytes.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// A .gltf holding `body` (JSON members after "asset") and one buffer of `bytes` as a data URI.
std::string gltf_with_buffer(const std::string& name, const std::string& body, const std::string& bytes) {
  std::string uri;
  io::base64_encode_append(bytes.data(), bytes.size(), uri);
  const std::string json = "{\"asset\":{\"version\":\"2.0\"}," + body + ",\"buffers\":[{\"byteLength\":" +
                           std::to_string(bytes.size()) + ",\"uri\":\"data:application/octet-stream;base64," + uri + "\"}]}";
  return write_scratch(name, json);
}

// Five points on the x axis (x = 0..4) and a primitive of `mode` over them, no indices.
std::string five_points_with_mode(int mode) {
  std::string bytes;
  for (int i = 0; i < 5; ++i) append_values<float>(bytes, {static_cast<float>(i), 0.0f, 0.0f});
  return gltf_with_buffer("mode" + std::to_string(mode) + ".gltf",
                          "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"mode\":" + std::to_string(mode) +
                              "}]}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":5,\"type\":\"VEC3\"}],"
                              "\"bufferViews\":[{\"buffer\":0,\"byteLength\":60}]",
                          bytes);
}

double sum_of(const NDArray& array) {
  double sum = 0;
  visit_dtype(array.dtype(), [&](auto zero) {
    for (auto v : array.values<decltype(zero)>()) sum += static_cast<double>(v);
  });
  return sum;
}

}  // namespace

// ---- primitive modes -----------------------------------------------------------------------

TEST(Gltf, EveryPrimitiveMode) {
  const std::vector<std::pair<int, std::vector<std::int64_t>>> expected{
      {0, {0, 1, 2, 3, 4}},
      {1, {0, 1, 2, 3}},
      {2, {0, 1, 1, 2, 2, 3, 3, 4, 4, 0}},
      {3, {0, 1, 1, 2, 2, 3, 3, 4}},
      {4, {0, 1, 2}},
      // strip: the spec's alternation keeps every triangle's winding.
      {5, {0, 1, 2, 1, 3, 2, 2, 3, 4}},
      {6, {1, 2, 0, 2, 3, 0, 3, 4, 0}},
  };
  for (const auto& [mode, nodes] : expected) {
    const Mesh mesh = gltf::read(five_points_with_mode(mode));
    ASSERT_EQ(mesh.cells.size(), 1u) << mode;
    EXPECT_EQ(mesh.cells[0].type, mode == 0 ? "vertex" : mode <= 3 ? "line" : "triangle") << mode;
    EXPECT_EQ(nodes_of(mesh.cells[0]), nodes) << mode;
    ASSERT_EQ(mesh.regions.size(), 1u);
    EXPECT_EQ(mesh.regions[0].dim, mode == 0 ? 0 : mode <= 3 ? 1 : 2);
  }
}

// ---- accessors -----------------------------------------------------------------------------

TEST(Gltf, NormalizedComponentsStrideAndSparse) {
  // Three vertices interleaved: POSITION float VEC3 then COLOR_0 u8 VEC4 normalised, stride 16;
  // TEXCOORD_0 as normalised i16 and u16; a sparse accessor moving vertex 2.
  std::string bytes;
  const std::uint8_t colors[3][4] = {{255, 0, 0, 255}, {0, 51, 0, 255}, {0, 0, 255, 0}};
  for (int i = 0; i < 3; ++i) {
    append_values<float>(bytes, {static_cast<float>(i), static_cast<float>(i * i), 1.0f});
    bytes.append(reinterpret_cast<const char*>(colors[i]), 4);
  }                                                              // 48 bytes
  append_values<std::int16_t>(bytes, {32767, -32768, 0, 16384, -32767, 0});  // 12 bytes, offset 48
  append_values<std::uint32_t>(bytes, {2});                      // sparse index, offset 60
  append_values<float>(bytes, {7.0f, 8.0f, 9.0f});               // sparse value, offset 64
  const std::string path = gltf_with_buffer(
      "accessors.gltf",
      "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":3,\"COLOR_0\":1,\"TEXCOORD_0\":2}}]}],"
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
      "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5121,\"normalized\":true,\"count\":3,\"type\":\"VEC4\"},"
      "{\"bufferView\":1,\"componentType\":5122,\"normalized\":true,\"count\":3,\"type\":\"VEC2\"},"
      "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"sparse\":{\"count\":1,"
      "\"indices\":{\"bufferView\":2,\"componentType\":5125},\"values\":{\"bufferView\":3}}}],"
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":48,\"byteStride\":16},{\"buffer\":0,\"byteOffset\":48,\"byteLength\":12},"
      "{\"buffer\":0,\"byteOffset\":60,\"byteLength\":4},{\"buffer\":0,\"byteOffset\":64,\"byteLength\":12}]",
      bytes);
  const Mesh mesh = gltf::read(path);
  EXPECT_EQ(mesh.points.values<double>()[3], 1.0);
  EXPECT_EQ(std::vector<double>(mesh.points.values<double>().begin() + 6, mesh.points.values<double>().end()),
            (std::vector<double>{7, 8, 9}));
  const NDArray& color = *mesh.point_data.find("COLOR_0");
  EXPECT_EQ(color.dtype(), DType::float32);
  EXPECT_FLOAT_EQ(color.values<float>()[5], 51.0f / 255.0f);
  EXPECT_FLOAT_EQ(color.values<float>()[11], 0.0f);
  const NDArray& uv = *mesh.point_data.find("TEXCOORD_0");
  EXPECT_FLOAT_EQ(uv.values<float>()[0], 1.0f);
  EXPECT_FLOAT_EQ(uv.values<float>()[1], -1.0f);  // -32768 clamps to -1
  EXPECT_FLOAT_EQ(uv.values<float>()[3], 16384.0f / 32767.0f);
  EXPECT_FLOAT_EQ(uv.values<float>()[4], -1.0f);
  // Mode 4 over three vertices without indices: one triangle.
  EXPECT_EQ(nodes_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 1, 2}));
}

// ---- transforms and instancing ---------------------------------------------------------------

TEST(Gltf, HierarchyTransformsNormalsAndMirrors) {
  // One triangle with normals (0,0,1), placed twice: under a parent translated by (10,0,0) with
  // a child scaled (2,1,1); and mirrored by scale (-1,1,1).
  std::string bytes;
  append_values<float>(bytes, {0, 0, 0, 1, 0, 0, 0, 1, 0});
  append_values<float>(bytes, {1, 0, 1, 1, 0, 1, 1, 0, 1});  // NORMAL (not unit on purpose: x tilt)
  const std::string path = gltf_with_buffer(
      "scene.gltf",
      "\"scene\":0,\"scenes\":[{\"nodes\":[0,2]}],"
      "\"nodes\":[{\"name\":\"parent\",\"translation\":[10,0,0],\"children\":[1]},"
      "{\"name\":\"child\",\"scale\":[2,1,1],\"mesh\":0},{\"name\":\"mirror\",\"scale\":[-1,1,1],\"mesh\":0}],"
      "\"meshes\":[{\"name\":\"tri\",\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1}}]}],"
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
      "{\"bufferView\":0,\"byteOffset\":36,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":72}]",
      bytes);
  const Mesh mesh = gltf::read(path);
  ASSERT_EQ(mesh.num_points(), 6);
  const auto p = mesh.points.values<double>();
  EXPECT_EQ(std::vector<double>(p.begin(), p.begin() + 9), (std::vector<double>{10, 0, 0, 12, 0, 0, 10, 1, 0}));
  EXPECT_EQ(std::vector<double>(p.begin() + 9, p.end()), (std::vector<double>{0, 0, 0, -1, 0, 0, 0, 1, 0}));
  // Normal (1,0,1) under scale (2,1,1): inverse transpose gives (0.5,0,1), renormalised.
  const auto n = mesh.point_data.find("NORMAL")->values<float>();
  EXPECT_NEAR(n[0], 0.5 / std::sqrt(1.25), 1e-6);
  EXPECT_NEAR(n[2], 1.0 / std::sqrt(1.25), 1e-6);
  EXPECT_NEAR(n[9], -1.0 / std::sqrt(2.0), 1e-6);  // mirrored
  // The mirrored copy flips its winding to keep facing out.
  EXPECT_EQ(nodes_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 1, 2, 3, 5, 4}));
  ASSERT_EQ(mesh.regions.size(), 2u);
  EXPECT_EQ(mesh.regions[0].name, "child/tri");
  EXPECT_EQ(mesh.regions[1].name, "mirror/tri");

  const Mesh unique = gltf::read(path, gltf::ReadOptions{false});
  EXPECT_EQ(unique.num_points(), 3);
  EXPECT_EQ(unique.points.values<double>()[3], 1.0);
  EXPECT_EQ(unique.regions.at(0).name, "tri");
}

TEST(Gltf, NodeTransformHeader) {
  const double half = std::sqrt(0.5);
  // 90 degrees about z, then translate (1,2,3), scale 2.
  const io::Affine a = io::Affine::from_trs({1, 2, 3}, {0, 0, half, half}, {2, 2, 2});
  const double x[3] = {1, 0, 0};
  double y[3];
  a.apply_to_point(x, y);
  EXPECT_NEAR(y[0], 1, 1e-12);
  EXPECT_NEAR(y[1], 4, 1e-12);
  EXPECT_NEAR(y[2], 3, 1e-12);
  const io::Affine b = a * io::Affine::from_trs({0, 0, 0}, {0, 0, 0, 1}, {1, 1, -1});
  EXPECT_TRUE(b.mirrors_orientation());
  EXPECT_FALSE(a.mirrors_orientation());
}

// ---- real files ---------------------------------------------------------------------------

TEST(Gltf, KhronosAndTrimeshSamples) {
  struct Expected {
    const char* name;
    std::int64_t points, triangles;
    double point_sum;
  };
  // Counts and point sums as trimesh's and vtkGLTFReader's scene dumps give them (the interop
  // test checks them against both at run time).
  for (const Expected& e : std::vector<Expected>{{"cube.glb", 8, 12, 0.0},
                                                 {"BoxInterleaved.glb", 24, 12, 0.0},
                                                 {"BoxTextured.glb", 24, 12, 0.0},
                                                 {"Mesh_PrimitiveMode_04.gltf", 4, 2, 0.0},
                                                 {"cubevc.glb", 54, 48, 0.0},
                                                 {"rgb_cube_with_primitives.gltf", 24, 12, 0.0},
                                                 {"TestScene.gltf", 836, 1096, 862.9775},
                                                 {"nested.glb", 72, 36, -46.5857},
                                                 {"no_indices_3storybuilding.glb", 216, 72, 8830.0688},
                                                 {"CesiumMilkTruck.glb", 3564, 3624, 4898.409}}) {
    const Mesh mesh = gltf::read(data_file(e.name));
    EXPECT_EQ(mesh.num_points(), e.points) << e.name;
    ASSERT_EQ(mesh.cells.size(), 1u) << e.name;
    EXPECT_EQ(mesh.cells[0].type, "triangle") << e.name;
    EXPECT_EQ(mesh.cells[0].num_cells(), e.triangles) << e.name;
    EXPECT_NEAR(point_sum(mesh), e.point_sum, 1e-3) << e.name;
  }
  const Mesh textured = gltf::read(data_file("BoxTextured.glb"));
  EXPECT_TRUE(textured.point_data.contains("TEXCOORD_0"));
  EXPECT_TRUE(textured.point_data.contains("NORMAL"));
  const Mesh empty = gltf::read(data_file("empty_nodes.glb"));
  EXPECT_EQ(empty.num_points(), 0);
}

TEST(Gltf, TriangleStripsFromDataUris) {
  const Mesh mesh = gltf::read(unpacked(data_file("mode5.gltf.gz")));
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "triangle");
  EXPECT_EQ(mesh.cells[0].num_cells(), 2786);  // trimesh's count; strips decoded with the spec's alternation
  EXPECT_EQ(mesh.regions.size(), 412u);  // one per (node, mesh, primitive)
}

TEST(Gltf, InstancedTruck) {
  const Mesh mesh = gltf::read(data_file("CesiumMilkTruck.glb"));
  const Mesh unique = gltf::read(data_file("CesiumMilkTruck.glb"), gltf::ReadOptions{false});
  // The wheels mesh is placed by two nodes: the expanded scene has more points.
  EXPECT_GT(mesh.num_points(), unique.num_points());
  EXPECT_GT(mesh.regions.size(), unique.regions.size());
}

// ---- round trips --------------------------------------------------------------------------

TEST(Gltf, RoundTripGltfGlbAndEmbedded) {
  Mesh mesh;
  mesh.points = array_of<float>({5, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0.5f, 0.5f, 1});
  mesh.cells.push_back({"triangle", int64_matrix(2, 3, {0, 1, 4, 1, 2, 4}), {}, {}});
  mesh.cells.push_back({"line", int64_matrix(1, 2, {0, 3}), {}, {}});
  mesh.cells.push_back({"vertex", int64_matrix(1, 1, {4}), {}, {}});
  mesh.point_data.set("NORMAL", array_of<float>({5, 3}, {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}));
  mesh.point_data.set("TEXCOORD_0", array_of<float>({5, 2}, {0, 0, 1, 0, 1, 1, 0, 1, 0.5f, 0.5f}));
  mesh.point_data.set("temperature", array_of<double>({5}, {1, 2, 3, 4, 5}));
  for (const char* name : {"rt.gltf", "rt.glb", "rt_embedded.gltf"}) {
    const std::string path = scratch(name).string();
    WriteOptions options;
    if (std::string(name) == "rt_embedded.gltf") options.set("embed_buffers", "true");
    gltf::write(path, mesh, options);
    const Mesh back = gltf::read(path);
    ASSERT_EQ(back.num_points(), 5) << name;
    for (std::int64_t k = 0; k < 15; ++k) EXPECT_EQ(back.points.values<double>()[k], mesh.points.values<float>()[k]);
    ASSERT_EQ(back.cells.size(), 3u) << name;
    for (std::size_t b = 0; b < 3; ++b) EXPECT_EQ(nodes_of(back.cells[b]), nodes_of(mesh.cells[b])) << name;
    EXPECT_TRUE(same_bits(*back.point_data.find("NORMAL"), mesh.point_data.find("NORMAL")[0]));
    EXPECT_TRUE(same_bits(*back.point_data.find("TEXCOORD_0"), mesh.point_data.find("TEXCOORD_0")[0]));
    EXPECT_EQ(sum_of(*back.point_data.find("_temperature")), 15.0);
  }
  EXPECT_TRUE(fs::exists(scratch("rt.bin")));
  // A mesh and a node per block: the same cells, a region per node.
  WriteOptions per_block;
  per_block.set("mesh_per_block", "true");
  gltf::write(scratch("blocks.glb").string(), mesh, per_block);
  const Mesh blocks = gltf::read(scratch("blocks.glb").string());
  ASSERT_EQ(blocks.cells.size(), 3u);
  for (std::size_t b = 0; b < 3; ++b) EXPECT_EQ(nodes_of(blocks.cells[b]), nodes_of(mesh.cells[b]));
  ASSERT_EQ(blocks.regions.size(), 3u);
  EXPECT_EQ(blocks.regions[2].name, "node2/mesh2");
  EXPECT_EQ(blocks.num_points(), 5);
  // GLB chunks 4-byte aligned, the whole file's length in its header.
  const std::string glb = read_file(scratch("rt.glb"));
  std::uint32_t header[5];
  std::memcpy(header, glb.data(), sizeof header);
  EXPECT_EQ(header[2], glb.size());
  EXPECT_EQ(header[3] % 4, 0u);
  EXPECT_EQ(glb.size() % 4, 0u);
}

TEST(Gltf, WriterTriangulatesSurfacesAndRefusesVolumes) {
  Mesh mesh;
  mesh.points = array_of<double>({5, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1});
  mesh.cells.push_back({"quad", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}});
  CellBlock polygon{"polygon", int64_vector({0, 1, 2, 3, 4}), int64_vector({0, 5}), {}};
  mesh.cells.push_back(polygon);
  const std::string path = scratch("surface.glb").string();
  gltf::write(path, mesh, {});
  const Mesh back = gltf::read(path);
  ASSERT_EQ(back.cells.size(), 1u);
  EXPECT_EQ(nodes_of(back.cells[0]), (std::vector<std::int64_t>{0, 1, 2, 0, 2, 3, 0, 1, 2, 0, 2, 3, 0, 3, 4}));
  EXPECT_EQ(back.regions.size(), 2u);  // a primitive per block

  mesh.cells.push_back({"tetra", int64_matrix(1, 4, {0, 1, 2, 4}), {}, {}});
  try {
    gltf::write(path, mesh, {});
    ADD_FAILURE() << "no WriteError";
  } catch (const WriteError& error) {
    EXPECT_NE(std::string(error.what()).find("tetra"), std::string::npos);
  }
  EXPECT_EQ(gltf::read(path).cells[0].num_cells(), 5);  // the failed write left the old file
}

TEST(Gltf, PointCloudWithoutCells) {
  Mesh mesh;
  mesh.points = array_of<double>({3, 2}, {0, 0, 1, 0, 0, 1});  // 2-D: z = 0 in the file
  const std::string path = scratch("cloud.glb").string();
  gltf::write(path, mesh, {});
  const Mesh back = gltf::read(path);
  EXPECT_EQ(back.points.values<double>()[3], 1.0);
  EXPECT_EQ(back.points.values<double>()[5], 0.0);
  ASSERT_EQ(back.cells.size(), 1u);
  EXPECT_EQ(back.cells[0].type, "vertex");
  EXPECT_EQ(nodes_of(back.cells[0]), (std::vector<std::int64_t>{0, 1, 2}));
}

// ---- hostile input --------------------------------------------------------------------------

TEST(Gltf, HostileInput) {
  const auto message_of = [](const std::string& path) {
    return std::string(expect_read_error([&] { gltf::read(path); }).what());
  };
  std::string bytes(36, '\0');
  const std::string accessor = "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}]";
  const std::string mesh = "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}]";
  // A buffer view past its buffer names the view.
  EXPECT_NE(message_of(gltf_with_buffer("past.gltf", mesh + "," + accessor +
                                                         ",\"bufferViews\":[{\"buffer\":0,\"byteOffset\":8,\"byteLength\":36}]",
                                        bytes))
                .find("bufferViews[0]"),
            std::string::npos);
  // An accessor counting past its view.
  EXPECT_NE(message_of(gltf_with_buffer("count.gltf",
                                        mesh + ",\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,"
                                               "\"type\":\"VEC3\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}]",
                                        bytes))
                .find("accessors[0]"),
            std::string::npos);
  // Bad base64.
  EXPECT_NE(message_of(write_scratch("b64.gltf", "{\"asset\":{\"version\":\"2.0\"}," + mesh + "," + accessor +
                                                     ",\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],\"buffers\":[{"
                                                     "\"byteLength\":36,\"uri\":\"data:application/octet-stream;base64,AA*A\"}]}"))
                .find("base64"),
            std::string::npos);
  // Truncated JSON, a JSON that is not glTF, an index past the vertices, a node cycle.
  EXPECT_NE(message_of(write_scratch("cut.gltf", "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{")).find("JSON"),
            std::string::npos);
  expect_read_error([&] { gltf::read(write_scratch("notgltf.gltf", "[1,2,3]")); });
  expect_read_error([&] { gltf::read(write_scratch("empty.gltf", "")); });
  std::string indexed = bytes;
  append_values<std::uint16_t>(indexed, {0, 1, 7, 0});
  EXPECT_NE(message_of(gltf_with_buffer(
                           "index.gltf",
                           "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}]," + accessor.substr(0, accessor.size() - 1) +
                               ",{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}],"
                               "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":8}]",
                           indexed))
                .find("index 7"),
            std::string::npos);
  EXPECT_NE(message_of(gltf_with_buffer("cycle.gltf",
                                        "\"nodes\":[{\"children\":[1]},{\"children\":[0],\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]," +
                                            mesh + "," + accessor + ",\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}]",
                                        bytes))
                .find("cycle"),
            std::string::npos);
  EXPECT_NE(message_of(gltf_with_buffer("draco.gltf", "\"extensionsRequired\":[\"KHR_draco_mesh_compression\"]", bytes))
                .find("KHR_draco_mesh_compression"),
            std::string::npos);
  // A GLB whose header claims more bytes than the file has.
  std::string glb = read_file(data_file("cube.glb"));
  glb.resize(glb.size() - 10);
  EXPECT_NE(message_of(write_scratch("cut.glb", glb)).find("truncated"), std::string::npos);
  // JSON strictness.
  for (const char* text : {"{\"a\":[1,]}", "{\"a\":01}", "{\"a\":NaN}", "{\"a\":\"\\ud800\"}", "[[[[[[[[", "{} x"})
    expect_read_error([&] { io::parse_json(text, "x.json", "gltf"); });
  std::string deep(1000, '[');
  expect_read_error([&] { io::parse_json(deep, "x.json", "gltf"); });
  const io::JsonValue ok = io::parse_json("{\"s\":\"\\u00e9\\ud83d\\ude00\",\"n\":-1.5e3,\"i\":9007199254740993}", "x", "gltf");
  EXPECT_EQ(ok.find("s")->as_string(), "\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(ok.find("n")->as_double(), -1500.0);
  EXPECT_EQ(ok.find("i")->as_int64(), 9007199254740993);
}
