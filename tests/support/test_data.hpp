// tests/data, the small real files shipped with the repository (tests/data/MANIFEST.tsv), by the
// absolute path CMake gives the test binary: a test that needs one of them fails when it is
// missing (it is part of the checkout), instead of skipping.
#pragma once

#include <filesystem>

namespace meshioplusplus::testing {

inline std::filesystem::path test_data_dir() { return MESHIOPLUSPLUS_TEST_DATA_DIR; }

}  // namespace meshioplusplus::testing
