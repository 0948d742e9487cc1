// Read-less paths on a fuzz input (fuzz/CMakeLists.txt calls this for formats whose header
// declares read_metadata and read_selected): the header-only summary and a points-only read
// walk the file's headers on their own, so they meet the hostile bytes too. Either gives a
// result or a ReadError; anything else escapes to libFuzzer.
#pragma once

#include <string>
#include <vector>

#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/read_selection.hpp"

namespace meshioplusplus::fuzzing {

template <class Metadata, class Selected> void read_less(const std::string& path, Metadata metadata, Selected selected) {
  try {
    (void)metadata(path);
  } catch (const ReadError&) {
  }
  ReadRequest request;
  request.points_only = true;
  request.arrays = std::vector<std::string>{};
  try {
    (void)selected(path, request);
  } catch (const ReadError&) {
  }
}

}  // namespace meshioplusplus::fuzzing
