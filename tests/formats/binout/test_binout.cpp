// LS-DYNA binout: lasso-python's SPH test model (LS-DYNA R7.1.2: glstat, matsum, rcforc,
// rwforc) and hostile symbol tables.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unistd.h>

#include "formats/binout/binout.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

namespace mpp = meshioplusplus;

namespace {

std::string data() { return (mpp::testing::test_data_dir() / "binout" / "binout").string(); }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string write_temp(const std::string& name, const std::string& bytes) {
  const auto path = std::filesystem::temp_directory_path() / ("mpp_binout_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}

template <class List> const auto& at(const List& list, std::string_view name) {
  const auto* found = list.find(name);
  if (!found) throw std::out_of_range(std::string(name));
  return *found;
}

template <class Fn> void expect_read_error(Fn&& read) {
  try {
    read();
  } catch (const mpp::ReadError& error) {
    EXPECT_EQ(error.format(), "binout");
    EXPECT_TRUE(error.byte_offset().has_value());
    return;
  }
  ADD_FAILURE() << "no ReadError";
}

}  // namespace

TEST(Binout, DatabasesAsFieldDataPerStep) {
  auto series = mpp::open_time_series(data());
  ASSERT_EQ(series->num_steps(), 88u);  // glstat, matsum and rwforc share their 88 output times
  EXPECT_EQ(series->time(0), 0.0);
  EXPECT_NEAR(series->time(87), 0.03478037, 1e-7);
  const mpp::Mesh mesh = series->read_mesh();
  EXPECT_EQ(mesh.num_points(), 0);
  EXPECT_EQ(at(mesh.field_data, "matsum/metadata/ids").size(), 2u);
  EXPECT_EQ(at(mesh.string_field_data, "glstat/metadata/title")[0], "SPH Unit Test");
  const mpp::TimeStep last = series->read_step(87);
  const mpp::NDArray& energy = at(last.field_data, "matsum/internal_energy");
  EXPECT_EQ(energy.dtype(), mpp::DType::float32);
  EXPECT_EQ(energy.size(), 2u);
  EXPECT_FLOAT_EQ(at(last.field_data, "glstat/time").data_as<float>()[0], static_cast<float>(series->time(87)));
  EXPECT_TRUE(last.field_data.contains("rwforc/forces/normal_force"));
  EXPECT_EQ(at(last.field_data, "glstat/cycle").dtype(), mpp::DType::int32);
  EXPECT_THROW(series->read_step(88), mpp::ReadError);
}

TEST(Binout, ReadGivesTheFirstStepAndTheFileNameIsKnown) {
  const mpp::Mesh mesh = mpp::read(data());
  EXPECT_EQ(at(mesh.field_data, "time").data_as<double>()[0], 0.0);
  EXPECT_TRUE(mesh.field_data.contains("glstat/kinetic_energy"));
  ASSERT_NE(mpp::format_for_path("run/binout0000"), nullptr);
  EXPECT_EQ(mpp::format_for_path("run/binout0000")->name, "binout");
  EXPECT_EQ(mpp::format_for_path("binout")->name, "binout");
  EXPECT_TRUE(mpp::binout::looks_like(slurp(data()).substr(0, 8)));
}

TEST(Binout, HostileInput) {
  const std::string bytes = slurp(data());
  // Cut: the variables' data runs past the end.
  expect_read_error([&] { mpp::read(write_temp("cut", bytes.substr(0, bytes.size() / 2)), "binout"); });
  // A bad header.
  std::string header = bytes;
  header[1] = 3;
  expect_read_error([&] { mpp::read(write_temp("header", header), "binout"); });
  // The first symbol table offset pointing at itself forms a loop only when tables chain back;
  // a table offset past the end is refused.
  std::string offset = bytes;
  const std::uint64_t far = bytes.size() * 4;
  std::memcpy(offset.data() + 8 + 9, &far, 8);
  expect_read_error([&] { mpp::read(write_temp("offset", offset), "binout"); });
  expect_read_error([&] { mpp::read(write_temp("tiny", bytes.substr(0, 5)), "binout"); });
  for (const char* name : {"cut", "header", "offset", "tiny"})
    std::filesystem::remove(std::filesystem::temp_directory_path() / ("mpp_binout_" + std::to_string(::getpid()) + "_" + name));
}

// A continuation file (LSDA's "<name>%001") is opened with the file named, and an error in it
// names the continuation, not the file the user passed.
TEST(Binout, ContinuationFilesAreJoinedAndTheirErrorsNamed) {
  const auto folder = std::filesystem::temp_directory_path() / ("mpp_binout_family_" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  const std::string first = (folder / "binout").string();
  std::filesystem::copy_file(data(), first, std::filesystem::copy_options::overwrite_existing);
  EXPECT_TRUE(mpp::binout::is_file_name(first + "%001"));
  EXPECT_TRUE(mpp::binout::is_file_name((folder / "binout0003%012").string()));
  EXPECT_FALSE(mpp::binout::is_file_name((folder / "binout%").string()));
  EXPECT_FALSE(mpp::binout::is_file_name((folder / "binout%1x").string()));

  // The same states again in the continuation: each replaces its earlier entry, the steps stay.
  std::filesystem::copy_file(data(), first + "%001", std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(mpp::open_time_series(first)->num_steps(), 88u);

  const std::string bytes = slurp(data());
  std::ofstream(first + "%001", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  try {
    mpp::open_time_series(first);
    ADD_FAILURE() << "no ReadError";
  } catch (const mpp::ReadError& error) {
    EXPECT_NE(std::string(error.what()).find("binout%001"), std::string::npos) << error.what();
    EXPECT_TRUE(error.byte_offset().has_value());
  }
  // "binout%1" (one digit) is not a continuation (lsda's glob needs two digits): ignored.
  std::filesystem::rename(first + "%001", first + "%1");
  EXPECT_EQ(mpp::open_time_series(first)->num_steps(), 88u);
  std::filesystem::remove_all(folder);
}
