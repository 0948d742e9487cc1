// meshioplusplus-cli: the `convert` and `info` subcommands of the Python command line
// (src/python/meshioplusplus/_cli.py) built from the C++ library alone — for machines and
// containers without Python. Same flags, same error texts, same exit statuses:
//   usage mistakes (unknown flag, missing file name, unknown -i/-o name)  → argparse's words, exit 2
//   everything else (missing file, directory, unreadable mesh, ...)       → "meshioplusplus: error: ...", exit 1
// Format names are the registry's (meshioplusplus-cli --help lists them); the Python-only
// aliases (vtu-ascii, gmsh22, vtk42 ...) are not known here — use -o vtu --ascii and the like.
#include <algorithm>
#include <chrono>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/ndarray.hpp"
#include "meshioplusplus/registry.hpp"

#ifndef MESHIOPLUSPLUS_VERSION
#define MESHIOPLUSPLUS_VERSION "unknown"
#endif

namespace mpp = meshioplusplus;

namespace {

constexpr std::string_view kProgram = "meshioplusplus";

// A usage mistake: argparse prints the subcommand's usage line and the message, exit 2.
struct UsageError {
  std::string usage;
  std::string prog;
  std::string message;
};

// A mistake found while running (the Python CLI's CliError): exit 1.
struct CliError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const std::string kConvertUsage =
    "usage: meshioplusplus convert [-h] [--input-format FORMAT] [--output-format FORMAT] [--ascii | --binary]\n"
    "                              infile outfile";
const std::string kInfoUsage = "usage: meshioplusplus info [-h] [--input-format FORMAT] infile";
const std::string kTopUsage = "usage: meshioplusplus [-h] [--version] {convert,c,info,i} ...";

std::vector<std::string> format_names(bool readable) {
  std::vector<std::string> names;
  for (const mpp::FormatInfo& format : mpp::registered_formats())
    if (readable ? format.read != nullptr : format.write != nullptr) names.emplace_back(format.name);
  std::sort(names.begin(), names.end());
  return names;
}

std::string choice_list(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "'" : ", '") + name + "'";
  return text;
}

std::string format_table() {
  std::ostringstream out;
  out << "formats:\n";
  for (const mpp::FormatInfo& format : mpp::registered_formats()) {
    std::string modes = std::string(format.read ? "r" : "") + (format.write ? "w" : "");
    std::string extensions;
    for (std::string_view extension : format.extensions)
      extensions += (extensions.empty() ? "" : " ") + std::string(extension);
    char line[256];
    std::snprintf(line, sizeof line, "  %-12.*s %-3s %-20s ", static_cast<int>(format.name.size()),
                  format.name.data(), modes.c_str(), extensions.c_str());
    out << line << format.description << "\n";
  }
  return out.str();
}

std::string help_text() {
  return kTopUsage +
         "\n\nConvert and inspect mesh files (native build of the meshioplusplus command line: "
         "convert and info).\n\n"
         "options:\n"
         "  -h, --help            show this help message and exit\n"
         "  -v, --version         show program's version number and exit\n\n"
         "subcommands:\n"
         "  convert (c)  IN OUT [-i FORMAT] [-o FORMAT] [--ascii | --binary]\n"
         "               convert a mesh file to another format\n"
         "  info (i)     IN [-i FORMAT]   summarise a mesh file\n\n" +
         format_table();
}

struct Arguments {
  std::string command;  // "convert" or "info"
  std::vector<std::string> positional;
  std::optional<std::string> input_format, output_format;
  bool ascii = false, binary = false;
};

