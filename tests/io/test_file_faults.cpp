// File-level faults (docs/reliability.md): files that are not plain files, files truncated
// while they are read (the SIGBUS guard of io::MappedFile), long names and killed writers
// (io::AtomicFile's temporary files).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "io/output/atomic_file.hpp"
#include "io/source/mapped_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
namespace io = meshioplusplus::io;
namespace mpp = meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

// An OBJ file of `points` vertices and one face per three of them, a few hundred KiB and up.
std::string obj_text(int points) {
  std::string text;
  for (int i = 0; i < points; ++i)
    text += "v " + std::to_string(i) + ".5 " + std::to_string(i % 97) + ".25 " + std::to_string(i % 13) + "\n";
  for (int i = 0; i + 2 < points; i += 3)
    text += "f " + std::to_string(i + 1) + " " + std::to_string(i + 2) + " " + std::to_string(i + 3) + "\n";
  return text;
}

std::string reason_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const mpp::ReadError& error) {
    return error.what();
  }
  return "(no ReadError)";
}

// Restores the small-file limit and the hook whatever the test does.
struct MappingSettings {
  std::size_t previous = io::MappedFile::set_small_file_limit(0);  // map every non-empty file
  ~MappingSettings() {
    io::MappedFile::set_small_file_limit(previous);
    io::MappedFile::set_after_map_hook(nullptr);
  }
};

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  return names;
}

}  // namespace

TEST(FileFaults, FifoWithoutWriterIsRefusedAtOnce) {
  ScratchDir dir;
  const std::string path = dir.file("pipe.obj");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  auto outcome = std::async(std::launch::async, [&] { return reason_of([&] { mpp::read(path); }); });
  if (outcome.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    const int unblock = ::open(path.c_str(), O_WRONLY | O_NONBLOCK);  // let the blocked open return
    outcome.wait();
    if (unblock >= 0) ::close(unblock);
    FAIL() << "reading a FIFO with no writer blocked";
  }
  const std::string reason = outcome.get();
  EXPECT_NE(reason.find("not a regular file (a FIFO)"), std::string::npos) << reason;
  EXPECT_NE(reason.find("pipe.obj"), std::string::npos) << reason;
}

TEST(FileFaults, DirectoryIsADirectory) {
  ScratchDir dir;
  fs::create_directory(dir.path() / "folder.vtk");
  const std::string reason = reason_of([&] { mpp::read(dir.file("folder.vtk")); });
  EXPECT_NE(reason.find("is a directory"), std::string::npos) << reason;
}

TEST(FileFaults, DeviceIsRefused) {
  const std::string reason = reason_of([&] { io::MappedFile file("/dev/null", "test"); });
  EXPECT_NE(reason.find("not a regular file (a character device)"), std::string::npos) << reason;
}

TEST(FileFaults, SmallFilesAreCopiedLargeOnesMapped) {
  ScratchDir dir;
  const std::string small = dir.write("small.obj", obj_text(10));
  const io::MappedFile small_file(small, "obj");
  EXPECT_FALSE(small_file.is_mapped());
  EXPECT_EQ(small_file.bytes(), read_file(small));
  const std::string large = dir.write("large.bin", std::string(io::MappedFile::small_file_limit() + 10, 'x'));
  const io::MappedFile large_file(large, "obj");
  EXPECT_TRUE(large_file.is_mapped());
  EXPECT_EQ(large_file.bytes().size(), io::MappedFile::small_file_limit() + 10);
  EXPECT_FALSE(large_file.changed_while_read());
}

TEST(FileFaults, TruncatedMappingReadsZerosAndIsFlagged) {
  MappingSettings settings;
  ScratchDir dir;
  const std::string path = dir.write("data.bin", std::string(256 * 1024, 'x'));
  const io::MappedFile file(path, "test");
  ASSERT_TRUE(file.is_mapped());
  ASSERT_EQ(::truncate(path.c_str(), 5000), 0);  // another process shortens the file
  const std::string_view bytes = file.bytes();
  EXPECT_EQ(bytes[10], 'x');                 // still in the file
  EXPECT_EQ(bytes[200 * 1024], '\0');        // would have been SIGBUS
  EXPECT_EQ(bytes[bytes.size() - 1], '\0');
  EXPECT_TRUE(file.changed_while_read());
}

// The reader runs over the zero pages to its end; guarded_read turns the outcome into the
// truncation error, whatever the reader made of the zeros.
TEST(FileFaults, FileTruncatedDuringReadIsAReadError) {
  MappingSettings settings;
  ScratchDir dir;
  const std::string path = dir.write("shrinking.obj", obj_text(30000));
  io::MappedFile::set_after_map_hook([](const std::string& mapped) { ASSERT_EQ(::truncate(mapped.c_str(), 100), 0); });
  const std::string reason = reason_of([&] { mpp::read(path); });
  EXPECT_NE(reason.find("file changed size while being read"), std::string::npos) << reason;
  EXPECT_NE(reason.find("shrinking.obj"), std::string::npos) << reason;
  // The guard is per read: the next read of an intact file succeeds.
  io::MappedFile::set_after_map_hook(nullptr);
  dir.write("shrinking.obj", obj_text(30000));
  EXPECT_EQ(mpp::read(path).points.rows(), 30000);
}

