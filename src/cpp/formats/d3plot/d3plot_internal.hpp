// What the d3plot structure reader (control words, geometry, family files) hands to the state
// reader. Private to formats/d3plot.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/source/mapped_file.hpp"
#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::d3plot::detail {

inline constexpr std::string_view kFormat = "d3plot";

enum Kind : int { kSolid, kThickShell, kBeam, kShell, kSph };

// One output cell block: which file elements (indices into their family's order) it holds.
struct BlockSource {
  Kind kind = kSolid;
  std::string type;
  std::vector<std::int64_t> elements;
};

// A state's place: which family file, at which byte.
struct StateLocation {
  std::size_t file = 0;
  std::uint64_t offset = 0;
  double time = 0.0;
};

// The control words that decide a state's layout (names as the LS-DYNA manual's).
struct Layout {
  int word_size = 4;
  int dimensions = 3;
  std::int64_t numnp = 0, nglbv = 0, it = 0, iu = 0, iv = 0, ia = 0;
  std::int64_t nel8 = 0, nv3d = 0, nelt = 0, nv3dt = 0, nel2 = 0, nv1d = 0, nel4 = 0, nv2d = 0;
  std::int64_t neiph = 0, neips = 0, maxint = 0, nmsph = 0, nmmat = 0, nt3d = 0, idtdt = 0;
  std::int64_t ioshl1 = 0, ioshl2 = 0, ioshl3 = 0, ioshl4 = 0;
  std::int64_t rigid_shells = 0;    // material type section: shells of rigid parts have no results
  std::int64_t sph_variables = 0;   // words per SPH particle per state
  std::int64_t node_words = 0;      // words per node per state, all nodal sections together
  bool node_deletion = false, element_deletion = false;
  std::int64_t state_words = 0;     // the whole state, time word included
};

struct Structure {
  std::vector<std::string> files;  // the family: d3plot, d3plot01, … in number order
  Layout layout;
  NDArray points;                  // initial coordinates (n, 3)
  NDArray node_ids;                // int64 (n,)
  // Per family of elements (Kind order): nodes per element (zero-based, int64 (n, k)),
  // material index (zero-based) and user ids.
  NDArray connectivity[5];
  std::vector<std::int64_t> material[5];
  std::vector<std::int64_t> element_ids[5];
  std::vector<std::int64_t> part_ids;          // user part id per material index
  std::vector<std::string> part_titles;        // per material index ("" without one)
  std::vector<BlockSource> blocks;
  std::vector<StateLocation> states;
};

// Reads the control words, the geometry and the family's state table (times only). Throws
// ReadError naming the file and byte offset for anything malformed or unsupported.
std::shared_ptr<const Structure> open_structure(const std::string& path);

}  // namespace meshioplusplus::d3plot::detail
