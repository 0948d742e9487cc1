// meshioplusplus::read for the collection fuzz targets (vtm, pvd; linked into pvtu and pvtp too).
// The .vtm and .pvd readers read each listed dataset through meshioplusplus::read, i.e. the
// format registry (src/cpp/formats/registry.cpp), which names every reader of the library:
// linking it would compile every format, instrumented, into these targets. This stand-in keeps
// the targets to the VTK XML family — the formats the fixture folder holds
// (tests/support/fuzz_targets.hpp) — chosen by file name ending as the registry chooses them,
// with the registry's guard (io::guarded_read) and its mapping of failed allocations to
// ReadError. Any other ending is the registry's ReadError for a name it cannot place. The
// regression replay (ctest) reads the same inputs through the real registry.
#include <algorithm>
#include <cctype>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

#include "formats/vtk_xml/vtk_xml.hpp"
#include "formats/vtu/vtu.hpp"
#include "io/source/mapped_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus {

Mesh read(const std::string& path, std::string_view format_name) {
  struct Entry {
    std::string_view name, extension;
    Mesh (*read)(const std::string&);
  };
  static const Entry kEntries[] = {
      {"vtu", ".vtu", vtu::read},   {"vtp", ".vtp", vtp::read},   {"vts", ".vts", vts::read},
      {"vtr", ".vtr", vtr::read},   {"vti", ".vti", vti::read},   {"pvtu", ".pvtu", pvtu::read},
      {"pvtp", ".pvtp", pvtp::read}, {"vtm", ".vtm", vtm::read},  {"pvd", ".pvd", pvd::read},
  };
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  const Entry* format = nullptr;
  for (const Entry& entry : kEntries)
    if (format_name.empty() ? lower.ends_with(entry.extension) : format_name == entry.name) format = &entry;
  if (format == nullptr)
    throw ReadError(path, "", "cannot tell the format from the file name (fuzz build: the VTK XML readers only)");
  try {
    return io::guarded_read([&] { return format->read(path); });
  } catch (const std::bad_alloc&) {
    throw ReadError(path, std::string(format->name), "out of memory while reading");
  } catch (const std::length_error& error) {
    throw ReadError(path, std::string(format->name), std::string("an array too large to hold: ") + error.what());
  }
}

}  // namespace meshioplusplus