Arguments parse(const std::vector<std::string>& args) {
  Arguments parsed;
  if (args.empty())
    throw UsageError{kTopUsage, std::string(kProgram), "the following arguments are required: command"};
  const std::string& command = args[0];
  if (command == "-h" || command == "--help") {
    std::cout << help_text();
    std::exit(0);
  }
  if (command == "-v" || command == "--version") {
    std::cout << kProgram << " " << MESHIOPLUSPLUS_VERSION << " [C++, native CLI] (meshio 5.3.5 drop-in)\n";
    std::exit(0);
  }
  if (command == "convert" || command == "c") parsed.command = "convert";
  else if (command == "info" || command == "i") parsed.command = "info";
  else
    throw UsageError{kTopUsage, std::string(kProgram),
                     "argument command: invalid choice: '" + command + "' (choose from 'convert', 'c', 'info', 'i')"};
  const bool convert = parsed.command == "convert";
  const std::string usage = convert ? kConvertUsage : kInfoUsage;
  const std::string prog = std::string(kProgram) + " " + parsed.command;
  std::vector<std::string> unrecognized;

  // `--flag VALUE`, `--flag=VALUE` and `-fVALUE`, as argparse accepts them.
  auto take_value = [&](std::size_t& i, std::string_view arg, std::string_view long_name,
                        std::string_view short_name) -> std::optional<std::string> {
    const std::string argument_name = std::string(long_name) + "/" + std::string(short_name);
    if (arg == long_name || arg == short_name) {
      if (i + 1 >= args.size() || (args[i + 1].size() > 1 && args[i + 1][0] == '-'))
        throw UsageError{usage, prog, "argument " + argument_name + ": expected one argument"};
      return args[++i];
    }
    if (arg.starts_with(std::string(long_name) + "=")) return std::string(arg.substr(long_name.size() + 1));
    if (arg.size() > 2 && arg.starts_with(short_name) && arg[1] != '-') return std::string(arg.substr(2));
    return std::nullopt;
  };
  auto check_choice = [&](const std::string& value, bool readable, std::string_view argument_name) {
    const std::vector<std::string> names = format_names(readable);
    if (std::find(names.begin(), names.end(), value) == names.end())
      throw UsageError{usage, prog,
                       "argument " + std::string(argument_name) + ": invalid choice: '" + value +
                           "' (choose from " + choice_list(names) + ")"};
  };

  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      std::cout << usage << "\n\n" << format_table();
      std::exit(0);
    }
    if (auto value = take_value(i, arg, "--input-format", "-i")) {
      check_choice(*value, true, "--input-format/-i");
      parsed.input_format = *value;
    } else if (convert && (value = take_value(i, arg, "--output-format", "-o"))) {
      check_choice(*value, false, "--output-format/-o");
      parsed.output_format = *value;
    } else if (convert && (arg == "--ascii" || arg == "-a")) {
      if (parsed.binary) throw UsageError{usage, prog, "argument --ascii/-a: not allowed with argument --binary/-b"};
      parsed.ascii = true;
    } else if (convert && (arg == "--binary" || arg == "-b")) {
      if (parsed.ascii) throw UsageError{usage, prog, "argument --binary/-b: not allowed with argument --ascii/-a"};
      parsed.binary = true;
    } else if (arg.size() > 1 && arg[0] == '-') {
      unrecognized.push_back(arg);
    } else {
      parsed.positional.push_back(arg);
    }
  }
  const std::vector<std::string> wanted = convert ? std::vector<std::string>{"infile", "outfile"}
                                                  : std::vector<std::string>{"infile"};
  if (parsed.positional.size() < wanted.size()) {
    std::string missing;
    for (std::size_t k = parsed.positional.size(); k < wanted.size(); ++k)
      missing += (missing.empty() ? "" : ", ") + wanted[k];
    throw UsageError{usage, prog, "the following arguments are required: " + missing};
  }
  for (std::size_t k = wanted.size(); k < parsed.positional.size(); ++k) unrecognized.push_back(parsed.positional[k]);
  if (!unrecognized.empty()) {
    std::string list;
    for (const std::string& item : unrecognized) list += (list.empty() ? "" : " ") + item;
    throw UsageError{kTopUsage, std::string(kProgram), "unrecognized arguments: " + list};
  }
  return parsed;
}

void check_input(const std::string& path) {
  std::error_code error;
  // A directory is read only where the registry names it (an OpenFOAM case directory).
  if (std::filesystem::is_directory(path, error) && mpp::format_for_path(path) == nullptr)
    throw CliError(path + " is a directory; give a mesh file (or an OpenFOAM case directory)");
  if (!std::filesystem::exists(path, error)) throw CliError(path + ": no such file");
}

mpp::Mesh read_input(const Arguments& args) {
  const std::string& path = args.positional[0];
  check_input(path);
  if (!args.input_format && mpp::format_for_path(path) == nullptr)
    throw CliError("Could not deduce file format from path '" + path + "'.");
  return mpp::read(path, args.input_format.value_or(""));
}

bool has_write_option(const mpp::FormatInfo& format, std::string_view name) {
  return std::any_of(format.write_options.begin(), format.write_options.end(),
                     [&](const mpp::WriteOptionSpec& spec) { return spec.name == name; });
}

int run_convert(const Arguments& args) {
  const std::string& outfile = args.positional[1];
  const mpp::FormatInfo* out_format = nullptr;
  if (args.output_format) {
    out_format = &mpp::format_by_name(*args.output_format);  // a writable name: checked while parsing
  } else {
    out_format = mpp::format_for_path(outfile);
    if (out_format == nullptr)
      throw CliError("cannot tell the format of " + outfile + " from its name; pass -o/--output-format");
    if (out_format->write == nullptr)
      throw CliError("unknown output format '" + std::string(out_format->name) + "' (-o/--output-format); see --help");
  }
  // Checked before the read, as the Python CLI does: a long read should not end in a flag mistake.
  mpp::WriteOptions options;
  const std::string format_name(out_format->name);
  const bool supports_binary = has_write_option(*out_format, "binary");
  // Text-only formats have no binary switch: --ascii asks for what they write anyway.
  if (args.ascii && supports_binary) {
    options.set("binary", "false");
  } else if (args.binary) {
    if (!supports_binary) throw CliError(format_name + " has no binary variant (--binary)");
    options.set("binary", "true");
  }
  const mpp::Mesh mesh = read_input(args);
  mpp::write(outfile, mesh, format_name, options);
  return 0;
}

