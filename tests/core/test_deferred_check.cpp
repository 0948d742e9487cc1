// The node-index check that runs beside a write (core/deferred_check.hpp): a failing check
// fails the write with the message validate() gives, publishes no file and leaves an existing
// one as it was — whether the check ends before the writer commits or after, and on one core
// (where it runs before the write) as on several.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/deferred_check.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
namespace mpp = meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

// `cubes` tetrahedra over 4 * cubes points (each its own four nodes): large enough that the
// check of a bad last index is still running when a fast writer reaches its commit.
mpp::Mesh tetra_mesh(std::int64_t cubes) {
  mpp::Mesh mesh;
  std::vector<double> xyz;
  std::vector<std::int64_t> nodes;
  for (std::int64_t c = 0; c < cubes; ++c) {
    const double x = static_cast<double>(c);
    xyz.insert(xyz.end(), {x, 0, 0, x + 1, 0, 0, x, 1, 0, x, 0, 1});
    for (std::int64_t k = 0; k < 4; ++k) nodes.push_back(4 * c + k);
  }
  mesh.points = array_of<double>({4 * cubes, 3}, xyz);
  mesh.cells.push_back({"tetra", int64_matrix(cubes, 4, nodes), {}, {}});
  return mesh;
}

// The bytes a write left at `path`: the file's, or for formats that write a directory (an
// Elmer mesh) its files' names and bytes in name order.
std::string written_bytes(const fs::path& path) {
  if (!fs::is_directory(path)) return read_file(path);
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(path))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::string bytes;
  for (const fs::path& file : files) bytes += file.string() + "\n" + read_file(file);
  return bytes;
}

std::vector<std::string> names_in(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class ThreadCount {
 public:
  explicit ThreadCount(unsigned count) { mpp::set_thread_count(count); }
  ~ThreadCount() { mpp::set_thread_count(0); }
};

}  // namespace

TEST(DeferredCheck, FinishRethrowsTheChecksFailureOnce) {
  mpp::DeferredCheck check([] { throw std::invalid_argument("index 7 outside [0, 3)"); });
  EXPECT_THROW(mpp::finish_deferred_check(), std::invalid_argument);
  EXPECT_NO_THROW(mpp::finish_deferred_check());  // reported once
}

TEST(DeferredCheck, FinishWaitsForTheCheckAndNothingIsPendingAfterItsScope) {
  std::atomic<bool> done{false};
  {
    mpp::DeferredCheck check([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      done = true;
    });
    mpp::finish_deferred_check();
    EXPECT_TRUE(done.load());
  }
  EXPECT_NO_THROW(mpp::finish_deferred_check());
}

TEST(DeferredCheck, AnUnreportedFailureIsDroppedWhenTheWriteFailedFirst) {
  EXPECT_NO_THROW({ mpp::DeferredCheck check([] { throw std::invalid_argument("late"); }); });
  EXPECT_NO_THROW(mpp::finish_deferred_check());
}

// Every format whose writer checks indices beside the write, through the registry.
TEST(DeferredCheck, ABadIndexFailsTheWriteAndKeepsTheExistingFile) {
  int checked = 0;
  for (const unsigned threads : {2u, 1u}) {
    const ThreadCount thread_count(threads);
    for (const mpp::FormatInfo& format : mpp::registered_formats()) {
      if (!format.index_check_beside_write) continue;
      SCOPED_TRACE(std::string(format.name) + ", " + std::to_string(threads) + " thread(s)");
      const ScratchDir dir;
      const std::string path = dir.file("mesh." + std::string(format.name));
      const mpp::Mesh good = tetra_mesh(4);
      try {
        mpp::write(path, good, format.name);
      } catch (const mpp::WriteError& error) {
        // A build without the format's library says so; nothing else is expected here.
        EXPECT_NE(std::string(error.what()).find("needs"), std::string::npos) << error.what();
        continue;
      }
      ++checked;
      const std::vector<std::string> files_before = names_in(dir.path());
      const std::string bytes_before = written_bytes(path);
      for (const std::int64_t cubes : {std::int64_t{4}, std::int64_t{1} << 18}) {
        mpp::Mesh bad = tetra_mesh(cubes);
        // The last index, which the check reaches last, names a point past the end.
        bad.cells[0].connectivity.data_as<std::int64_t>()[4 * cubes - 1] = 4 * cubes;
        try {
          mpp::write(path, bad, format.name);
          ADD_FAILURE() << "no WriteError for " << cubes << " cells";
        } catch (const mpp::WriteError& error) {
          EXPECT_NE(std::string(error.what()).find("cells[0] (tetra) holds index " + std::to_string(4 * cubes) +
                                                   " outside [0, " + std::to_string(4 * cubes) + ")"),
                    std::string::npos)
              << error.what();
        }
        EXPECT_TRUE(written_bytes(path) == bytes_before) << "the existing file changed";
        EXPECT_EQ(names_in(dir.path()), files_before);  // no temporary and no new file left
      }
    }
  }
  EXPECT_GE(checked, 2);  // VTU at least, in every build, with two threads and with one
}
