// The HDF5 floor (src/cpp/io/hdf5_file.*): round trips in every dtype, hyperslab row reads,
// attributes, named types, the allocator hook, and the errors for missing objects, wrong
// shapes, truncated and foreign files.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "io/hdf5/hdf5_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/ndarray.hpp"
#include "support/test_support.hpp"
#include "support/hdf5_skip.hpp"

namespace hdf5 = meshioplusplus::io::hdf5;
namespace fs = std::filesystem;
using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

NDArray ramp(DType dtype, Shape shape) {
  NDArray array = NDArray::allocate(dtype, shape);
  visit_dtype(dtype, [&](auto zero) {
    using T = decltype(zero);
    auto values = array.values<T>();
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<T>((i * 7) % 100);
  });
  return array;
}

struct CountingPool {
  int allocations = 0;
};
void* counting_alloc(std::size_t bytes, void* user) {
  ++static_cast<CountingPool*>(user)->allocations;
  return ::operator new(bytes == 0 ? 1 : bytes);
}
void counting_free(void* pointer, std::size_t, void*) { ::operator delete(pointer); }

}  // namespace

TEST(Hdf5File, WithoutLibraryNamesIt) {
  if (hdf5::available()) GTEST_SKIP() << "this build has HDF5";
  const ReadError error = expect_read_error([] { hdf5::File::open("x.h5", "hmf"); });
  EXPECT_NE(std::string(error.what()).find("libhdf5-dev"), std::string::npos);
}

TEST(Hdf5File, RoundTripsEveryDtypeCompressedOrNot) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = dir.file("all.h5");
  const std::vector<DType> dtypes{DType::int8,   DType::int16,  DType::int32,   DType::int64,  DType::uint8,
                                  DType::uint16, DType::uint32, DType::uint64, DType::float32, DType::float64};
  {
    hdf5::File file = hdf5::File::create(path, "test");
    for (DType dtype : dtypes) {
      file.write("/plain/" + std::string(dtype_name(dtype)), ramp(dtype, {5, 3}));
      file.write("/gzip/" + std::string(dtype_name(dtype)), ramp(dtype, {5, 3}), {.gzip_level = 4});
    }
    file.write("/empty", NDArray::allocate(DType::float64, {0, 3}), {.gzip_level = 4});
    EXPECT_FALSE(fs::exists(path)) << "nothing replaces the target before commit()";
    file.commit();
  }
  hdf5::File file = hdf5::File::open(path, "test");
  EXPECT_EQ(file.children("/plain").size(), dtypes.size());
  for (DType dtype : dtypes)
    for (const char* group : {"/plain/", "/gzip/"}) {
      const std::string name = group + std::string(dtype_name(dtype));
      const hdf5::DatasetInfo info = file.dataset_info(name);
      EXPECT_EQ(info.dtype, dtype) << name;
      EXPECT_EQ(info.shape, (Shape{5, 3}));
      const NDArray back = file.read(name);
      EXPECT_TRUE(same_bits(back, ramp(dtype, {5, 3}))) << name;
    }
  const NDArray converted = file.read("/plain/int16", DType::float64);
  EXPECT_EQ(converted.dtype(), DType::float64);
  EXPECT_EQ(converted.values<double>()[4], 28.0);
  EXPECT_EQ(file.read("/empty").shape(), (Shape{0, 3}));
}

TEST(Hdf5File, ReadsRowRangesAsHyperslabs) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = dir.file("rows.h5");
  const NDArray full = ramp(DType::int64, {10, 4});
  {
    hdf5::File file = hdf5::File::create(path, "test");
    file.write("/a/b/data", full, {.gzip_level = 1});
    file.commit();
  }
  hdf5::File file = hdf5::File::open(path, "test");
  const NDArray rows = file.read_rows("a/b/data", 3, 4);
  ASSERT_EQ(rows.shape(), (Shape{4, 4}));
  for (std::int64_t i = 0; i < 16; ++i) EXPECT_EQ(rows.values<std::int64_t>()[i], full.values<std::int64_t>()[12 + i]);
  EXPECT_EQ(file.read_rows("/a/b/data", 10, 0).shape(), (Shape{0, 4}));
  const ReadError error = expect_read_error([&] { file.read_rows("/a/b/data", 8, 3); });
  EXPECT_NE(error.reason().find("/a/b/data"), std::string::npos);
}

