// A numbered sequence of mesh files as a time series (include/meshioplusplus/file_sequence.hpp).
//
// Finding a sequence lists a folder once (a glob or a number field) or reads an index (.series,
// .pvd); nothing of the mesh files is opened then. read_step(k) reads file k through the
// registry (its format from the extension, or the one given) and keeps it, so read_mesh()
// afterwards gives that step's points, cells and regions without a second read — the mesh of
// a sequence may change from file to file.
#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <utility>

#include "formats/file_sequence/file_sequence_internal.hpp"
#include "formats/vtk_xml/vtk_xml.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/file_sequence.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus {
namespace {

namespace fs = std::filesystem;
constexpr const char* kName = "file sequence";

bool ends_with(std::string_view text, std::string_view tail) {
  return text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail;
}

struct Candidate {
  std::string key;  // what the wildcards or the number field matched
  std::string path;
};

// The regular files of `folder` whose names `accept` gives a key for.
template <class Accept>
std::vector<Candidate> list_folder(const std::string& source, const fs::path& folder, Accept accept) {
  std::vector<Candidate> found;
  std::error_code error;
  const fs::path where = folder.empty() ? fs::path(".") : folder;
  fs::directory_iterator entries(where, error);
  if (error) throw ReadError(source, kName, "cannot list the folder '" + where.string() + "': " + error.message());
  for (const fs::directory_entry& entry : entries) {
    std::error_code type_error;
    if (entry.is_directory(type_error)) continue;
    const std::string name = entry.path().filename().string();
    if (std::optional<std::string> key = accept(name)) found.push_back({std::move(*key), (folder / name).string()});
  }
  return found;
}

FileSequence from_glob(const std::string& source, const fs::path& folder, const std::string& pattern) {
  std::vector<Candidate> found =
      list_folder(source, folder, [&](const std::string& name) { return file_sequence::match_glob(pattern, name); });
  std::sort(found.begin(), found.end(), [](const Candidate& a, const Candidate& b) {
    if (a.key != b.key) return file_sequence::natural_less(a.key, b.key);
    return a.path < b.path;
  });
  FileSequence sequence;
  bool numbers = true;
  for (const Candidate& candidate : found) {
    sequence.files.push_back(candidate.path);
    const std::optional<double> time = file_sequence::parse_number(candidate.key);
    numbers = numbers && time.has_value();
    sequence.times.push_back(time.value_or(0.0));
  }
  if (!numbers)  // names that are no numbers: the steps are counted
    for (std::size_t k = 0; k < sequence.times.size(); ++k) sequence.times[k] = static_cast<double>(k);
  return sequence;
}

FileSequence from_number_field(const std::string& source, const fs::path& folder,
                               const file_sequence::NumberField& field) {
  std::vector<Candidate> found = list_folder(source, folder, [&](const std::string& name) -> std::optional<std::string> {
    if (name.size() <= field.prefix.size() + field.suffix.size()) return std::nullopt;
    if (!name.starts_with(field.prefix) || !ends_with(name, field.suffix)) return std::nullopt;
    const std::string digits = name.substr(field.prefix.size(), name.size() - field.prefix.size() - field.suffix.size());
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
    // `%04d` writes at least four digits: a shorter run, or a longer one with a leading zero,
    // is not one of its names.
    if (digits.size() < static_cast<std::size_t>(field.width)) return std::nullopt;
    if (digits.size() > static_cast<std::size_t>(std::max(field.width, 1)) && digits.front() == '0') return std::nullopt;
    return digits;
  });
  std::sort(found.begin(), found.end(),
            [](const Candidate& a, const Candidate& b) { return file_sequence::natural_less(a.key, b.key); });
  FileSequence sequence;
  for (const Candidate& candidate : found) {
    sequence.files.push_back(candidate.path);
    sequence.times.push_back(file_sequence::parse_number(candidate.key).value_or(0.0));
  }
  return sequence;
}

FileSequence from_pvd(const std::string& source) {
  std::map<double, std::vector<std::string>> files_at;
  for (const pvd::Step& entry : pvd::read_entries(source)) files_at[entry.time].push_back(entry.file);
  FileSequence sequence;
  for (auto& [time, files] : files_at) {
    if (files.size() > 1)
      throw ReadError(source, kName,
                      "several parts at one time step: a file sequence has one file per step "
                      "(read the collection with the pvd time-series reader, which joins the parts)");
    sequence.files.push_back(files.front());
    sequence.times.push_back(time);
  }
  return sequence;
}

// One step: its file read whole, kept until another step is read.
class SequenceReader final : public TimeSeriesReader {
 public:
  SequenceReader(FileSequence sequence, std::string_view format)
      : sequence_(std::move(sequence)), format_(format) {
    if (sequence_.files.empty()) throw ReadError("", kName, "the sequence has no file");
    if (sequence_.times.empty())
      for (std::size_t k = 0; k < sequence_.files.size(); ++k) sequence_.times.push_back(static_cast<double>(k));
    if (sequence_.times.size() != sequence_.files.size())
      throw ReadError(sequence_.files.front(), kName,
                      std::to_string(sequence_.times.size()) + " times for " + std::to_string(sequence_.files.size()) +
                          " files");
  }

