// MED reader and writer: the Salome and code_aster files of the corpus (blocks and point sum
// from EXPECTED_meshio.tsv, families and groups, nodal/ELEM/ELNO fields), round trips with
// families from MED tags and from regions, multi-step fields, and malformed input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "formats/med/med.hpp"
#include "formats/med/med_test_files.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

// A row of EXPECTED_meshio.tsv, by its header: num_points, cell_blocks ("type:n;…"), sum_points.
struct MeshioRow {
  std::int64_t points = 0;
  std::string blocks;
  double point_sum = 0;
};

std::optional<MeshioRow> meshio_row(const std::string& file) {
  std::ifstream table(kCorpusDir / "EXPECTED_meshio.tsv");
  std::string line, header;
  std::getline(table, header);
  std::vector<std::string> names;
  {
    std::stringstream stream(header);
    std::string field;
    while (std::getline(stream, field, '\t')) names.push_back(field);
  }
  while (std::getline(table, line)) {
    if (!line.starts_with(file + "\t")) continue;
    std::vector<std::string> fields;
    std::stringstream stream(line);
    std::string field;
    while (std::getline(stream, field, '\t')) fields.push_back(field);
    MeshioRow row;
    for (std::size_t i = 0; i < names.size() && i < fields.size(); ++i) {
      if (names[i] == "num_points") row.points = std::stoll(fields[i]);
      if (names[i] == "cell_blocks") row.blocks = fields[i];
      if (names[i] == "sum_points" && !fields[i].empty()) row.point_sum = std::stod(fields[i]);
    }
    return row;
  }
  return std::nullopt;
}

std::string block_text(const Mesh& mesh) {
  std::string text;
  for (const CellBlock& cells : mesh.cells)
    text += (text.empty() ? "" : ";") + cells.type + ":" + std::to_string(cells.num_cells());
  return text;
}

TEST(MedCorpus, SalomeCylinderWithFamiliesAndGroups) {
  SKIP_WITHOUT_HDF5();
  SKIP_WITHOUT_CORPUS_FILE("med/cylinder.med");
  const Mesh mesh = med::read(corpus_file("med/cylinder.med"));
  if (const auto row = meshio_row("med/cylinder.med")) {
    EXPECT_EQ(row->points, mesh.num_points());
    if (!row->blocks.empty()) {
      EXPECT_EQ(row->blocks, block_text(mesh));
    }
    if (row->point_sum != 0) {
      EXPECT_NEAR(row->point_sum, point_sum(mesh), 1e-6);
    }
  }
  // Families: node family 3 is in the groups Side and Top (FAS/Cylinder/NOEUD/FAM_3_Side_Top).
  const auto* point_families = mesh.string_field_data.find("med:point_tags");
  ASSERT_NE(point_families, nullptr);
  EXPECT_NE(std::find(point_families->begin(), point_families->end(), "3\tSide\tTop"), point_families->end());
  const NDArray* tags = mesh.point_data.find("point_tags");
  ASSERT_NE(tags, nullptr);
  // The group "Top" holds exactly the nodes of families 3 and 4.
  const Region* top = find_region(mesh, "Top", RegionKind::Point);
  ASSERT_NE(top, nullptr);
  std::vector<std::int64_t> expected;
  const auto values = int_values(*tags);
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] == 3 || values[i] == 4) expected.push_back(static_cast<std::int64_t>(i));
  EXPECT_EQ(expected, int_values(top->entries));
  const Region* b = find_region(mesh, "B", RegionKind::Cell);
  ASSERT_NE(b, nullptr);
  EXPECT_GT(b->entries.rows(), 0);
  ASSERT_NE(mesh.cell_data.find("cell_tags"), nullptr);
}

TEST(MedCorpus, CodeAsterResultsWithNodalElemAndElnoFields) {
  SKIP_WITHOUT_HDF5();
  SKIP_WITHOUT_CORPUS_FILE("med/box.med");
  const Mesh mesh = med::read(corpus_file("med/box.med"));
  ASSERT_EQ(1u, mesh.cells.size());
  EXPECT_EQ("hexahedron", mesh.cells[0].type);
  const NDArray* displacement = mesh.point_data.find("resu____DEPL");
  ASSERT_NE(displacement, nullptr);
  EXPECT_EQ((Shape{8, 3}), displacement->shape());
  double sum = 0;
  for (double value : double_values(*displacement)) sum += value;
  EXPECT_NEAR(12.0, sum, 1e-9);  // the prescribed displacement: 1 on four nodes in x, y and z
  const auto* strain = mesh.cell_data.find("resu____EPSI_ELNO");
  ASSERT_NE(strain, nullptr);
  EXPECT_EQ((Shape{1, 8, 6}), (*strain)[0].shape());
  const auto* energy = mesh.cell_data.find("resu____ENEL_ELNO");
  ASSERT_NE(energy, nullptr);
  EXPECT_EQ((Shape{1, 8, 1}), (*energy)[0].shape());
  const auto* energy_elem = mesh.cell_data.find("resu____ENEL_ELEM");
  ASSERT_NE(energy_elem, nullptr);
  EXPECT_EQ((Shape{1}), (*energy_elem)[0].shape());
  // The element value is the mean of the node values (meshio's own check on this file).
  double mean = 0;
  for (double value : double_values((*energy)[0])) mean += value / 8;
  EXPECT_NEAR(mean, (*energy_elem)[0].data_as<double>()[0], 1e-9 * std::abs(mean));
  ASSERT_NE(find_region(mesh, "Left", RegionKind::Point), nullptr);
}

