// The write-option check of time-series writers whose options are those of one format's
// write() (formats/time_series.cpp; the file sequence's writer uses it too).
#pragma once

#include <string>

#include "meshioplusplus/registry.hpp"

namespace meshioplusplus {

// WriteError naming `path` and `name` for an option the registry row of `options_of` lacks.
void check_write_options(const std::string& path, const std::string& name, const WriteOptions& options,
                         const std::string& options_of);

}  // namespace meshioplusplus
