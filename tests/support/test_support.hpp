// Helpers shared by the GoogleTest suites: scratch directories and files, corpus paths,
// whole-file reads and writes, mesh summaries and ReadError capture. Header-only.
#pragma once

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/codecs/zlib_codec.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/threads.hpp"

namespace meshioplusplus::testing_support {

// ---- corpus ------------------------------------------------------------------------------

#ifdef MESHIOPLUSPLUS_CORPUS_DIR
inline const std::filesystem::path kCorpusDir = MESHIOPLUSPLUS_CORPUS_DIR;
#else
inline const std::filesystem::path kCorpusDir;
#endif

inline std::string corpus_file(const std::string& relative) { return (kCorpusDir / relative).string(); }

// Skips the current test when one corpus file is absent.
#define SKIP_WITHOUT_CORPUS_FILE(relative)                                                          \
  if (!::std::filesystem::exists(::meshioplusplus::testing_support::corpus_file(relative))) \
  GTEST_SKIP() << "corpus file " << relative << " absent: it comes with the project corpus ../shared/corpus " \
                   "(MANIFEST.tsv there names its public origin); tests/data/corpus holds only files <= 1 MB"

// Skips the current test when the corpus directory is absent.
#define SKIP_WITHOUT_CORPUS_DIR()                                                      \
  if (!::std::filesystem::is_directory(::meshioplusplus::testing_support::kCorpusDir)) \
  GTEST_SKIP() << "corpus directory " << ::meshioplusplus::testing_support::kCorpusDir << " is absent"

// ---- scratch space -----------------------------------------------------------------------

// "<suite>_<test>_<pid>": unique per process and test, so parallel ctest runs never share.
inline std::string test_scratch_name(const ::testing::TestInfo* info) {
  std::string name = info ? std::string(info->test_suite_name()) + "_" + info->name() : std::string("no_test");
  name += "_" + std::to_string(::getpid());
  std::replace(name.begin(), name.end(), '/', '_');
  return name;
}
inline std::string test_scratch_name() {
  return test_scratch_name(::testing::UnitTest::GetInstance()->current_test_info());
}

inline std::filesystem::path scratch_dir_of(const ::testing::TestInfo* info) {
  return std::filesystem::temp_directory_path() / ("meshioplusplus_" + test_scratch_name(info));
}

// The current test's scratch directory: temp/meshioplusplus_<suite>_<test>_<pid>. It lives
// until the test ends: removed when the test passed or was skipped, kept (and its path
// printed) when it failed, so the files behind a failure can be looked at.
inline std::filesystem::path scratch_dir() {
  const std::filesystem::path dir = scratch_dir_of(::testing::UnitTest::GetInstance()->current_test_info());
  std::filesystem::create_directories(dir);
  return dir;
}

// Removes each finished test's scratch directory (see scratch_dir). Registered once, before
// main, by the inline variable below: ctest runs every test in a process of its own, so
// without it each run of the suite left one directory per test in the temp folder.
class ScratchDirRemover : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo& info) override {
    const std::filesystem::path dir = scratch_dir_of(&info);
    std::error_code ignored;
    if (!std::filesystem::exists(dir, ignored)) return;
    if (info.result() != nullptr && info.result()->Failed()) {
      std::fprintf(stderr, "scratch files of the failed test kept in %s\n", dir.string().c_str());
      return;
    }
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ignored);
    std::filesystem::remove_all(dir, ignored);
  }
};
inline const bool kScratchDirRemoverRegistered = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new ScratchDirRemover);  // gtest owns it
  return true;
}();

// A path named `name` in the current test's scratch directory.
inline std::filesystem::path scratch(const std::string& name) { return scratch_dir() / name; }

// A fresh directory, removed (with its permissions restored first) when it goes.
class ScratchDir {
 public:
  ScratchDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("meshioplusplus_tmp_" + test_scratch_name() + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ignored);
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }
  // Writes `bytes` to `name` in this directory; returns the file's path.
  std::string write(const std::string& name, std::string_view bytes) const;

 private:
  std::filesystem::path path_;
};

// ---- whole files -------------------------------------------------------------------------

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Bytes of disk the file holds (st_blocks), delayed allocations included, or -1 if it cannot
// be stat'ed. With its size: a writer that allocated blocks ahead must not leave any past the
// end (io::reserve_file_range).
inline std::int64_t allocated_bytes(const std::filesystem::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return -1;
  return static_cast<std::int64_t>(info.st_blocks) * 512;
}

// The most a file of `size` bytes may hold on disk: whole 4 KiB blocks, plus 64 KiB of slack
// for filesystems with larger allocation units or metadata blocks counted in.
inline std::int64_t allocation_allowed(std::int64_t size) { return (size + 4095) / 4096 * 4096 + (64 << 10); }

// Writes `bytes` to `path` (truncating); returns the path.
inline std::string write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path.string();
}

inline std::string ScratchDir::write(const std::string& name, std::string_view bytes) const {
  return write_file(path_ / name, bytes);
}

// Writes `bytes` to `name` in the current test's scratch directory; returns the path.
// A real file shipped gzip-compressed to keep tests/data within its budget (`<name>.gz`),
// inflated into the current test's scratch directory as `<name>`; the inflated copy's path.
inline std::string unpacked(const std::filesystem::path& gz) {
  const std::string inflated = io::gunzip(read_file(gz), gz.string(), "test data");
  return write_file(scratch(gz.stem().string()), inflated);
}

inline std::string write_scratch(const std::string& name, std::string_view bytes) {
  return write_file(scratch(name), bytes);
}

// ---- mesh summaries ----------------------------------------------------------------------

inline double point_sum(const NDArray& points) {
  double sum = 0;
  visit_dtype(points.dtype(), [&](auto zero) {
    for (auto value : points.values<decltype(zero)>()) sum += static_cast<double>(value);
  });
  return sum;
}