// Large raw arrays are copied out of a mapped file with pread (MappedFile::copy_out), not
// through the mapping: the bytes are the file's, and a file that shrank is seen, not zeros.
TEST(FileFaults, CopyOutReadsTheFileAndSeesItShrink) {
  MappingSettings settings;
  ScratchDir dir;
  std::string bytes(3 << 20, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 131 + i / 4096);
  const std::string path = dir.write("data.bin", bytes);
  const io::MappedFile file(path, "test");
  ASSERT_TRUE(file.is_mapped());
  std::string out(2 << 20, '\0');
  ASSERT_TRUE(file.copy_out(12345, out.data(), out.size()));
  EXPECT_TRUE(out == bytes.substr(12345, out.size()));
  EXPECT_FALSE(file.copy_out(bytes.size() - 10, out.data(), 11));  // past the end
  ASSERT_EQ(::truncate(path.c_str(), 1 << 20), 0);                  // another process shortens it
  EXPECT_FALSE(file.copy_out(12345, out.data(), out.size()));
}

TEST(FileFaults, TruncatedRawAppendedArrayIsAReadError) {
  MappingSettings settings;
  ScratchDir dir;
  const std::string path = dir.file("raw.vtu");
  mpp::Mesh mesh;
  const std::int64_t n = 60000;  // 1.4 MB of points: copied out with pread
  std::vector<double> xyz(static_cast<std::size_t>(3 * n));
  for (std::size_t i = 0; i < xyz.size(); ++i) xyz[i] = 0.5 * static_cast<double>(i);
  mesh.points = array_of<double>({n, 3}, xyz);
  mesh.cells.push_back({"vertex", int64_matrix(1, 1, {0}), {}, {}});
  mpp::WriteOptions options;
  options.set("binary", "true");
  options.set("compression", "none");
  options.set("appended", "true");
  mpp::write(path, mesh, "vtu", options);
  EXPECT_EQ(mpp::read(path).points.rows(), n);  // intact: read as written
  io::MappedFile::set_after_map_hook([](const std::string& mapped) { ASSERT_EQ(::truncate(mapped.c_str(), 20000), 0); });
  const std::string reason = reason_of([&] { mpp::read(path); });
  EXPECT_NE(reason.find("file changed size while being read"), std::string::npos) << reason;
  EXPECT_NE(reason.find("raw.vtu"), std::string::npos) << reason;
}

// A second thread truncates and rewrites the file (non-atomically, as any plain writer does)
// while reads run: each read returns a mesh (the file as it was at that moment, possibly a
// prefix) or a ReadError, never a signal or another exception.
TEST(FileFaults, ConcurrentTruncationNeverKillsTheProcess) {
  MappingSettings settings;
  ScratchDir dir;
  const std::string path = dir.file("churn.obj");
  const std::string text = obj_text(60000);
  write_file(path, text);
  std::atomic<bool> stop{false};
  std::thread vandal([&] {
    while (!stop.load()) {
      ::truncate(path.c_str(), 0);
      std::this_thread::sleep_for(std::chrono::microseconds(300));
      write_file(path, text);
      std::this_thread::sleep_for(std::chrono::microseconds(700));
    }
  });
  int meshes = 0, read_errors = 0, other = 0;
  for (int i = 0; i < 60; ++i) {
    try {
      (void)mpp::read(path, "obj");
      ++meshes;
    } catch (const mpp::ReadError&) {
      ++read_errors;
    } catch (...) {
      ++other;
    }
  }
  stop = true;
  vandal.join();
  EXPECT_EQ(other, 0);
  EXPECT_EQ(meshes + read_errors, 60);
}

// SIGBUS that is not a fault in a guarded mapping still reaches the handler installed before.
TEST(FileFaults, ForeignSigbusGoesToThePreviousHandler) {
  ScratchDir dir;
  const std::string path = dir.write("data.bin", std::string(64 * 1024, 'x'));
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    struct sigaction action {};
    action.sa_handler = [](int) { ::_exit(42); };
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, nullptr);
    io::MappedFile::set_small_file_limit(0);
    io::MappedFile file(path, "test");  // installs the guard over the handler above
    ::raise(SIGBUS);
    ::_exit(1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "child ended by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 42);
}

// ---- writes ----------------------------------------------------------------------------

TEST(FileFaults, LongestLegalNameIsWritable) {
  ScratchDir dir;
  const std::string name = std::string(250, 'n') + ".txt";  // 254 bytes, NAME_MAX is 255
  const std::string path = dir.file(name);
  for (const char* contents : {"first", "second"}) {  // new file, then a replacement
    io::AtomicFile file(path, "test");
    file.write(contents);
    file.commit();
    EXPECT_EQ(read_file(path), contents);
  }
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{name});
}

TEST(FileFaults, KilledWriterLeavesOldFileAndNoTemporary) {
  ScratchDir dir;
  const std::string path = dir.write("keep.txt", "old contents");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    io::AtomicFile file(path, "test");
    file.write(std::string(1 << 20, 'n'));
    ::raise(SIGKILL);  // killed mid-write: no destructor runs
    ::_exit(1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(read_file(path), "old contents");
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"keep.txt"})
      << "a killed writer left a temporary file (no O_TMPFILE on this filesystem?)";
}

TEST(FileFaults, EmptyBinaryWriteIsFine) {
  ScratchDir dir;
  io::AtomicFile file(dir.file("empty.bin"), "test");
  io::OutputBuffer out(file);
  out.bytes(nullptr, 0);  // no memcpy from a null pointer (UBSan)
  out.flush();
  file.commit();
  EXPECT_EQ(read_file(dir.file("empty.bin")), "");
}