TEST(Hdf5File, ArrayTypedElementsBecomeTrailingDimensions) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = dir.file("tags.h5");
  {
    hdf5::File file = hdf5::File::create(path, "test");
    file.write("/tag", ramp(DType::float64, {6, 3}), {.as_array_type = true});
    file.commit_datatype("/types/tag", DType::float64, 3);
    file.commit_enum_datatype("/elemtypes", {{"Edge", 1}, {"Tri", 2}});
    file.create_group("/elements/Tri3");
    file.set_enum_attribute("/elements/Tri3", "element_type", "/elemtypes", 2);
    file.commit();
  }
  hdf5::File file = hdf5::File::open(path, "test");
  EXPECT_EQ(file.dataset_info("/tag").shape, (Shape{6, 3}));
  EXPECT_TRUE(same_bits(file.read("/tag"), ramp(DType::float64, {6, 3})));
  EXPECT_EQ(file.kind("/types/tag"), hdf5::ObjectKind::named_datatype);
  EXPECT_EQ(file.integer_attribute("/elements/Tri3", "element_type"), 2);
}

TEST(Hdf5File, AttributesAndStrings) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = dir.file("attrs.h5");
  {
    hdf5::File file = hdf5::File::create(path, "test");
    file.create_group("/g");
    file.set_attribute("/", "type", std::string_view("hmf"));
    file.set_attribute("/g", "start_id", std::int64_t{42});
    file.set_attribute("/g", "max_id", std::uint64_t{7});
    file.set_attribute("/g", "time", 0.25);
    file.write_strings("/history", {"meshio++", "0.1", ""});
    file.commit();
  }
  hdf5::File file = hdf5::File::open(path, "test");
  EXPECT_EQ(file.string_attribute("/", "type"), "hmf");
  EXPECT_EQ(file.integer_attribute("/g", "start_id"), 42);
  EXPECT_EQ(file.integer_attribute("/g", "max_id"), 7);
  EXPECT_EQ(file.float_attribute("/g", "time"), 0.25);
  EXPECT_FALSE(file.string_attribute("/g", "absent"));
  EXPECT_EQ(file.attribute_names("/g").size(), 3u);
  EXPECT_EQ(file.read_strings("/history"), (std::vector<std::string>{"meshio++", "0.1", ""}));
}

TEST(Hdf5File, ArraysComeFromTheAllocatorHook) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = dir.file("hook.h5");
  {
    hdf5::File file = hdf5::File::create(path, "test");
    file.write("/x", ramp(DType::float32, {100, 3}));
    file.commit();
  }
  hdf5::File file = hdf5::File::open(path, "test");
  CountingPool pool;
  const BufferAllocator hook{counting_alloc, counting_free, &pool};
  set_buffer_allocator(&hook);
  NDArray whole = file.read("/x");
  NDArray rows = file.read_rows("/x", 10, 5);
  set_buffer_allocator(nullptr);
  EXPECT_EQ(pool.allocations, 2) << "one allocation per array, nothing staged through the hook";
  ASSERT_TRUE(whole.buffer()->allocator());
}

TEST(Hdf5File, ErrorsNameTheFileAndTheObject) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = dir.file("errors.h5");
  {
    hdf5::File file = hdf5::File::create(path, "test");
    file.write("/grid/points", ramp(DType::float64, {4, 3}));
    file.commit();
  }
  hdf5::File file = hdf5::File::open(path, "test");
  ReadError missing = expect_read_error([&] { file.read("/grid/cells"); });
  EXPECT_EQ(missing.path(), path);
  EXPECT_NE(missing.reason().find("/grid/cells"), std::string::npos);
  EXPECT_EQ(file.kind("/nowhere/deep/x"), hdf5::ObjectKind::missing);
  ReadError shape = expect_read_error([&] { file.expect_shape("/grid/points", file.dataset_info("/grid/points").shape, {-1, 2}); });
  EXPECT_NE(shape.reason().find("(4, 3)"), std::string::npos);
  ReadError group = expect_read_error([&] { file.read("/grid"); });
  EXPECT_NE(group.reason().find("/grid"), std::string::npos);

  ReadError absent = expect_read_error([&] { hdf5::File::open(dir.file("absent.h5"), "test"); });
  EXPECT_NE(absent.reason().find("no such"), std::string::npos);
  const std::string text = dir.write("text.h5", "this is not HDF5 at all, just text that is long enough");
  ReadError foreign = expect_read_error([&] { hdf5::File::open(text, "test"); });
  EXPECT_NE(foreign.reason().find("not an HDF5 file"), std::string::npos);
}

TEST(Hdf5File, TruncatedFilesAreReadErrors) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = dir.file("full.h5");
  {
    hdf5::File file = hdf5::File::create(path, "test");
    file.write("/big", ramp(DType::float64, {20000, 3}));
    file.write("/packed", ramp(DType::int32, {20000, 4}), {.gzip_level = 6});
    file.commit();
  }
  const std::string bytes = read_file(path);
  for (std::size_t keep : {bytes.size() / 2, bytes.size() - 100, std::size_t{3000}, std::size_t{600}}) {
    const std::string cut = dir.write("cut" + std::to_string(keep) + ".h5", std::string_view(bytes).substr(0, keep));
    expect_read_error([&] {
      hdf5::File file = hdf5::File::open(cut, "test");
      file.read("/big");
      file.read("/packed");
    });
  }
}

