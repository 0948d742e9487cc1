// meshioplusplus-cli: the `convert`, `clean` and `info` subcommands of the Python command line
// (src/python/meshioplusplus/_cli.py) built from the C++ library alone — for machines and
// containers without Python. Same flags, same error texts, same exit statuses:
//   usage mistakes (unknown flag, missing file name, unknown -i/-o name)  → argparse's words, exit 2
//   everything else (missing file, directory, unreadable mesh, ...)       → "meshioplusplus: error: ...", exit 1
// Format names are the registry's (meshioplusplus-cli --help lists them); the Python-only
// aliases (vtu-ascii, gmsh22, vtk42 ...) are not known here — use -o vtu --ascii and the like.
#include <algorithm>
#include <chrono>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/mesh_ops.hpp"
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
    "                              [--drop TYPES] [--crop XMIN YMIN ZMIN XMAX YMAX ZMAX] [--crop-region NAME]\n"
    "                              [--remove-lower-dimensional-cells] [--merge-points TOL] [--remove-orphans]\n"
    "                              [--prune-z-0] [--extract-surface]\n"
    "                              infile outfile";
const std::string kCleanUsage =
    "usage: meshioplusplus clean [-h] [--input-format FORMAT] [--output-format FORMAT]\n"
    "                            [--merge-points TOL | --no-merge-points] [--keep-degenerate]\n"
    "                            [--keep-duplicate-cells] [--keep-orphans] [--remove-lower-dimensional-cells]\n"
    "                            [--prune-z-0]\n"
    "                            infile [outfile]";
const std::string kInfoUsage = "usage: meshioplusplus info [-h] [--input-format FORMAT] infile";
const std::string kTopUsage = "usage: meshioplusplus [-h] [--version] {convert,c,clean,info,i} ...";

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
         "convert, clean and info).\n\n"
         "options:\n"
         "  -h, --help            show this help message and exit\n"
         "  -v, --version         show program's version number and exit\n\n"
         "subcommands:\n"
         "  convert (c)  IN OUT [-i FORMAT] [-o FORMAT] [--ascii | --binary]\n"
         "               [--drop TYPES] [--crop XMIN YMIN ZMIN XMAX YMAX ZMAX] [--crop-region NAME]\n"
         "               [--remove-lower-dimensional-cells] [--merge-points TOL] [--remove-orphans]\n"
         "               [--prune-z-0] [--extract-surface]\n"
         "               convert a mesh file to another format\n"
         "  clean        IN [OUT] [-i FORMAT] [-o FORMAT] [--merge-points TOL | --no-merge-points]\n"
         "               [--keep-degenerate] [--keep-duplicate-cells] [--keep-orphans]\n"
         "               [--remove-lower-dimensional-cells] [--prune-z-0]\n"
         "               merge equal points, drop degenerate and duplicate cells, remove orphaned\n"
         "               points (writes OUT, or IN in place)\n"
         "  info (i)     IN [-i FORMAT]   summarise a mesh file\n\n" +
         format_table();
}

struct Arguments {
  std::string command;  // "convert", "clean" or "info"
  std::vector<std::string> positional;
  std::optional<std::string> input_format, output_format;
  bool ascii = false, binary = false;
  // convert: cells kept (in this order), then the clean-up flags (in this order).
  std::optional<std::string> drop, crop_region;
  std::optional<std::vector<double>> crop;
  std::optional<double> merge_points;
  bool remove_lower_dimensional_cells = false, remove_orphans = false, prune_z_0 = false, extract_surface = false;
  // clean: what to leave out of its default.
  bool no_merge_points = false, keep_degenerate = false, keep_duplicate_cells = false, keep_orphans = false;
};

