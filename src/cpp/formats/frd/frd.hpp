// CalculiX result files (.frd, CalculiX GraphiX's format, as ccx writes them). Read only.
//
// What a read produces (formats/frd/frd_reader.cpp says how):
//   points      float64 (n, 3) from the first nodal block (2C): node numbers are free and
//               renumbered 0..n-1 in file order.
//   cells       from the first element block (3C), one block per element type in order of
//               first appearance: he8, pe6, te4, he20, pe15, te10, tr3, tr6, qu4, qu8, be2, be3
//               (ccx writes its shells and beams expanded into solids, its networks as be3).
//               he20 and pe15 list the vertical mid-edges before the top ones and are reordered
//               to VTK's order; the others are VTK's already. Cell data frd:group, frd:material.
//   time steps  the result blocks (100C): consecutive blocks with the same step number and value
//               are one step (its time the value: a time, a frequency, a load factor); each block
//               is one point-data array named as the file names it (DISP, STRESS, NDTEMP, …),
//               (n,) for one component, (n, c) for c, NaN at nodes it gives no value; the "ALL"
//               magnitude cgx computes itself is not in the file and not an array. Field data per
//               step: frd:step (its step number).
// read() gives the mesh with the LAST step's arrays (the state a run ended in), field data
// frd:time and frd:step, and each array's component names as string field data
// "frd:components:<name>"; every step through the time-series reader. ASCII short and long
// formats, and the binary layouts ccx writes (format flag 2: float32 reals, 3: float64; int32
// numbers, little-endian records after ASCII headers).
#pragma once

#include <memory>
#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::frd {

Mesh read(const std::string& path);
std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path);

}  // namespace meshioplusplus::frd
