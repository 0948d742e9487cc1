// Universal-file results behind the time-series interface (include/meshioplusplus/time_series.hpp).
//
// Opening reads the mesh (its node and element labels place the results) and the header of
// every 2414 dataset ("analysis data"), records 1-13: the label, the name, the location
// (1 data at nodes, 2 data on elements; 3 at nodes on elements and 5 at points are passed
// over), record 9 (model type, analysis type, data characteristic, result type, data type,
// number of values), records 10-13 (the analysis's integers and reals). The step of a dataset
// is (analysis type, its step number, its value), as meshio++ 17.21 keys them:
//   normal mode (2): mode number, frequency      complex eigenvalue (3, 7): mode, |Im λ| / 2π
//   transient (4), nonlinear static (9): time step, time       frequency response (5): its
//   number and frequency      buckling (6): mode, eigenvalue      otherwise: load set, time
//   (the load set when the time is 0).
// Steps come in order of first appearance; time(k) is the step's value. read_step(k) reads its
// datasets only: node results -> point_data, element results -> cell_data (one array per
// block), float64, (n,) for one value per entity, else (n, values); entities a dataset does not
// list are NaN; complex data (data types 5, 6) gives <name>_real and <name>_imag. A dataset
// named NONE (or nothing) takes its result type's name; repeated names get _2, _3 ….
// Components stay in the file's order (no tensor reordering). Dataset 55 (node results in the
// older layout, as code_aster and test-data software write it) gives steps the same way, its
// step keyed from records 6-8 as 17.21 keys it; a 2414 and a 55 of the same key share a step.
#include "formats/unv/unv_time_series.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <string>
#include <tuple>
#include <vector>

#include "formats/unv/unv_internal.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::unv {
namespace {

using detail::kFormat;
using detail::Dataset;
using detail::Line;
using detail::Lines;

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && io::is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && io::is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::string result_type_name(std::int64_t type) {
  static constexpr std::string_view kNames[] = {
      "",                 "general",           "stress",          "strain",   "element_force",
      "temperature",      "heat_flux",         "strain_energy",   "displacement", "reaction_force",
      "kinetic_energy",   "velocity",          "acceleration",    "strain_energy_density",
      "kinetic_energy_density", "hydrostatic_pressure", "heat_gradient", "code_checking_value",
      "pressure_coefficient"};
  if (type >= 1 && type < static_cast<std::int64_t>(std::size(kNames))) return std::string(kNames[type]);
  return "result_" + std::to_string(type);
}

struct Result {
  std::string name;
  std::string dataset;  // "dataset 2414" or "dataset 55", for messages
  std::int64_t location = 1;
  std::int64_t values = 0;
  bool complex = false;
  std::size_t data_begin = 0;  // the first record after record 13
  std::size_t end = 0;
  std::size_t header_offset = 0;
};

struct Step {
  std::tuple<std::int64_t, std::int64_t, double> key;
  std::vector<Result> results;
};

class Series final : public TimeSeriesReader {
 public:
  explicit Series(const std::string& path) : path_(path), file_(path, kFormat), labelled_(detail::read_labelled(file_.bytes(), path)) {
    text_ = file_.bytes();
    for (const Dataset& dataset : labelled_.datasets) {
      if (dataset.number == 2414) read_header(dataset);
      if (dataset.number == 55) read_header_55(dataset);
    }
  }

  std::size_t num_steps() const override { return steps_.size(); }
  double time(std::size_t step) const override { return std::get<2>(checked(step).key); }
  Mesh read_mesh() override { return labelled_.mesh; }

  TimeStep read_step(std::size_t step) override {
    const Step& entry = checked(step);
    TimeStep out;
    out.time = std::get<2>(entry.key);
    std::vector<std::string> used;
    for (const Result& result : entry.results) {
      std::string base = result.name;
      for (int k = 2; std::find(used.begin(), used.end(), base) != used.end(); ++k) base = result.name + "_" + std::to_string(k);
      used.push_back(base);
      read_values(result, base, out);
    }
    return out;
  }

