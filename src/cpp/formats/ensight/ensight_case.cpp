// The EnSight Gold case file: FORMAT, GEOMETRY, VARIABLE, TIME and FILE sections
// (ensight_internal.hpp: CaseFile), and the file of an entry at a step (wildcards).
#include <charconv>
#include <filesystem>

#include "formats/ensight/ensight_internal.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::ensight {
namespace {

std::vector<std::string> tokens_of(std::string_view text) {
  std::vector<std::string> tokens;
  std::size_t k = 0;
  while (k < text.size()) {
    while (k < text.size() && (text[k] == ' ' || text[k] == '\t')) ++k;
    if (k >= text.size()) break;
    std::size_t end = k;
    if (text[k] == '"') {  // a quoted file name may hold spaces
      end = text.find('"', k + 1);
      if (end == std::string_view::npos) end = text.size();
      tokens.emplace_back(text.substr(k + 1, end - k - 1));
      k = end + 1;
      continue;
    }
    while (end < text.size() && text[end] != ' ' && text[end] != '\t') ++end;
    tokens.emplace_back(text.substr(k, end - k));
    k = end;
  }
  return tokens;
}

std::optional<std::int64_t> as_int(std::string_view text) {
  std::int64_t value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> as_double(std::string_view text) {
  double value = 0;
  const char* first = text.data() + (!text.empty() && text.front() == '+' ? 1 : 0);
  const auto result = std::from_chars(first, text.data() + text.size(), value);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

struct Line {
  std::string key;    // before the first ':' (lower case kept as written)
  std::string value;  // after it
  std::uint64_t number = 0;
};

bool is_section(std::string_view key) {
  return key == "FORMAT" || key == "GEOMETRY" || key == "VARIABLE" || key == "TIME" || key == "FILE" ||
         key == "MATERIAL" || key == "BLOCK_CONTINUATION" || key == "SCRIPTS";
}

class CaseParser {
 public:
  explicit CaseParser(const std::string& path) : path_(path), file_(path, kFormat) {
    const std::string_view text = file_.bytes();
    std::uint64_t number = 0;
    for (std::size_t at = 0; at < text.size();) {
      std::size_t end = text.find('\n', at);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(at, end - at);
      at = end + 1;
      ++number;
      if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
      while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
      if (line.empty()) continue;
      const std::size_t colon = line.find(':');
      Line entry;
      entry.number = number;
      entry.key = std::string(colon == std::string_view::npos ? line : line.substr(0, colon));
      while (!entry.key.empty() && entry.key.back() == ' ') entry.key.pop_back();
      if (colon != std::string_view::npos) entry.value = std::string(line.substr(colon + 1));
      lines_.push_back(std::move(entry));
    }
  }

  CaseFile parse() {
    CaseFile result;
    result.path = path_;
    result.folder = std::filesystem::path(path_).parent_path().string();
    std::string section;
    bool gold = false;
    for (std::size_t k = 0; k < lines_.size(); ++k) {
      const Line& line = lines_[k];
      if (line.value.empty() && is_section(line.key)) {
        section = line.key;
        continue;
      }
      if (section == "FORMAT") {
        if (line.key == "type") {
          const auto words = tokens_of(line.value);
          gold = words.size() >= 2 && words[0] == "ensight" && words[1] == "gold";
          if (!gold) fail(line, "type '" + line.value + "': only EnSight Gold is read (EnSight 6 files are not)");
        }
      } else if (section == "GEOMETRY") {
        if (line.key == "model") {
          std::vector<std::string> words = tokens_of(line.value);
          if (!words.empty() && words.back() == "change_coords_only") {
            result.change_coords_only = true;
            words.pop_back();
          } else if (words.size() >= 2 && words[words.size() - 2] == "change_coords_only") {
            result.change_coords_only = true;
            words.erase(words.end() - 2, words.end());
          }
          result.geometry = entry_of(line, words, 0);
        } else {
          result.skipped.push_back(line.key);  // measured, match, boundary, rigid_body …
        }
      } else if (section == "VARIABLE") {
        parse_variable(line, result);
      } else if (section == "TIME") {
        k = parse_time_set(k, result);
      } else if (section == "FILE") {
        k = parse_file_set(k, result);
      }
    }
    if (!gold) throw ReadError(path_, kFormat, "no FORMAT section with 'type: ensight gold'");
    if (result.geometry.file.empty()) throw ReadError(path_, kFormat, "no GEOMETRY 'model:' file");
    return result;
  }

 private:
  [[noreturn]] void fail(const Line& line, const std::string& message) const {
    throw ReadError(path_, kFormat, message, std::nullopt, line.number);
  }

  // `[ts] [fs] name…` with `names` trailing words (the variable's description, then the file).
  CaseEntry entry_of(const Line& line, const std::vector<std::string>& words, std::size_t descriptions,
                     std::string* description = nullptr) {
    const std::size_t needed = 1 + descriptions;
    if (words.size() < needed) fail(line, "'" + line.key + ":' needs a file name");
    const std::size_t numbers = words.size() - needed;
    if (numbers > 2) fail(line, "'" + line.key + ":' has more words than [time set] [file set] " +
                                    (descriptions ? "description " : "") + "file");
    CaseEntry entry;
    for (std::size_t k = 0; k < numbers; ++k) {
      const auto number = as_int(words[k]);
      if (!number) fail(line, "'" + words[k] + "' is no time or file set number");
      (k == 0 ? entry.time_set : entry.file_set) = static_cast<int>(*number);
    }
    if (description) *description = words[numbers];
    entry.file = words.back();
    return entry;
  }

  void parse_variable(const Line& line, CaseFile& result) {
    const std::vector<std::string> words = tokens_of(line.value);
    if (line.key == "constant per case") {
      CaseConstant constant;
      std::size_t k = 0;
      if (words.size() >= 3 && as_int(words[0])) constant.time_set = static_cast<int>(*as_int(words[k++]));
      if (k >= words.size()) fail(line, "'constant per case:' needs a description and a value");
      constant.name = words[k++];
      for (; k < words.size(); ++k) {
        const auto value = as_double(words[k]);
        if (!value) fail(line, "'" + words[k] + "' is no number");
        constant.values.push_back(*value);
      }
      if (constant.values.empty()) fail(line, "'constant per case:' needs a value");
      result.constants.push_back(std::move(constant));
      return;
    }
    static const std::pair<std::string_view, VariableKind> kKinds[] = {{"scalar", VariableKind::scalar},
                                                                       {"vector", VariableKind::vector},
                                                                       {"tensor symm", VariableKind::tensor_symm},
                                                                       {"tensor asym", VariableKind::tensor_asym}};
    for (const auto& [kind_name, kind] : kKinds)
      for (const auto& [site_name, site] : {std::pair<std::string_view, VariableSite>{" per node", VariableSite::node},
                                            {" per element", VariableSite::element}})
        if (line.key == std::string(kind_name) + std::string(site_name)) {
          CaseVariable variable;
          variable.kind = kind;
          variable.site = site;
          variable.entry = entry_of(line, words, 1, &variable.name);
          result.variables.push_back(std::move(variable));
          return;
        }
    result.skipped.push_back(line.key);  // complex, per measured node, constant per part …
  }

  // Reads numbers of `count` over the following lines (they may wrap), starting with the
  // rest of lines_[k].value; returns the index of the last line used.
  template <class T, class Parse>
  std::size_t numbers_over_lines(std::size_t k, std::int64_t count, std::vector<T>& out, Parse parse) {
    const Line& first = lines_[k];
    io::check_claim_fits_file(path_, kFormat, "time values", static_cast<std::uint64_t>(std::max<std::int64_t>(count, 0)),
                              2, file_.bytes().size(), {std::nullopt, first.number});
    for (const std::string& word : tokens_of(first.value)) {
      const auto value = parse(word);
      if (!value) fail(first, "'" + word + "' is no number");
      out.push_back(*value);
    }
    while (static_cast<std::int64_t>(out.size()) < count && k + 1 < lines_.size() && lines_[k + 1].value.empty()) {
      const Line& next = lines_[++k];
      for (const std::string& word : tokens_of(next.key)) {
        const auto value = parse(word);
        if (!value) fail(next, "'" + word + "' is no number");
        out.push_back(*value);
      }
    }
    if (static_cast<std::int64_t>(out.size()) != count)
      fail(first, std::to_string(out.size()) + " values where 'number of steps' says " + std::to_string(count));
    return k;
  }

  std::size_t parse_time_set(std::size_t k, CaseFile& result) {
    const Line& head = lines_[k];
    int number = 1;
    if (head.key == "time set") {
      const auto words = tokens_of(head.value);
      if (words.empty() || !as_int(words[0])) fail(head, "'time set:' needs a number");
      number = static_cast<int>(*as_int(words[0]));
      ++k;
    }
    TimeSet set;
    std::int64_t steps = -1, start = 0, increment = 1;
    bool numbers_listed = false;
    for (; k < lines_.size(); ++k) {
      const Line& line = lines_[k];
      const auto words = tokens_of(line.value);
      const std::int64_t first = words.empty() ? 0 : as_int(words[0]).value_or(-1);
      const bool has_int = !words.empty() && as_int(words[0]).has_value();
      if (line.key == "number of steps") {
        if (!has_int || first < 0) fail(line, "'number of steps:' needs a count");
        steps = first;
      } else if (line.key == "filename start number") {
        if (!has_int) fail(line, "'filename start number:' needs a number");
        start = first;
      } else if (line.key == "filename increment") {
        if (!has_int) fail(line, "'filename increment:' needs a number");
        increment = first;
      } else if (line.key == "time values") {
        if (steps < 0) fail(line, "'time values:' before 'number of steps:'");
        k = numbers_over_lines(k, steps, set.times, as_double);
      } else if (line.key == "filename numbers") {
        if (steps < 0) fail(line, "'filename numbers:' before 'number of steps:'");
        k = numbers_over_lines(k, steps, set.file_numbers, as_int);
        numbers_listed = true;
      } else if (line.key == "time values file" || line.key == "filename numbers file") {
        fail(line, "'" + line.key + ":' (values in another file) is not read");
      } else if (line.key == "time set" || (line.value.empty() && is_section(line.key))) {
        break;
      } else {
        fail(line, "'" + line.key + "' in a time set");
      }
    }
    if (steps < 0) throw ReadError(path_, kFormat, "time set " + std::to_string(number) + " has no 'number of steps:'");
    if (static_cast<std::int64_t>(set.times.size()) != steps)
      throw ReadError(path_, kFormat, "time set " + std::to_string(number) + " has no 'time values:'");
    if (!numbers_listed)
      for (std::int64_t s = 0; s < steps; ++s) set.file_numbers.push_back(start + s * increment);
    result.time_sets[number] = std::move(set);
    return k - 1;
  }

  std::size_t parse_file_set(std::size_t k, CaseFile& result) {
    const Line& head = lines_[k];
    if (head.key != "file set") fail(head, "'" + head.key + "' in the FILE section");
    const auto words = tokens_of(head.value);
    if (words.empty() || !as_int(words[0])) fail(head, "'file set:' needs a number");
    FileSet set;
    std::optional<std::int64_t> index;
    for (++k; k < lines_.size(); ++k) {
      const Line& line = lines_[k];
      const auto values = tokens_of(line.value);
      const bool has_int = !values.empty() && as_int(values[0]).has_value();
      const std::int64_t first = has_int ? *as_int(values[0]) : -1;
      if (line.key == "filename index") {
        if (!has_int) fail(line, "'filename index:' needs a number");
        index = first;
      } else if (line.key == "number of steps") {
        if (!has_int || first < 0) fail(line, "'number of steps:' needs a count");
        set.pieces.push_back({index, first});
        index.reset();
      } else {
        break;
      }
    }
    result.file_sets[static_cast<int>(*as_int(words[0]))] = std::move(set);
    return k - 1;
  }

  std::string path_;
  io::MappedFile file_;
  std::vector<Line> lines_;
};

// `pattern` with its run of '*' replaced by `number`, zero-padded to the run's length.
std::string fill_wildcards(const std::string& pattern, std::int64_t number) {
  const std::size_t first = pattern.find('*');
  if (first == std::string::npos) return pattern;
  std::size_t last = first;
  while (last < pattern.size() && pattern[last] == '*') ++last;
  std::string digits = std::to_string(number);
  if (digits.size() < last - first) digits.insert(0, last - first - digits.size(), '0');
  return pattern.substr(0, first) + digits + pattern.substr(last);
}

}  // namespace

int CaseVariable::components() const noexcept {
  switch (kind) {
    case VariableKind::scalar: return 1;
    case VariableKind::vector: return 3;
    case VariableKind::tensor_symm: return 6;
    case VariableKind::tensor_asym: return 9;
  }
  return 1;
}

CaseFile read_case(const std::string& path) { return CaseParser(path).parse(); }

std::size_t steps_of(const CaseFile& case_file, const CaseEntry& entry) {
  if (!entry.time_set) return 1;
  const auto set = case_file.time_sets.find(*entry.time_set);
  return set == case_file.time_sets.end() ? 0 : set->second.times.size();
}

StepFile step_file(const CaseFile& case_file, const CaseEntry& entry, std::size_t step) {
  const auto resolve = [&](const std::string& name) {
    const std::filesystem::path file(name);
    return file.is_absolute() || case_file.folder.empty() ? name
                                                          : (std::filesystem::path(case_file.folder) / file).string();
  };
  if (!entry.time_set) {
    if (entry.file.find('*') != std::string::npos)
      throw ReadError(case_file.path, kFormat, "'" + entry.file + "' has wildcards but no time set");
    return {resolve(entry.file), std::nullopt};
  }
  const auto set = case_file.time_sets.find(*entry.time_set);
  if (set == case_file.time_sets.end())
    throw ReadError(case_file.path, kFormat, "'" + entry.file + "' names time set " + std::to_string(*entry.time_set) +
                                                 ", which the case does not define");
  if (step >= set->second.times.size())
    throw ReadError(case_file.path, kFormat, "step " + std::to_string(step) + " of '" + entry.file + "' out of range (" +
                                                 std::to_string(set->second.times.size()) + " steps)");
  if (entry.file_set) {
    const auto files = case_file.file_sets.find(*entry.file_set);
    if (files == case_file.file_sets.end())
      throw ReadError(case_file.path, kFormat, "'" + entry.file + "' names file set " + std::to_string(*entry.file_set) +
                                                   ", which the case does not define");
    std::int64_t left = static_cast<std::int64_t>(step);
    for (const FileSet::Piece& piece : files->second.pieces) {
      if (left < piece.steps)
        return {resolve(piece.index ? fill_wildcards(entry.file, *piece.index) : entry.file), left};
      left -= piece.steps;
    }
    throw ReadError(case_file.path, kFormat, "file set " + std::to_string(*entry.file_set) + " holds fewer than " +
                                                 std::to_string(step + 1) + " steps");
  }
  return {resolve(fill_wildcards(entry.file, set->second.file_numbers[step])), std::nullopt};
}

}  // namespace meshioplusplus::ensight
