// Abaqus results files (.fil: *FILE FORMAT, ASCII or BINARY with *EL FILE / *NODE FILE output).
// Read only.
//
// What a read produces (formats/abaqus_fil/abaqus_fil_reader.cpp says how):
//   points      float64 (n, 2) or (n, 3), as many columns as the node records (1901) give;
//               node numbers are free and renumbered 0..n-1 in file order (point data
//               abaqus_fil:node_id keeps them).
//   cells       from the element records (1900), one block per cell type in order of first
//               appearance, named and reordered through the Abaqus input reader's element table
//               (formats/abaqus/abaqus_element_types); cell data abaqus_fil:element_id. Elements
//               of types that table does not know (connectors, springs, user elements) are
//               left out and counted in field data abaqus_fil:skipped_elements.
//   time steps  one per increment (record 2000 to the next 2000): time = the total time;
//               field data abaqus_fil:step, abaqus_fil:increment, abaqus_fil:step_time.
//               Node output (keys 101..399: U, V, A, RF, CF, COORD, NT, …) → point data named
//               as Abaqus names the variable, (n,) for one component, (n, c) for c, NaN at
//               nodes without a value. Element output (keys 2..99 after an element header,
//               key 1: S, E, PE, LE, ENER, COORD, …) at integration points, section points,
//               centroids or element nodes → cell data AVERAGED per element over those
//               locations (component-wise), NaN for elements without a value; output at
//               nodal-averaged locations (location 4) and unknown keys are skipped.
// read() gives the mesh with the LAST increment's arrays (the state the run ended in, as
// Abaqus/Viewer opens a job) and field data time; every increment through the time-series
// reader. Binary files: Fortran records of 512 8-byte words (4-byte length markers around each
// 4096-byte block), little-endian int64 / float64 words; ASCII files: 80-column lines of
// `*`-started records with I (integer), D (double) and A (8 characters) fields.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::abaqus_fil {

Mesh read(const std::string& path);
std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path);

}  // namespace meshioplusplus::abaqus_fil
