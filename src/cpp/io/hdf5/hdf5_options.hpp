// Floor 2: the write options every HDF5-based writer shares, spelled as meshio's h5py-based
// writers take them: compression ("gzip" or None) and compression_opts (the gzip level).
#pragma once

#include <cctype>
#include <charconv>
#include <string>
#include <string_view>

#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::io::hdf5 {

// The deflate level to write with, or -1 for no compression. Throws WriteError on an
// unknown compression or a level outside 0-9.
inline int gzip_level_option(const WriteOptions& options, const std::string& path, std::string_view format,
                             std::string_view default_compression = "gzip") {
  std::string compression(options.get("compression", default_compression));
  for (char& c : compression) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (compression == "none" || compression.empty()) return -1;
  if (compression != "gzip")
    throw WriteError(path, std::string(format), "unknown compression '" + compression + "' (gzip or None)");
  const std::string_view level = options.get("compression_opts", "4");
  int value = -1;
  const auto parsed = std::from_chars(level.data(), level.data() + level.size(), value);
  if (parsed.ec != std::errc{} || parsed.ptr != level.data() + level.size() || value < 0 || value > 9)
    throw WriteError(path, std::string(format), "compression_opts must be a gzip level 0-9, got '" + std::string(level) + "'");
  return value;
}

}  // namespace meshioplusplus::io::hdf5
