// SKIP_WITHOUT_HDF5(): the HDF5 tests' first line. A build without libhdf5 (an optional,
// detected library) skips them, naming what to install, instead of failing them.
#pragma once

#include <gtest/gtest.h>

#include "io/hdf5/hdf5_file.hpp"

#define SKIP_WITHOUT_HDF5()                           \
  if (!::meshioplusplus::io::hdf5::available())       \
  GTEST_SKIP() << "built without HDF5 (install libhdf5-dev and rebuild)"