Mesh two_block_mesh() {
  Mesh mesh;
  mesh.points = array_of<double>({5, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1});
  mesh.cells.push_back({"tetra", int64_matrix(2, 4, {0, 1, 2, 3, 1, 2, 3, 4}), {}, {}});
  mesh.cells.push_back({"triangle", int64_matrix(1, 3, {0, 1, 2}), {}, {}});
  mesh.point_data.set("T", array_of<double>({5}, {1, 2, 3, 4, 5}));
  mesh.point_data.set("u", array_of<double>({5, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  std::vector<double> elno(2 * 4 * 3);
  for (std::size_t i = 0; i < elno.size(); ++i) elno[i] = static_cast<double>(i) / 4;
  mesh.cell_data.set("s", std::vector<NDArray>{array_of<double>({2, 4, 3}, elno), array_of<double>({1, 3, 3}, std::vector<double>(9, 1.0))});
  mesh.cell_data.set("p", std::vector<NDArray>{array_of<double>({2}, {5, 6}), array_of<double>({1}, {7})});
  Region fixed;
  fixed.name = "fixed";
  fixed.kind = RegionKind::Point;
  fixed.entries = int64_vector({0, 4});
  mesh.regions.push_back(std::move(fixed));
  Region top;
  top.name = "top";
  top.kind = RegionKind::Point;
  top.entries = int64_vector({4});
  mesh.regions.push_back(std::move(top));
  mesh.regions.push_back(cell_region("wall", 2, -1, {2}));
  return mesh;
}

TEST(MedRoundTrip, FieldsAndFamiliesFromRegions) {
  SKIP_WITHOUT_HDF5();
  const Mesh mesh = two_block_mesh();
  const std::string path = scratch("two_blocks.med").string();
  med::write(path, mesh, {});
  const Mesh read = med::read(path);
  ASSERT_EQ(2u, read.cells.size());
  // MED groups the blocks by type name: TE4 before TR3.
  EXPECT_EQ(nodes_of(mesh.cells[0]), nodes_of(read.cells[0]));
  EXPECT_EQ(nodes_of(mesh.cells[1]), nodes_of(read.cells[1]));
  EXPECT_EQ(double_values(mesh.points), double_values(read.points));
  EXPECT_EQ(double_values(*mesh.point_data.find("T")), double_values(*read.point_data.find("T")));
  EXPECT_EQ(mesh.point_data.find("u")->shape(), read.point_data.find("u")->shape());
  EXPECT_EQ(double_values(*mesh.point_data.find("u")), double_values(*read.point_data.find("u")));
  const auto& s = *read.cell_data.find("s");
  EXPECT_EQ((Shape{2, 4, 3}), s[0].shape());
  EXPECT_EQ(double_values(mesh.cell_data.find("s")->at(0)), double_values(s[0]));
  EXPECT_EQ(double_values(mesh.cell_data.find("p")->at(1)), double_values(read.cell_data.find("p")->at(1)));
  // Families were derived from the regions; the groups come back as the same regions.
  for (const char* name : {"fixed", "top"}) {
    const Region* original = find_region(mesh, name, RegionKind::Point);
    const Region* back = find_region(read, name, RegionKind::Point);
    ASSERT_NE(back, nullptr) << name;
    EXPECT_EQ(int_values(original->entries), int_values(back->entries)) << name;
  }
  const Region* wall = find_region(read, "wall", RegionKind::Cell);
  ASSERT_NE(wall, nullptr);
  EXPECT_EQ((std::vector<std::int64_t>{2}), int_values(wall->entries));
}

TEST(MedRoundTrip, CorpusFileKeepsTagsAndFamilyTables) {
  SKIP_WITHOUT_HDF5();
  SKIP_WITHOUT_CORPUS_FILE("med/cylinder.med");
  const Mesh mesh = med::read(corpus_file("med/cylinder.med"));
  const std::string path = scratch("cylinder.med").string();
  med::write(path, mesh, {});
  const Mesh read = med::read(path);
  EXPECT_EQ(block_text(mesh), block_text(read));
  EXPECT_EQ(int_values(*mesh.point_data.find("point_tags")), int_values(*read.point_data.find("point_tags")));
  EXPECT_EQ(*mesh.string_field_data.find("med:point_tags"), *read.string_field_data.find("med:point_tags"));
  EXPECT_EQ(*mesh.string_field_data.find("med:cell_tags"), *read.string_field_data.find("med:cell_tags"));
  for (std::size_t b = 0; b < mesh.cells.size(); ++b)
    EXPECT_EQ(int_values(mesh.cell_data.find("cell_tags")->at(b)), int_values(read.cell_data.find("cell_tags")->at(b)));
}

TEST(MedErrors, NameTheFileAndTheObjectPath) {
  SKIP_WITHOUT_HDF5();
  const std::string text = write_scratch("text.med", "not HDF5\n");
  ReadError error = expect_read_error([&] { med::read(text); });
  EXPECT_NE(std::string(error.what()).find("text.med"), std::string::npos) << error.what();

  Mesh mesh = two_block_mesh();
  const std::string path = scratch("bad.med").string();
  {
    io::hdf5::File file = io::hdf5::File::create(path, "med");
    write_two_point_mesh(file);
    file.create_group("/ENS_MAA/m/MAI");
    file.create_group("/ENS_MAA/m/MAI/SE2");
    file.write("/ENS_MAA/m/MAI/SE2/NOD", array_of<std::int32_t>({2}, {1, 3}));
    file.set_int32_attribute("/ENS_MAA/m/MAI/SE2/NOD", "NBR", 1);
    file.commit();
  }
  error = expect_read_error([&] { med::read(path); });
  EXPECT_NE(std::string(error.what()).find("/ENS_MAA/m/MAI/SE2/NOD"), std::string::npos) << error.what();

  // int64 node numbers at the limits: `number - 1` on INT64_MIN was signed overflow before the
  // range check (found by fuzzing the Exodus reader's twin loop); now a ReadError without UB.
  for (const std::int64_t number : {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}) {
    const std::string limits = scratch("limits.med").string();
    {
      io::hdf5::File file = io::hdf5::File::create(limits, "med");
      write_two_point_mesh(file);
      file.create_group("/ENS_MAA/m/MAI");
      file.create_group("/ENS_MAA/m/MAI/SE2");
      file.write("/ENS_MAA/m/MAI/SE2/NOD", array_of<std::int64_t>({2}, {1, number}));
      file.set_int32_attribute("/ENS_MAA/m/MAI/SE2/NOD", "NBR", 1);
      file.commit();
    }
    error = expect_read_error([&] { med::read(limits); });
    EXPECT_NE(std::string(error.what()).find(std::to_string(number)), std::string::npos) << error.what();
  }
}


// Fuzz finding (the CI's fuzz smoke, thirteenth session; tests/data/fuzz-regressions/med/):
// a field's NCO (components) and NGA (Gauss points) are claims of the file, and
// `NBR × NGA × NCO` overflowed for NCO = INT64_MAX. Each claim is now checked before its
// product: a ReadError naming the values' object, and an NGA × NCO array past the read limit
// is refused before anything is allocated.
TEST(MedErrors, GaussPointAndComponentClaimsAreCheckedBeforeTheirProduct) {
  SKIP_WITHOUT_HDF5();
  struct Case {
    std::int64_t components, gauss;
    const char* says;
  };
  int n = 0;
  for (const Case c : {Case{std::numeric_limits<std::int64_t>::max(), 8, "NGA × NCO"},
                       Case{std::int64_t{1} << 40, 1, "read limit"}, Case{3, 1, "holds 2 values"}}) {
    const std::string path = scratch("claims" + std::to_string(n++) + ".med").string();
    {
      io::hdf5::File file = io::hdf5::File::create(path, "med");
      write_two_point_mesh(file);
      file.create_group("/CHA");
      file.create_group("/CHA/f");
      file.set_attribute("/CHA/f", "NCO", c.components);
      file.create_group("/CHA/f/0000");
      file.create_group("/CHA/f/0000/NOE");
      file.set_attribute("/CHA/f/0000/NOE", "PFL", std::string_view("MED_NO_PROFILE_INTERNAL"));
      file.create_group("/CHA/f/0000/NOE/MED_NO_PROFILE_INTERNAL");
      file.set_attribute("/CHA/f/0000/NOE/MED_NO_PROFILE_INTERNAL", "NGA", c.gauss);
      file.set_attribute("/CHA/f/0000/NOE/MED_NO_PROFILE_INTERNAL", "NBR", std::int64_t{2});
      file.write("/CHA/f/0000/NOE/MED_NO_PROFILE_INTERNAL/CO", array_of<double>({2}, {1, 2}));
      file.commit();
    }
    const ReadError error = expect_read_error([&] { med::read(path); });
    EXPECT_NE(std::string(error.what()).find("/CHA/f/0000/NOE/MED_NO_PROFILE_INTERNAL"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find(c.says), std::string::npos) << error.what();
  }
}

}  // namespace

namespace {

TEST(MedRoundTrip, EmptyMesh) {
  SKIP_WITHOUT_HDF5();
  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float64, {0, 3});
  const std::string path = scratch("empty.med").string();
  med::write(path, mesh, {});
  const Mesh read = med::read(path);
  EXPECT_EQ((Shape{0, 3}), read.points.shape());
  EXPECT_TRUE(read.cells.empty());
}

}  // namespace
