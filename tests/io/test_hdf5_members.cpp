// The HDF5 floor's structure queries (src/cpp/io/hdf5/hdf5_file.*): members() lists a group's
// names with their kinds in one pass; kind() reads an object's type from its header; a dataset
// is opened without a lookup of its own, and a failed open still says "no such dataset"; a
// file is opened before its signature is checked, and a failed open still says which it was.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/hdf5/hdf5_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/ndarray.hpp"
#include "support/test_support.hpp"
#include "support/hdf5_skip.hpp"

namespace hdf5 = meshioplusplus::io::hdf5;
using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string structured_file(ScratchDir& dir) {
  const std::string path = dir.file("members.h5");
  hdf5::File file = hdf5::File::create(path, "test");
  file.write("/root/points", NDArray::from_values<double>({1.0, 2.0, 3.0}));
  file.write("/root/data/T", NDArray::from_values<std::int32_t>({4, 5}));
  file.create_group("/root/empty");
  file.commit_datatype("/root/tag_type", DType::int32, 3);
  file.set_attribute("/root", "Version", std::int64_t{2});
  file.commit();
  return path;
}

}  // namespace

TEST(Hdf5Members, ListNamesInOrderWithTheirKinds) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const hdf5::File file = hdf5::File::open(structured_file(dir), "test");
  const std::vector<hdf5::Member> members = file.members("/root");
  ASSERT_EQ(members.size(), 4u);
  const std::vector<std::string> names = file.children("/root");
  ASSERT_EQ(names.size(), members.size());
  for (std::size_t i = 0; i < members.size(); ++i) {
    EXPECT_EQ(members[i].name, names[i]) << "the order children() gives";
    EXPECT_EQ(members[i].kind, file.kind("/root/" + names[i])) << names[i];
  }
  EXPECT_EQ(members[0].name, "data");
  EXPECT_EQ(members[0].kind, hdf5::ObjectKind::group);
  EXPECT_EQ(members[1].kind, hdf5::ObjectKind::group);  // empty
  EXPECT_EQ(members[2].name, "points");
  EXPECT_EQ(members[2].kind, hdf5::ObjectKind::dataset);
  EXPECT_EQ(members[3].kind, hdf5::ObjectKind::named_datatype);
  EXPECT_TRUE(file.members("/root/empty").empty());
  ReadError not_group = expect_read_error([&] { file.members("/root/points"); });
  EXPECT_NE(not_group.reason().find("expected a group"), std::string::npos);
  ReadError missing = expect_read_error([&] { file.members("/nowhere"); });
  EXPECT_NE(missing.reason().find("/nowhere"), std::string::npos);
}

TEST(Hdf5Members, KindsAndAttributesOfMissingPaths) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const hdf5::File file = hdf5::File::open(structured_file(dir), "test");
  EXPECT_EQ(file.kind("/"), hdf5::ObjectKind::group);
  EXPECT_EQ(file.kind("root/data/T"), hdf5::ObjectKind::dataset);
  EXPECT_EQ(file.kind("/root/points/x"), hdf5::ObjectKind::missing) << "below a dataset";
  EXPECT_EQ(file.kind("/root/nothing/deeper"), hdf5::ObjectKind::missing) << "below a missing group";
  EXPECT_EQ(file.integer_attribute("/root", "Version"), 2);
  EXPECT_FALSE(file.has_attribute("/root", "Type"));
  EXPECT_FALSE(file.has_attribute("/nowhere/deep", "Version")) << "a missing object has no attributes";
  EXPECT_FALSE(file.integer_attribute("/nowhere", "Version").has_value());
  EXPECT_FALSE(file.string_attribute("/nowhere", "Type").has_value());
}

TEST(Hdf5Members, FailedOpensSayWhy) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = structured_file(dir);
  const hdf5::File file = hdf5::File::open(path, "test");
  for (const char* object : {"/root/nothing", "/root/data", "/root/tag_type", "/a/b/c"}) {
    ReadError error = expect_read_error([&] { file.read(object); });
    EXPECT_NE(error.reason().find(std::string("HDF5 object '") + object + "': no such dataset"), std::string::npos)
        << error.reason();
    expect_read_error([&] { file.dataset_info(object); });
    expect_read_error([&] { file.read_rows(object, 0, 1); });
  }
  EXPECT_EQ(file.read("/root/data/T").values<std::int32_t>()[1], 5);

  const std::string text = dir.write("text.h5", "this is not HDF5 at all, just text that is long enough");
  ReadError foreign = expect_read_error([&] { hdf5::File::open(text, "test"); });
  EXPECT_NE(foreign.reason().find("not an HDF5 file (no HDF5 signature)"), std::string::npos) << foreign.reason();
  EXPECT_EQ(foreign.reason().find("(HDF5:"), std::string::npos) << "no detail of the failed open: " << foreign.reason();
  // The signature and nothing after it: HDF5's own reason for the failed open is kept.
  const std::string bytes = read_file(path);
  const std::string cut = dir.write("cut.h5", std::string_view(bytes).substr(0, 16));
  ReadError damaged = expect_read_error([&] { hdf5::File::open(cut, "test"); });
  EXPECT_NE(damaged.reason().find("cannot open the HDF5 file (truncated or damaged) (HDF5: "), std::string::npos)
      << damaged.reason();
}