// argparse's float(): the whole text a number.
std::optional<double> parse_number(std::string_view text) {
  double value = 0;
  const char* first = text.data();
  if (!text.empty() && text[0] == '+') ++first;
  const auto [end, error] = std::from_chars(first, text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || first == text.data() + text.size()) return std::nullopt;
  return value;
}

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
  else if (command == "clean") parsed.command = "clean";
  else if (command == "info" || command == "i") parsed.command = "info";
  else
    throw UsageError{kTopUsage, std::string(kProgram),
                     "argument command: invalid choice: '" + command + "' (choose from 'convert', 'c', 'clean', 'info', 'i')"};
  const bool convert = parsed.command == "convert", clean = parsed.command == "clean";
  const std::string usage = convert ? kConvertUsage : clean ? kCleanUsage : kInfoUsage;
  const std::string prog = std::string(kProgram) + " " + parsed.command;
  std::vector<std::string> unrecognized;

  // `--flag VALUE`, `--flag=VALUE` and `-fVALUE`, as argparse accepts them.
  auto take_value = [&](std::size_t& i, std::string_view arg, std::string_view long_name,
                        std::string_view short_name) -> std::optional<std::string> {
    const std::string argument_name = std::string(long_name) + "/" + std::string(short_name);
    if (arg == long_name || arg == short_name) {
      if (i + 1 >= args.size() || (args[i + 1].size() > 1 && args[i + 1][0] == '-' && !parse_number(args[i + 1])))
        throw UsageError{usage, prog, "argument " + argument_name + ": expected one argument"};
      return args[++i];
    }
    if (arg.starts_with(std::string(long_name) + "=")) return std::string(arg.substr(long_name.size() + 1));
    if (!short_name.empty() && arg.size() > 2 && arg.starts_with(short_name) && arg[1] != '-')
      return std::string(arg.substr(2));
    return std::nullopt;
  };
  auto number_of = [&](const std::string& value, std::string_view argument_name) {
    const std::optional<double> number = parse_number(value);
    if (!number) throw UsageError{usage, prog, "argument " + std::string(argument_name) + ": invalid float value: '" + value + "'"};
    return *number;
  };
  auto flag = [&](const std::string& arg, std::string_view name, bool& target) {
    if (arg != name) return false;
    target = true;
    return true;
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
    } else if ((convert || clean) && (value = take_value(i, arg, "--output-format", "-o"))) {
      check_choice(*value, false, "--output-format/-o");
      parsed.output_format = *value;
    } else if (convert && (arg == "--ascii" || arg == "-a")) {
      if (parsed.binary) throw UsageError{usage, prog, "argument --ascii/-a: not allowed with argument --binary/-b"};
      parsed.ascii = true;
    } else if (convert && (arg == "--binary" || arg == "-b")) {
      if (parsed.ascii) throw UsageError{usage, prog, "argument --binary/-b: not allowed with argument --ascii/-a"};
      parsed.binary = true;
    } else if (convert && (value = take_value(i, arg, "--drop", ""))) {
      parsed.drop = *value;
    } else if (convert && (value = take_value(i, arg, "--crop-region", ""))) {
      parsed.crop_region = *value;
    } else if (convert && arg == "--crop") {
      std::vector<double> box;  // six numbers, negative ones too (argparse takes "-1" as a value here)
      while (box.size() < 6 && i + 1 < args.size() && parse_number(args[i + 1])) box.push_back(*parse_number(args[++i]));
      if (box.size() < 6) throw UsageError{usage, prog, "argument --crop: expected 6 arguments"};
      parsed.crop = box;
    } else if ((convert || clean) && (value = take_value(i, arg, "--merge-points", ""))) {
      if (parsed.no_merge_points) throw UsageError{usage, prog, "argument --merge-points: not allowed with argument --no-merge-points"};
      parsed.merge_points = number_of(*value, "--merge-points");
    } else if (clean && arg == "--no-merge-points") {
      if (parsed.merge_points) throw UsageError{usage, prog, "argument --no-merge-points: not allowed with argument --merge-points"};
      parsed.no_merge_points = true;
    } else if ((convert || clean) && (flag(arg, "--remove-lower-dimensional-cells", parsed.remove_lower_dimensional_cells) ||
                                      flag(arg, "--prune-z-0", parsed.prune_z_0))) {
    } else if (convert && (flag(arg, "--remove-orphans", parsed.remove_orphans) ||
                           flag(arg, "--remove-orphaned-nodes", parsed.remove_orphans) ||
                           flag(arg, "--extract-surface", parsed.extract_surface))) {
    } else if (clean && (flag(arg, "--keep-degenerate", parsed.keep_degenerate) ||
                         flag(arg, "--keep-duplicate-cells", parsed.keep_duplicate_cells) ||
                         flag(arg, "--keep-orphans", parsed.keep_orphans))) {
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
  const std::size_t allowed = clean ? 2 : wanted.size();  // clean's OUT is optional
  for (std::size_t k = allowed; k < parsed.positional.size(); ++k) unrecognized.push_back(parsed.positional[k]);
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

// convert's --drop, --crop and --crop-region, in that order (the Python CLI's _select): each
// keeps some cells, data and regions following, points no kept cell uses going.
mpp::Mesh select_cells(mpp::Mesh mesh, const Arguments& args) {
  if (args.drop) {
    std::vector<std::string> wanted;
    for (std::size_t start = 0; start <= args.drop->size();) {
      std::size_t end = args.drop->find(',', start);
      if (end == std::string::npos) end = args.drop->size();
      std::string name = args.drop->substr(start, end - start);
      name.erase(0, name.find_first_not_of(" \t"));
      name.erase(name.find_last_not_of(" \t") + 1);
      if (!name.empty()) wanted.push_back(name);
      start = end + 1;
    }
    if (wanted.empty()) throw CliError("--drop takes comma-separated cell types (e.g. vertex,line)");
    std::vector<bool> keep;
    std::vector<std::string> dropped;
    for (const mpp::CellBlock& block : mesh.cells) {
      const bool drop = std::find(wanted.begin(), wanted.end(), block.type) != wanted.end();
      keep.insert(keep.end(), static_cast<std::size_t>(block.num_cells()), !drop);
      if (drop) dropped.push_back(block.type);
    }
    if (!dropped.empty()) {
      std::sort(dropped.begin(), dropped.end());
      dropped.erase(std::unique(dropped.begin(), dropped.end()), dropped.end());
      mesh = mpp::select_cells(mesh, keep);
      std::string list;
      for (const std::string& name : dropped) list += (list.empty() ? "" : ", ") + name;
      std::cerr << "dropped cell blocks of type " << list << "\n";
    }
  }
  if (args.crop) {
    const std::int64_t width = mesh.points.ndim() == 2 ? mesh.points.dim(1) : 3;
    if (width > 3) throw CliError("--crop: points of " + std::to_string(width) + " coordinates");
    const std::span<const double> box(*args.crop);
    const std::int64_t before = mesh.num_cells();
    mesh = mpp::crop(mesh, box.subspan(0, static_cast<std::size_t>(width)), box.subspan(3, static_cast<std::size_t>(width)));
    std::cerr << "cropped to the box: kept " << mesh.num_cells() << " of " << before << " cells\n";
  }
  if (args.crop_region) {
    std::vector<std::string> names;
    for (const mpp::Region& region : mesh.regions)
      if (region.kind != mpp::RegionKind::Point && std::find(names.begin(), names.end(), region.name) == names.end())
        names.push_back(region.name);
    if (std::find(names.begin(), names.end(), *args.crop_region) == names.end()) {
      std::string list;
      for (const std::string& name : names) list += (list.empty() ? "'" : ", '") + name + "'";
      throw CliError("--crop-region: no cell region '" + *args.crop_region + "' (the mesh has " +
                     (list.empty() ? std::string("none") : list) + ")");
    }
    const std::int64_t before = mesh.num_cells();
    mesh = mpp::extract_region(mesh, *args.crop_region);
    std::cerr << "kept region '" << *args.crop_region << "': " << mesh.num_cells() << " of " << before << " cells\n";
  }
  return mesh;
}

// convert's clean-up flags, in the Python CLI's order, each saying what it did.
void clean_up(mpp::Mesh& mesh, const Arguments& args) {
  if (args.remove_lower_dimensional_cells)
    if (const std::int64_t count = mpp::remove_lower_dimensional_cells(mesh))
      std::cerr << "removed " << count << " lower-dimensional cells\n";
  if (args.merge_points)
    if (const std::int64_t count = mpp::merge_points(mesh, *args.merge_points)) std::cerr << "merged " << count << " points\n";
  if (args.remove_orphans)
    if (const std::int64_t count = mpp::remove_orphaned_nodes(mesh)) std::cerr << "removed " << count << " orphaned points\n";
  if (args.prune_z_0 && mpp::prune_z_0(mesh)) std::cerr << "dropped the z column (z = 0 everywhere)\n";
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
  if (args.merge_points && !(*args.merge_points >= 0)) throw CliError("--merge-points takes a tolerance >= 0");
  if (args.crop) {
    const std::vector<double>& box = *args.crop;
    bool valid = true;
    for (std::size_t k = 0; k < 3; ++k) valid = valid && std::isfinite(box[k]) && std::isfinite(box[k + 3]) && box[k] <= box[k + 3];
    if (!valid) throw CliError("--crop takes XMIN YMIN ZMIN XMAX YMAX ZMAX, finite, each min <= its max");
  }
  mpp::Mesh mesh = select_cells(read_input(args), args);
  clean_up(mesh, args);
  if (args.extract_surface) {
    mesh = mpp::extract_surface(mesh);
    std::cerr << "extracted the surface: " << mesh.num_cells() << " facets\n";
  }
  mpp::write(outfile, mesh, format_name, options);
  return 0;
}

// clean IN [OUT] (the Python CLI's _clean): weld equal points, drop the cells check() finds
// degenerate or duplicate, remove orphaned points — each can be left out; OUT or IN rewritten
// (the writers' atomic write: a failed write leaves the file as it was).
int run_clean(const Arguments& args) {
  const std::string& infile = args.positional[0];
  const std::string outfile = args.positional.size() > 1 ? args.positional[1] : infile;
  const mpp::FormatInfo* out_format = nullptr;
  if (args.output_format) out_format = &mpp::format_by_name(*args.output_format);
  else if (args.positional.size() > 1) out_format = mpp::format_for_path(outfile);
  else out_format = args.input_format ? &mpp::format_by_name(*args.input_format) : mpp::format_for_path(infile);
  if (out_format == nullptr)
    throw CliError("cannot tell the format of " + outfile + " from its name; pass -o/--output-format");
  if (out_format->write == nullptr)
    throw CliError("cannot write " + std::string(out_format->name) + " files; give OUT in a writable format (or -o/--output-format)");
  if (args.merge_points && !(*args.merge_points >= 0)) throw CliError("--merge-points takes a tolerance >= 0");
  mpp::Mesh mesh = read_input(args);
  const std::int64_t points = mesh.num_points(), cells = mesh.num_cells();
  std::vector<std::string> done;
  if (args.remove_lower_dimensional_cells)
    done.push_back(std::to_string(mpp::remove_lower_dimensional_cells(mesh)) + " lower-dimensional cells removed");
  if (!args.no_merge_points)
    done.push_back(std::to_string(mpp::merge_points(mesh, args.merge_points.value_or(0.0))) + " points merged");
  if (!(args.keep_degenerate && args.keep_duplicate_cells)) {
    const mpp::MeshCheck found = mpp::check(mesh);
    std::vector<bool> keep(static_cast<std::size_t>(mesh.num_cells()), true);
    if (!args.keep_degenerate) {
      for (std::int64_t cell : found.degenerate) keep[static_cast<std::size_t>(cell)] = false;
      done.push_back(std::to_string(found.degenerate.size()) + " degenerate cells removed");
    }
    if (!args.keep_duplicate_cells) {
      for (std::int64_t cell : found.duplicate) keep[static_cast<std::size_t>(cell)] = false;
      done.push_back(std::to_string(found.duplicate.size()) + " duplicate cells removed");
    }
    if (std::find(keep.begin(), keep.end(), false) != keep.end()) mesh = mpp::select_cells(mesh, keep);
  }
  if (!args.keep_orphans) done.push_back(std::to_string(mpp::remove_orphaned_nodes(mesh)) + " orphaned points removed");
  if (args.prune_z_0 && mpp::prune_z_0(mesh)) done.push_back("z column dropped");
  mpp::write(outfile, mesh, std::string(out_format->name), {});
  std::string summary;
  for (const std::string& item : done) summary += (summary.empty() ? "" : "; ") + item;
  std::cerr << infile << ": points " << points << " -> " << mesh.num_points() << ", cells " << cells << " -> "
            << mesh.num_cells() << " (" << (summary.empty() ? "nothing to do" : summary) << "); wrote " << outfile << "\n";
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
    return parsed.command == "convert" ? run_convert(parsed) : parsed.command == "clean" ? run_clean(parsed) : run_info(parsed);
  } catch (const UsageError& error) {
    std::cerr << error.usage << "\n" << error.prog << ": error: " << error.message << "\n";
    return 2;
  } catch (const std::exception& error) {
    // CliError, ReadError/WriteError, and a filesystem error while writing: one line, exit 1.
    std::cerr << kProgram << ": error: " << error.what() << "\n";
    return 1;
  }
}
