// Private to formats/op2: result tables -> steps (which data records each step reads).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/op2/op2_internal.hpp"
#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::op2::detail {

// One table-3 header and the data record after it.
struct ResultBlock {
  std::size_t table = 0, record = 0;  // the data record: file.tables[table].records[record]
  std::string name;                   // "displacement", "stress" …
  bool nodal = true;
  bool thermal = false;  // table-3 word 23: heat transfer, one value (temperature …) per grid
  std::int32_t element_type = 0, num_wide = 0;
  std::int32_t format = 1;  // table-3 word 9: 1 real, 2 real/imaginary, 3 magnitude/phase
  // Random response (sort code bit 4): "_psd", "_crm", "_rms" or "_no",
  // appended to the array names; empty for every other table.
  std::string random_suffix;
  // SORT2 (one grid or element over all times): the id the record holds (table-3 word 5 / 10)
  // and the entry of this step in it; SORT1 records hold one entry per id (sort2_id 0).
  std::int32_t sort2_id = 0;
  std::size_t sort2_entry = 0;
};

struct Step {
  std::int32_t subcase = 0, approach = 0, key_word = 0;  // key_word: table-3 word 5 as written
  // The RMS / number-of-zero-crossings values of a random subcase: one value per grid over all
  // frequencies, so a step of their own (time 0, as pyNastran gives them) beside the frequencies.
  bool random_summary = false;
  double time = 0;
  double eigenvalue = 0;
  std::vector<ResultBlock> blocks;
};

// The steps of the file, from the table-3 headers of the tables read (no data record read).
std::vector<Step> find_steps(const File& file);
// Step `step`'s arrays: reads only its data records.
TimeStep read_step(const File& file, const Geometry& geometry, const Step& step);
// The eigenvalues of the LAMA table, empty when the file has none.
std::vector<double> eigenvalues(const File& file);

}  // namespace meshioplusplus::op2::detail