  std::size_t num_steps() const override { return sequence_.files.size(); }
  double time(std::size_t step) const override { return sequence_.times.at(check(step)); }

  Mesh read_mesh() override {
    if (!loaded_) load(0);
    Mesh mesh;
    mesh.points = loaded_mesh_.points;
    mesh.cells = loaded_mesh_.cells;
    mesh.regions = loaded_mesh_.regions;
    return mesh;
  }

  TimeStep read_step(std::size_t step) override {
    check(step);
    if (!loaded_ || loaded_step_ != step) load(step);
    TimeStep result;
    result.time = sequence_.times[step];
    result.point_data = loaded_mesh_.point_data;
    result.cell_data = loaded_mesh_.cell_data;
    result.field_data = loaded_mesh_.field_data;
    return result;
  }

 private:
  std::size_t check(std::size_t step) const {
    if (step >= sequence_.files.size())
      throw ReadError(sequence_.files.front(), kName,
                      "step " + std::to_string(step) + " out of range (" + std::to_string(sequence_.files.size()) +
                          " files)");
    return step;
  }

  void load(std::size_t step) {
    loaded_ = false;
    loaded_mesh_ = read(sequence_.files[step], format_);
    loaded_step_ = step;
    loaded_ = true;
  }

  FileSequence sequence_;
  std::string format_;
  bool loaded_ = false;
  std::size_t loaded_step_ = 0;
  Mesh loaded_mesh_;
};

}  // namespace

FileSequence find_file_sequence(const std::string& source) {
  const fs::path path(source);
  const std::string name = path.filename().string();
  if (ends_with(name, ".pvd")) return from_pvd(source);
  if (ends_with(name, ".series")) return file_sequence::read_series_index(source);
  const std::string folder = path.parent_path().string();
  if (folder.find_first_of("*?") != std::string::npos)
    throw ReadError(source, kName, "wildcards are taken in the file name only, not in its folder");
  FileSequence sequence;
  std::string problem;
  if (name.find_first_of("*?") != std::string::npos) {
    sequence = from_glob(source, path.parent_path(), name);
  } else if (const auto field = file_sequence::parse_number_field(name, &problem)) {
    sequence = from_number_field(source, path.parent_path(), *field);
  } else {
    throw ReadError(source, kName,
                    problem.empty() ? "names no sequence: give a glob (out_*.vtu), a number field (out_%04d.vtu, "
                                      "out_{:04d}.vtu), a .series index or a .pvd"
                                    : problem);
  }
  if (sequence.files.empty()) throw ReadError(source, kName, "no file matches");
  return sequence;
}

std::unique_ptr<TimeSeriesReader> open_file_sequence(FileSequence sequence, std::string_view format) {
  return std::make_unique<SequenceReader>(std::move(sequence), format);
}

}  // namespace meshioplusplus
