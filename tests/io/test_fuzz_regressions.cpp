// Replays every saved hostile input: tests/data/fuzz-regressions/<target>/<file>, where <target>
// is a fuzz target (tests/support/fuzz_targets.hpp) or a registry format name. Each file must
// read or raise ReadError — never crash, raise anything else, or take unbounded time. A file
// whose own name ends in an extension of that format is read in place (so files it names,
// e.g. an Abaqus *INCLUDE, are found beside it); any other file is written out exactly as the
// fuzz target writes its input. A collection target's inputs (pvtu, pvtp, vtm, pvd) are always
// written out so: as idx/input<extension> in the folder of piece files and hostile neighbours
// that its fuzzer reads them in (fuzzing::prepare_fuzz_directory), whatever the saved file's name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_data.hpp"
#include "support/fuzz_targets.hpp"
#include "support/test_support.hpp"
#if __has_include("meshioplusplus/limits.hpp")
#include "meshioplusplus/limits.hpp"
#define MESHIOPLUSPLUS_REPLAY_HAVE_LIMITS 1
#endif

namespace fs = std::filesystem;
namespace mpp = meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

const fs::path kRegressionRoot = meshioplusplus::testing::test_data_dir() / "fuzz-regressions";

struct SavedInput {
  std::string folder;  // target or format name
  fs::path file;
};

std::vector<SavedInput> saved_inputs() {
  std::vector<SavedInput> inputs;
  std::error_code error;
  if (!fs::is_directory(kRegressionRoot, error)) return inputs;
  for (const auto& folder : fs::directory_iterator(kRegressionRoot)) {
    if (!folder.is_directory()) continue;
    for (const auto& entry : fs::directory_iterator(folder.path())) {
      if (!entry.is_regular_file() || entry.path().extension() == ".md") continue;
      inputs.push_back({folder.path().filename().string(), entry.path()});
    }
  }
  std::sort(inputs.begin(), inputs.end(), [](const SavedInput& a, const SavedInput& b) { return a.file < b.file; });
  return inputs;
}

std::string test_name(const ::testing::TestParamInfo<SavedInput>& info) {
  std::string name = info.param.folder + "_" + info.param.file.filename().string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name + "_" + std::to_string(info.index);
}

// The fuzz target a folder names; a plain format name stands for a target reading its first extension.
mpp::fuzzing::FuzzTarget target_for_folder(const std::string& folder) {
  if (const mpp::fuzzing::FuzzTarget* target = mpp::fuzzing::find_fuzz_target(folder)) return *target;
  const mpp::FormatInfo& format = mpp::format_by_name(folder);  // throws for an unknown name
  return {format.name, format.name, format.extensions.empty() ? std::string_view() : format.extensions.front()};
}

class FuzzRegression : public ::testing::TestWithParam<SavedInput> {};

}  // namespace

TEST_P(FuzzRegression, ReadsOrRaisesReadError) {
  const SavedInput& input = GetParam();
  mpp::fuzzing::FuzzTarget target;
  ASSERT_NO_THROW(target = target_for_folder(input.folder))
      << "folder " << input.folder << " names neither a fuzz target nor a format";
  ScratchDir dir;
  std::string path = input.file.string();
  const mpp::FormatInfo* own = mpp::format_for_path(input.file.filename().string());
  if (mpp::fuzzing::is_collection_target(target) || own == nullptr || own->name != target.format) {
    const std::string stem = mpp::fuzzing::prepare_fuzz_directory(target, dir.path().string());
    path = mpp::fuzzing::materialize_fuzz_input(target, stem, read_file(input.file));
  }
#ifdef MESHIOPLUSPLUS_REPLAY_HAVE_LIMITS
  mpp::set_max_array_bytes(std::uint64_t{256} << 20);  // as under the fuzzer
#endif
  const auto start = std::chrono::steady_clock::now();
  try {
    (void)mpp::read(path, target.format);
  } catch (const mpp::ReadError& error) {
    EXPECT_NE(std::string(error.what()), "");
  } catch (const std::exception& error) {
    ADD_FAILURE() << "expected a Mesh or ReadError, got " << typeid(error).name() << ": " << error.what();
  } catch (...) {
    ADD_FAILURE() << "expected a Mesh or ReadError, got a non-standard exception";
  }
#ifdef MESHIOPLUSPLUS_REPLAY_HAVE_LIMITS
  mpp::set_max_array_bytes(0);
#endif
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Generous for sanitizer builds; the fuzzer's own per-input limit is 10 s.
  EXPECT_LT(seconds, 20.0) << input.file << " took " << seconds << " s";
}

INSTANTIATE_TEST_SUITE_P(Saved, FuzzRegression, ::testing::ValuesIn(saved_inputs()), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FuzzRegression);

// The piece files of the collection targets' folder must themselves read, or the fuzzer and
// the replay would only ever see piece errors.
TEST(FuzzCollectionFolder, PieceFilesRead) {
  const mpp::fuzzing::FuzzTarget* target = mpp::fuzzing::find_fuzz_target("vtm");
  ASSERT_NE(target, nullptr);
  ScratchDir dir;
  const std::string stem = mpp::fuzzing::prepare_fuzz_directory(*target, dir.path().string());
  const fs::path folder = fs::path(stem).parent_path();
  for (const char* name : {"piece.vtu", "other.vtu", "piece.vtp", "piece.vts", "piece.vti", "sub/piece.vtu",
                           "../outside.vtu", "link.vtu", "part.pvtu", "all.vtm", "steps.pvd"}) {
    SCOPED_TRACE(name);
    EXPECT_NO_THROW((void)mpp::read((folder / name).string()));
  }
  // The indexes naming the input back read when the input is a valid index without a cycle.
  (void)mpp::fuzzing::materialize_fuzz_input(*target, stem, read_file(folder / "all.vtm"));
  EXPECT_NO_THROW((void)mpp::read((folder / "back.vtm").string()));
  EXPECT_NO_THROW((void)mpp::read((folder / "cross.pvd").string()));
}

// Collections nested deeper than 16 (distinct files, each listing the next) end in a ReadError,
// as a cycle does; the fuzzer's folder cannot hold such a chain.
TEST(FuzzCollectionFolder, DeepNestingIsAReadError) {
  ScratchDir dir;
  write_file(dir.path() / "piece.vtu", mpp::fuzzing::kFixtureVtu);
  const auto chain = [&](int depth) {
    for (int n = 0; n < depth; ++n) {
      const std::string next = n + 1 < depth ? "a" + std::to_string(n + 1) + ".vtm" : "piece.vtu";
      write_file(dir.path() / ("a" + std::to_string(n) + ".vtm"),
                 "<?xml version=\"1.0\"?>\n<VTKFile type=\"vtkMultiBlockDataSet\" version=\"1.0\">"
                 "<vtkMultiBlockDataSet><DataSet index=\"0\" file=\"" + next +
                     "\"/></vtkMultiBlockDataSet></VTKFile>\n");
    }
    return dir.file("a0.vtm");
  };
  EXPECT_EQ(mpp::read(chain(16)).num_cells(), 2);
  try {
    (void)mpp::read(chain(17));
    ADD_FAILURE() << "17 nested collections read";
  } catch (const mpp::ReadError& error) {
    EXPECT_NE(std::string(error.what()).find("nested more than 16 deep"), std::string::npos) << error.what();
  }
}