inline double point_sum(const Mesh& mesh) { return point_sum(mesh.points); }

// "type:count;type:count" over the cell blocks in order.
inline std::string block_summary(const Mesh& mesh) {
  std::string text;
  for (const CellBlock& block : mesh.cells) {
    if (!text.empty()) text += ';';
    text += block.type + ":" + std::to_string(block.num_cells());
  }
  return text;
}

// ---- arrays and regions ------------------------------------------------------------------

template <class T> NDArray array_of(Shape shape, const std::vector<T>& values) {
  NDArray array = NDArray::allocate(dtype_of<T>(), std::move(shape));
  std::memcpy(array.data(), values.data(), values.size() * sizeof(T));
  return array;
}

// Same dtype, same shape, same bytes: what "bit-exact" means in the round-trip tests.
inline bool same_bits(const NDArray& a, const NDArray& b) {
  // No memcmp of empty arrays: their data may be null, which memcmp must never be given.
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         (a.nbytes() == 0 || std::memcmp(a.data(), b.data(), a.nbytes()) == 0);
}

// `read()` made with `threads` threads (0: the default), the default restored after, also when
// it throws: the 1-vs-2-thread identity tests of the parallel readers.
template <class Read> auto read_at_threads(unsigned threads, Read&& read) -> decltype(read()) {
  struct RestoreDefault {
    ~RestoreDefault() { set_thread_count(0); }
  } restore;
  set_thread_count(threads);
  return read();
}

// Two reads the same bit for bit: points, every block (type, connectivity, offsets), point,
// cell and field data, regions (name and entries).
inline void expect_same_bits(const Mesh& a, const Mesh& b) {
  EXPECT_TRUE(same_bits(a.points, b.points));
  ASSERT_EQ(a.cells.size(), b.cells.size());
  for (std::size_t i = 0; i < a.cells.size(); ++i) {
    EXPECT_EQ(a.cells[i].type, b.cells[i].type) << "block " << i;
    EXPECT_TRUE(same_bits(a.cells[i].connectivity, b.cells[i].connectivity)) << "block " << i;
    EXPECT_TRUE(same_bits(a.cells[i].offsets, b.cells[i].offsets)) << "block " << i;
  }
  ASSERT_EQ(a.point_data.size(), b.point_data.size());
  for (const auto& [name, array] : a.point_data) {
    ASSERT_NE(b.point_data.find(name), nullptr) << name;
    EXPECT_TRUE(same_bits(*b.point_data.find(name), array)) << name;
  }
  ASSERT_EQ(a.field_data.size(), b.field_data.size());
  for (const auto& [name, array] : a.field_data) {
    ASSERT_NE(b.field_data.find(name), nullptr) << name;
    EXPECT_TRUE(same_bits(*b.field_data.find(name), array)) << name;
  }
  ASSERT_EQ(a.cell_data.size(), b.cell_data.size());
  for (const auto& [name, arrays] : a.cell_data) {
    ASSERT_NE(b.cell_data.find(name), nullptr) << name;
    ASSERT_EQ(b.cell_data.find(name)->size(), arrays.size()) << name;
    for (std::size_t i = 0; i < arrays.size(); ++i) EXPECT_TRUE(same_bits((*b.cell_data.find(name))[i], arrays[i])) << name;
  }
  ASSERT_EQ(a.regions.size(), b.regions.size());
  for (std::size_t r = 0; r < a.regions.size(); ++r) {
    EXPECT_EQ(a.regions[r].name, b.regions[r].name);
    EXPECT_TRUE(same_bits(a.regions[r].entries, b.regions[r].entries)) << a.regions[r].name;
  }
}

// The values of an array of any dtype, as int64.
inline std::vector<std::int64_t> int_values(const NDArray& array) {
  std::vector<std::int64_t> out;
  visit_dtype(array.dtype(), [&](auto zero) {
    for (auto value : array.values<decltype(zero)>()) out.push_back(static_cast<std::int64_t>(value));
  });
  return out;
}

inline std::vector<std::int64_t> nodes_of(const CellBlock& block) { return int_values(block.connectivity); }

// The first region named `name` (of `kind`, when given); nullptr when there is none.
inline const Region* find_region(const Mesh& mesh, const std::string& name, std::optional<RegionKind> kind = std::nullopt) {
  for (const Region& region : mesh.regions)
    if (region.name == name && (!kind || region.kind == *kind)) return &region;
  return nullptr;
}

inline NDArray int64_matrix(std::int64_t rows, std::int64_t cols, const std::vector<std::int64_t>& data) {
  NDArray array = NDArray::allocate(DType::int64, {rows, cols});
  std::copy(data.begin(), data.end(), array.data_as<std::int64_t>());
  return array;
}

inline NDArray int64_vector(const std::vector<std::int64_t>& data) {
  NDArray array = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(data.size())});
  std::copy(data.begin(), data.end(), array.data_as<std::int64_t>());
  return array;
}

inline Region cell_region(const std::string& name, int dim, std::int64_t tag, const std::vector<std::int64_t>& cells) {
  Region region;
  region.name = name;
  region.kind = RegionKind::Cell;
  region.dim = dim;
  region.tag = tag;
  region.entries = int64_vector(cells);
  return region;
}

// ---- errors ------------------------------------------------------------------------------

// Runs `fn`, which must throw a ReadError, and returns that error.
template <class Fn> ReadError expect_read_error(Fn&& fn) {
  try {
    fn();
  } catch (const ReadError& error) {
    return error;
  }
  ADD_FAILURE() << "no ReadError";
  return ReadError("", "", "");
}

}  // namespace meshioplusplus::testing_support