std::string shape_text(const mpp::NDArray& array) {
  std::string text = std::string(mpp::dtype_name(array.dtype())) + "[";
  for (std::size_t axis = 0; axis < array.ndim(); ++axis)
    text += (axis ? ", " : "") + std::to_string(array.dim(axis));
  return text + "]";
}

// Shortest round-trip text, at most 6 significant digits past the point (numpy's precision=6).
std::string number_text(double value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, 7);
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".en") == std::string::npos) text += ".";
  return text;
}

std::string row_text(const std::vector<double>& values) {
  std::string text = "[";
  for (std::size_t k = 0; k < values.size(); ++k) text += (k ? " " : "") + number_text(values[k]);
  return text + "]";
}

// meshio's info checks: cells naming missing points, points in no cell.
std::string consistency(const mpp::Mesh& mesh) {
  const std::int64_t num_points = mesh.num_points();
  std::vector<bool> used(static_cast<std::size_t>(num_points), false);
  for (const mpp::CellBlock& block : mesh.cells) {
    if (block.connectivity.empty_handle() || block.connectivity.dtype() != mpp::DType::int64) continue;
    for (std::int64_t node : block.connectivity.values<std::int64_t>()) {
      if (node < 0 || node >= num_points) return "inconsistent mesh: cells refer to nonexistent points";
      used[static_cast<std::size_t>(node)] = true;
    }
  }
  if (num_points > 0 && std::find(used.begin(), used.end(), false) != used.end())
    return "some points are not part of any cell";
  return "";
}

int run_info(const Arguments& args) {
  const auto started = std::chrono::steady_clock::now();
  const mpp::Mesh mesh = read_input(args);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::ostringstream out;
  char milliseconds[32];
  std::snprintf(milliseconds, sizeof milliseconds, "%.1f", seconds * 1e3);
  out << args.positional[0] << "\n  read in " << milliseconds << " ms\n";
  const mpp::NDArray& points = mesh.points;
  const std::int64_t dim = points.ndim() == 2 ? points.dim(1) : 0;
  out << "  points: " << mesh.num_points() << " (dim " << (points.ndim() == 2 ? std::to_string(dim) : "?") << ", "
      << mpp::dtype_name(points.dtype()) << ")\n";
  if (mesh.num_points() > 0 && dim > 0) {
    std::vector<double> low(static_cast<std::size_t>(dim), std::numeric_limits<double>::infinity());
    std::vector<double> high(static_cast<std::size_t>(dim), -std::numeric_limits<double>::infinity());
    mpp::visit_dtype(points.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const std::span<const T> values = points.values<T>();
      for (std::size_t k = 0; k < values.size(); ++k) {
        const auto axis = k % static_cast<std::size_t>(dim);
        low[axis] = std::min(low[axis], static_cast<double>(values[k]));
        high[axis] = std::max(high[axis], static_cast<double>(values[k]));
      }
    });
    out << "  bounding box: min " << row_text(low) << " max " << row_text(high) << "\n";
  }
  out << "  cell blocks: " << mesh.cells.size() << "\n";
  for (const mpp::CellBlock& block : mesh.cells) {
    char line[128];
    std::snprintf(line, sizeof line, "    %-16s %lld\n", block.type.c_str(),
                  static_cast<long long>(block.num_cells()));
    out << line;
  }
  if (!mesh.point_data.empty()) {
    out << "  point data:\n";
    for (const auto& [name, array] : mesh.point_data) out << "    " << name << ": " << shape_text(array) << "\n";
  }
  if (!mesh.field_data.empty()) {
    out << "  field data:\n";
    for (const auto& [name, array] : mesh.field_data) out << "    " << name << ": " << shape_text(array) << "\n";
  }
  if (!mesh.cell_data.empty()) {
    out << "  cell data:\n";
    for (const auto& [name, arrays] : mesh.cell_data) {
      out << "    " << name << ": ";
      for (std::size_t k = 0; k < arrays.size(); ++k) out << (k ? ", " : "") << shape_text(arrays[k]);
      out << "\n";
    }
  }
  if (!mesh.regions.empty()) {
    out << "  regions:\n";
    for (const mpp::Region& region : mesh.regions) {
      const char* kind = region.kind == mpp::RegionKind::Point  ? "point"
                         : region.kind == mpp::RegionKind::Cell ? "cell"
                                                                 : "side";
      out << "    '" << region.name << "': " << kind << ", dim " << region.dim << ", tag " << region.tag << ", "
          << region.entries.rows() << " entries\n";
    }
  }
  const std::string warning = consistency(mesh);
  if (!warning.empty()) out << "  warning: " << warning << "\n";
  std::cout << out.str();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    const Arguments parsed = parse(args);
    return parsed.command == "convert" ? run_convert(parsed) : run_info(parsed);
  } catch (const UsageError& error) {
    std::cerr << error.usage << "\n" << error.prog << ": error: " << error.message << "\n";
    return 2;
  } catch (const std::exception& error) {
    // CliError, ReadError/WriteError, and a filesystem error while writing: one line, exit 1.
    std::cerr << kProgram << ": error: " << error.what() << "\n";
    return 1;
  }
}