 private:
  [[noreturn]] void fail(std::size_t offset, const std::string& message) const { detail::fail_at(text_, path_, offset, message); }

  const Step& checked(std::size_t step) const {
    if (step >= steps_.size())
      throw ReadError(path_, std::string(kFormat), "time step " + std::to_string(step) + " is out of range: the file has " +
                                                      std::to_string(steps_.size()) + " steps");
    return steps_[step];
  }

  Line need(Lines& lines, const Dataset& dataset, const char* what) const {
    Line line;
    if (!lines.next(line))
      fail(dataset.header_offset, "dataset " + std::to_string(dataset.number) + " ends before its " + std::string(what));
    return line;
  }

  template <std::size_t N> std::array<std::int64_t, N> ints(Lines& lines, const Dataset& dataset, const char* what) const {
    std::array<std::int64_t, N> out{};
    const Line line = need(lines, dataset, what);
    if (detail::read_ints(text_, line, out.data(), N, path_) < N)
      fail(line.begin, "dataset " + std::to_string(dataset.number) + ": " + std::string(what) + " needs " + std::to_string(N) +
                           " integers");
    return out;
  }

  std::array<double, 6> reals(Lines& lines, const Dataset& dataset, const char* what) const {
    std::array<double, 6> out{};
    const Line line = need(lines, dataset, what);
    detail::read_reals(text_, line, out.data(), out.size(), path_, 13);
    return out;
  }

  void read_header(const Dataset& dataset) {
    Lines lines(text_, dataset.begin, dataset.end);
    Result result;
    result.dataset = "dataset 2414";
    result.header_offset = dataset.header_offset;
    result.end = dataset.end;
    ints<1>(lines, dataset, "record 1 (label)");
    result.name = std::string(trimmed(need(lines, dataset, "record 2 (name)").text));
    result.location = ints<1>(lines, dataset, "record 3 (location)")[0];
    for (int k = 0; k < 5; ++k) need(lines, dataset, "records 4-8 (identification)");
    const auto r9 = ints<6>(lines, dataset, "record 9");
    const auto r10 = ints<8>(lines, dataset, "record 10");
    ints<2>(lines, dataset, "record 11");
    const auto r12 = reals(lines, dataset, "record 12");
    const auto r13 = reals(lines, dataset, "record 13");
    result.data_begin = lines.position();
    const std::int64_t analysis = r9[1];
    const std::int64_t data_type = r9[4];
    result.values = r9[5];
    if (result.values < 0 || result.values > 4096) fail(dataset.header_offset, "dataset 2414: " + std::to_string(result.values) + " values per entity");
    if (data_type != 1 && data_type != 2 && data_type != 4 && data_type != 5 && data_type != 6)
      fail(dataset.header_offset, "dataset 2414: unknown data type " + std::to_string(data_type));
    result.complex = data_type == 5 || data_type == 6;
    if (result.name.empty() || result.name == "NONE") result.name = result_type_name(r9[3]);
    if ((result.location != 1 && result.location != 2) || result.values == 0) return;  // not a node or element result
    std::tuple<std::int64_t, std::int64_t, double> key;
    if (analysis == 2) key = {analysis, r10[5], r12[1]};
    else if (analysis == 3 || analysis == 7) key = {analysis, r10[5], std::abs(r13[1]) / (2.0 * std::numbers::pi)};
    else if (analysis == 4 || analysis == 9) key = {analysis, r10[6], r12[0]};
    else if (analysis == 5) key = {analysis, r10[7], r12[1]};
    else if (analysis == 6) key = {analysis, r10[5], r12[2]};
    else key = {analysis, r10[4], r12[0] != 0.0 ? r12[0] : static_cast<double>(r10[4])};
    add(key, std::move(result));
  }