// Datasets of 4 MiB and more, contiguous, in native order and the dtype asked for, are read as
// raw bytes at H5Dget_offset on every core. Everything else about them must stay as HDF5 does
// it: row ranges, array types, stacking, conversions.
TEST(Hdf5File, LargeUncompressedDatasetsReadAsRawBytes) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = dir.file("large.h5");
  const NDArray points = ramp(DType::float64, {400000, 3});      // 9.6 MB
  const NDArray tagged = ramp(DType::int32, {300000, 4});        // 4.8 MB, as an array type
  const std::vector<NDArray> pieces{ramp(DType::int64, {150000, 2}), ramp(DType::int64, {1, 2}),
                                    ramp(DType::int64, {250001, 2})};  // 6.4 MB stacked
  {
    hdf5::File file = hdf5::File::create(path, "test");
    file.write("/points", points);
    file.write("/tagged", tagged, {.as_array_type = true});
    file.write_stacked("/stacked", pieces);
    file.commit();
  }
  // The large datasets' blocks were allocated before HDF5 wrote them: exactly where they lie,
  // none past the end of the file.
  EXPECT_LE(allocated_bytes(path), allocation_allowed(static_cast<std::int64_t>(fs::file_size(path))));
  hdf5::File file = hdf5::File::open(path, "test");
  EXPECT_TRUE(same_bits(file.read("/points"), points));
  EXPECT_EQ(file.dataset_info("/tagged").shape, (Shape{300000, 4}));
  EXPECT_TRUE(same_bits(file.read("/tagged"), tagged));
  const NDArray stacked = file.read("/stacked");
  ASSERT_EQ(stacked.shape(), (Shape{400002, 2}));
  const auto values = stacked.values<std::int64_t>();
  std::size_t at = 0;
  for (const NDArray& piece : pieces)
    for (std::int64_t value : piece.values<std::int64_t>()) ASSERT_EQ(values[at++], value) << at;
  // Rows from the middle, large enough for the raw path, and a small range (HDF5's path).
  const NDArray rows = file.read_rows("/points", 100001, 250000);
  ASSERT_EQ(rows.shape(), (Shape{250000, 3}));
  for (std::size_t i = 0; i < rows.size(); i += 997)
    ASSERT_EQ(rows.values<double>()[i], points.values<double>()[300003 + i]);
  EXPECT_EQ(file.read_rows("/points", 7, 2).values<double>()[0], points.values<double>()[21]);
  NDArray into = NDArray::allocate(DType::float64, {400000, 3});
  file.read_into("/points", into);
  EXPECT_TRUE(same_bits(into, points));
  // A conversion is HDF5's, not a raw copy.
  const NDArray widened = file.read("/tagged", DType::int64);
  EXPECT_EQ(widened.values<std::int64_t>()[13], tagged.values<std::int32_t>()[13]);
}

TEST(Hdf5File, FileCutAfterOpeningIsAReadErrorOnTheRawPath) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = dir.file("shrinks.h5");
  {
    hdf5::File file = hdf5::File::create(path, "test");
    file.write("/points", ramp(DType::float64, {400000, 3}));
    file.commit();
  }
  hdf5::File file = hdf5::File::open(path, "test");
  fs::resize_file(path, fs::file_size(path) / 2);  // another process truncates it meanwhile
  const ReadError error = expect_read_error([&] { file.read("/points"); });
  EXPECT_NE(error.reason().find("/points"), std::string::npos) << error.what();
  EXPECT_NE(error.reason().find("ends inside the dataset"), std::string::npos) << error.what();  // the raw read
}

TEST(Hdf5File, RawReadsComeFromTheFileOpenedEvenIfAnotherIsRenamedOverIt) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = dir.file("replaced.h5");
  const NDArray first = ramp(DType::float64, {400000, 3});
  NDArray second = ramp(DType::float64, {400000, 3});
  for (double& value : second.values<double>()) value = -value - 1;
  for (const auto& [target, data] : {std::pair<std::string, const NDArray*>{path, &first}, {dir.file("new.h5"), &second}}) {
    hdf5::File file = hdf5::File::create(target, "test");
    file.write("/points", *data);
    file.commit();
  }
  hdf5::File file = hdf5::File::open(path, "test");
  fs::rename(dir.file("new.h5"), path);  // an atomic rewrite by another process
  EXPECT_TRUE(same_bits(file.read("/points"), first));
}

TEST(Hdf5File, AbandonedWriteLeavesTheOldFile) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = dir.write("keep.h5", "old contents");
  {
    hdf5::File file = hdf5::File::create(path, "test");
    file.write("/x", ramp(DType::int32, {3}));
  }
  EXPECT_EQ(read_file(path), "old contents");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}
