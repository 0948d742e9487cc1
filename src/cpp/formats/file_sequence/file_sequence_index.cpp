// The indexes of a file sequence: ParaView's `.series` (JSON) read and written, a `.pvd`
// collection written (read by formats/vtk_xml's pvd::read_entries).
#include <charconv>
#include <filesystem>

#include "formats/file_sequence/file_sequence_internal.hpp"
#include "formats/vtk_xml/vtk_xml_common.hpp"
#include "io/output/atomic_file.hpp"
#include "io/source/mapped_file.hpp"
#include "io/text/json.hpp"
#include "io/text/xml_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::file_sequence {
namespace {

namespace fs = std::filesystem;
constexpr const char* kSeries = "series";

std::string time_text(double time) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, time).ptr;
  return std::string(buffer, end);
}

// `file` relative to the folder of `index` (as written in the index), with '/' separators.
std::string relative_name(const std::string& index, const std::string& file) {
  const fs::path folder = fs::path(index).parent_path();
  std::error_code error;
  fs::path relative = fs::path(file).lexically_relative(folder.empty() ? fs::path(".") : folder);
  if (relative.empty()) relative = fs::path(file);
  return relative.generic_string();
}

}  // namespace

FileSequence read_series_index(const std::string& path) {
  const io::MappedFile file(path, kSeries);
  const io::JsonValue root = io::parse_json(file.bytes(), path, kSeries);
  const io::JsonValue* files = root.find("files");
  if (!root.is_object() || files == nullptr || !files->is_array())
    throw ReadError(path, kSeries, "the index has no \"files\" list", root.offset());
  const fs::path folder = fs::path(path).parent_path();
  FileSequence sequence;
  for (const io::JsonValue& entry : files->items()) {
    const io::JsonValue* name = entry.find("name");
    const io::JsonValue* time = entry.find("time");
    if (name == nullptr || !name->is_string() || name->as_string().empty())
      throw ReadError(path, kSeries, "an entry of \"files\" has no \"name\"", entry.offset());
    if (time == nullptr || !time->is_number())
      throw ReadError(path, kSeries, "the entry of '" + name->as_string() + "' has no numeric \"time\"", entry.offset());
    const fs::path listed(name->as_string());
    sequence.files.push_back((listed.is_absolute() ? listed : folder / listed).string());
    sequence.times.push_back(time->as_double());
  }
  if (sequence.files.empty()) throw ReadError(path, kSeries, "the index lists no file", files->offset());
  return sequence;
}

void write_sequence_index(const std::string& index, const std::vector<std::string>& files,
                          const std::vector<double>& times) {
  const bool pvd = fs::path(index).extension() == ".pvd";
  std::string text;
  if (pvd) {
    text = vtk_xml_detail::index_prologue("Collection") + "  <Collection>\n";
    for (std::size_t k = 0; k < files.size(); ++k)
      text += "    <DataSet timestep=\"" + time_text(times[k]) + "\" group=\"\" part=\"0\" file=\"" +
              io::escape_xml_attribute(relative_name(index, files[k])) + "\"/>\n";
    text += "  </Collection>\n</VTKFile>\n";
  } else {
    text = "{\n  \"file-series-version\" : \"1.0\",\n  \"files\" : [\n";
    for (std::size_t k = 0; k < files.size(); ++k) {
      text += "    { \"name\" : ";
      io::append_json_string(text, relative_name(index, files[k]));
      text += ", \"time\" : " + time_text(times[k]) + " }";
      text += k + 1 < files.size() ? ",\n" : "\n";
    }
    text += "  ]\n}\n";
  }
  io::AtomicFile file(index, pvd ? "pvd" : kSeries);
  file.write(text);
  file.commit();
}

}  // namespace meshioplusplus::file_sequence