  // Dataset 55 (data at nodes, the older layout): records 1-5 identification (the first is the
  // name), record 6 as 2414's record 9, record 7 "NINT NRV" and NINT integers, record 8 NRV
  // reals (their meaning by analysis type), then node label and values records.
  void read_header_55(const Dataset& dataset) {
    Lines lines(text_, dataset.begin, dataset.end);
    Result result;
    result.dataset = "dataset 55";
    result.header_offset = dataset.header_offset;
    result.end = dataset.end;
    result.location = 1;
    result.name = std::string(trimmed(need(lines, dataset, "record 1 (name)").text));
    for (int k = 0; k < 4; ++k) need(lines, dataset, "records 2-5 (identification)");
    const auto r6 = ints<6>(lines, dataset, "record 6");
    std::vector<std::int64_t> integers;
    std::int64_t counts[8] = {};
    Line line = need(lines, dataset, "record 7");
    const std::size_t got = detail::read_ints(text_, line, counts, 8, path_);
    if (got < 2 || counts[0] < 0 || counts[1] < 0 || counts[0] > 64 || counts[1] > 64)
      fail(line.begin, "dataset 55: record 7 starts with the numbers of integers and reals (NINT, NRV)");
    integers.assign(counts + 2, counts + std::min<std::size_t>(got, 8));
    while (static_cast<std::int64_t>(integers.size()) < counts[0]) {
      std::int64_t more[8] = {};
      line = need(lines, dataset, "record 7");
      const std::size_t n = detail::read_ints(text_, line, more, 8, path_);
      if (n == 0) fail(line.begin, "dataset 55: record 7 has fewer integers than NINT");
      integers.insert(integers.end(), more, more + std::min<std::size_t>(n, 8));
    }
    std::vector<double> values;
    while (static_cast<std::int64_t>(values.size()) < counts[1]) {
      double more[6] = {};
      line = need(lines, dataset, "record 8");
      const std::size_t n = detail::read_reals(text_, line, more, 6, path_, 13);
      if (n == 0) fail(line.begin, "dataset 55: record 8 has fewer reals than NRV");
      values.insert(values.end(), more, more + std::min<std::size_t>(n, 6));
    }
    result.data_begin = lines.position();
    const auto i = [&](std::size_t k) { return k < integers.size() ? integers[k] : std::int64_t{0}; };
    const auto r = [&](std::size_t k) { return k < values.size() ? values[k] : 0.0; };
    const std::int64_t analysis = r6[1];
    result.values = r6[5];
    if (result.values <= 0 || result.values > 4096) fail(dataset.header_offset, "dataset 55: " + std::to_string(result.values) + " values per node");
    if (r6[4] != 2 && r6[4] != 4 && r6[4] != 5 && r6[4] != 6) fail(dataset.header_offset, "dataset 55: unknown data type " + std::to_string(r6[4]));
    result.complex = r6[4] == 5 || r6[4] == 6;
    if (result.name.empty() || result.name == "NONE") result.name = result_type_name(r6[3]);
    std::tuple<std::int64_t, std::int64_t, double> key;
    if (analysis == 2 || analysis == 4 || analysis == 5) key = {analysis, i(1), r(0)};
    else if (analysis == 3 || analysis == 7) key = {analysis, i(1), std::abs(r(1)) / (2.0 * std::numbers::pi)};
    else if (analysis == 6) key = {analysis, i(0), r(0)};
    else key = {analysis, i(0), r(0) != 0.0 ? r(0) : static_cast<double>(i(0))};
    add(key, std::move(result));
  }

  void add(const std::tuple<std::int64_t, std::int64_t, double>& key, Result result) {
    auto it = std::find_if(steps_.begin(), steps_.end(), [&](const Step& step) { return step.key == key; });
    if (it == steps_.end()) it = steps_.insert(steps_.end(), Step{key, {}});
    it->results.push_back(std::move(result));
  }

  void read_values(const Result& result, const std::string& name, TimeStep& out) const {
    const Mesh& mesh = labelled_.mesh;
    const std::int64_t width = result.values;
    const std::int64_t per = result.complex ? 2 : 1;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto shape = [&](std::int64_t rows) { return width == 1 ? Shape{rows} : Shape{rows, width}; };
    // The arrays cover every point or cell, whatever the dataset lists: bounded before allocating.
    const std::int64_t rows = result.location == 1 ? mesh.num_points() : mesh.num_cells();
    io::check_claim_fits_limit(path_, kFormat, result.dataset + " values", static_cast<std::uint64_t>(rows),
                               static_cast<std::uint64_t>(width * per) * sizeof(double), io::ClaimSite{result.header_offset, {}});
    std::vector<NDArray> parts;  // real (and imaginary) arrays: one, or one per block
    std::vector<std::int64_t> bases{0};
    if (result.location == 1) {
      for (std::int64_t part = 0; part < per; ++part) parts.push_back(NDArray::allocate(DType::float64, shape(mesh.num_points())));
    } else {
      for (std::int64_t part = 0; part < per; ++part)
        for (const CellBlock& block : mesh.cells) parts.push_back(NDArray::allocate(DType::float64, shape(block.num_cells())));
      for (const CellBlock& block : mesh.cells) bases.push_back(bases.back() + block.num_cells());
    }
    for (NDArray& part : parts) std::fill_n(part.data_as<double>(), part.size(), nan);
    const std::size_t blocks = mesh.cells.size();
    Lines lines(text_, result.data_begin, result.end);
    Line record;
    while (lines.next_significant(record)) {
      std::int64_t head[2] = {0, 0};
      const std::size_t got = detail::read_ints(text_, record, head, 2, path_);
      if (got < 1) fail(record.begin, result.dataset + ": a data record starts with a node or element label");
      std::int64_t count = width;
      if (result.location == 2 && got >= 2 && head[1] > 0) count = std::min<std::int64_t>(head[1], 4096);
      std::vector<double> read(static_cast<std::size_t>(count * per));
      std::size_t have = 0;
      Line line;
      while (have < read.size()) {
        if (!lines.next_significant(line))
          fail(record.begin, result.dataset + " ends inside the values of entity " + std::to_string(head[0]));
        const std::size_t n = detail::read_reals(text_, line, read.data() + have, read.size() - have, path_, 13);
        if (n == 0 || n > read.size() - have)
          fail(line.begin, result.dataset + ": entity " + std::to_string(head[0]) + " has more values than its record says");
        have += n;
      }
      // Place the row: a point, or (block, row) of a cell.
      std::size_t part_base = 0;
      std::int64_t row = -1;
      if (result.location == 1) {
        row = labelled_.node_ids.find(head[0]);
        if (row < 0) fail(record.begin, result.dataset + " names node " + std::to_string(head[0]) + ", which no node dataset defines");
      } else {
        const std::int64_t position = labelled_.element_ids.find(head[0]);
        if (position < 0)
          fail(record.begin, result.dataset + " names element " + std::to_string(head[0]) + ", which no element dataset defines");
        const std::int64_t index = labelled_.element_index[static_cast<std::size_t>(position)];
        if (index < 0) continue;  // an element of a kind we do not read
        part_base = static_cast<std::size_t>(std::upper_bound(bases.begin(), bases.end(), index) - bases.begin() - 1);
        row = index - bases[part_base];
      }
      for (std::int64_t part = 0; part < per; ++part) {
        double* target = parts[part_base + static_cast<std::size_t>(part) * (result.location == 1 ? 1 : blocks)].data_as<double>() + row * width;
        for (std::int64_t k = 0; k < std::min(width, count); ++k) target[k] = read[static_cast<std::size_t>(k * per + part)];
      }
    }
    const char* const suffixes[] = {"_real", "_imag"};
    for (std::int64_t part = 0; part < per; ++part) {
      const std::string label = result.complex ? name + suffixes[part] : name;
      if (result.location == 1) {
        out.point_data.set(label, std::move(parts[static_cast<std::size_t>(part)]));
      } else {
        std::vector<NDArray> arrays;
        for (std::size_t b = 0; b < blocks; ++b) arrays.push_back(std::move(parts[static_cast<std::size_t>(part) * blocks + b]));
        out.cell_data.set(label, std::move(arrays));
      }
    }
  }

  std::string path_;
  io::MappedFile file_;
  std::string_view text_;
  detail::LabelledMesh labelled_;
  std::vector<Step> steps_;
};

}  // namespace

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path) { return std::make_unique<Series>(path); }

}  // namespace meshioplusplus::unv
