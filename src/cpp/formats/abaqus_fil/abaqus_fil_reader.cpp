// Abaqus .fil results: the mesh of the model records and one time step per increment
// (abaqus_fil.hpp says what becomes what). Opening reads every record once (the file is
// sequential: increments are found only by walking it) and keeps the mesh and each
// increment's byte range; read_step(k) walks only increment k's bytes.
#include "formats/abaqus_fil/abaqus_fil.hpp"

#include <cmath>
#include <limits>
#include <map>

#include "formats/abaqus/abaqus_element_types.hpp"
#include "formats/abaqus_fil/abaqus_fil_records.hpp"
#include "io/cells/id_map.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::abaqus_fil {

namespace {

using detail::integer;
using detail::kFormat;
using detail::real;
using detail::Record;
using detail::RecordStream;

constexpr std::int64_t kElementHeader = 1, kNode = 1901, kElement = 1900, kIncrementStart = 2000;

// Variable names of the output keys (Abaqus Analysis User's Guide, "Results file output format").
std::string variable_name(std::int64_t key) {
  static const std::map<std::int64_t, std::string_view> names{
      {2, "TEMP"},   {3, "LOADS"}, {4, "FLUXS"}, {5, "SDV"},   {6, "VOIDR"}, {7, "FOUND"},  {8, "COORD"},
      {9, "FV"},     {10, "NFLUX"}, {11, "S"},   {12, "SINV"}, {13, "SF"},   {14, "ENER"},  {15, "NFORC"},
      {16, "MSS"},   {17, "JK"},   {18, "POR"},  {19, "ELEN"}, {21, "E"},    {22, "PE"},    {23, "CE"},
      {24, "IE"},    {25, "EE"},   {26, "CRACK"}, {27, "STH"}, {28, "HFL"},  {29, "SE"},    {30, "DG"},
      {31, "CONF"},  {32, "SJP"},  {33, "FILM"}, {34, "RAD"},  {35, "SAT"},  {36, "SS"},    {38, "CONC"},
      {39, "MFL"},   {40, "GELVR"}, {42, "SPE"}, {43, "FLUVR"}, {45, "PEQC"}, {58, "MASS"}, {59, "VOL"},
      {61, "STATUS"}, {73, "PEEQ"}, {74, "PRESS"}, {75, "MISES"}, {83, "EVOL"}, {85, "LOCALCSYS"}, {88, "THE"},
      {89, "LE"},    {90, "NE"},   {91, "ER"},   {101, "U"},   {102, "V"},   {103, "A"},    {104, "RF"},
      {105, "EPOT"}, {106, "CF"},  {107, "COORD"}, {108, "POR"}, {109, "RVF"}, {110, "RVT"}, {201, "NT"},
      {204, "RFL"},  {206, "CFL"}, {214, "RFLE"}, {221, "NNC"}};
  const auto it = names.find(key);
  return it != names.end() ? std::string(it->second) : "key" + std::to_string(key);
}

bool element_output(std::int64_t key) { return key >= 2 && key <= 99; }
bool node_output(std::int64_t key) { return key >= 101 && key <= 399; }

struct Increment {
  std::size_t begin = 0, end = 0;
  double time = 0, step_time = 0;
  std::int64_t step = 0, increment = 0;
};

struct Block {
  std::string type;
  std::vector<std::int64_t> connectivity;  // file node ids, converted to positions at the end
  std::vector<std::int64_t> element_ids;
  int nodes_per_cell = 0;
};

struct Structure {
  std::string path;
  std::unique_ptr<io::MappedFile> file;
  std::unique_ptr<RecordStream> records;
  Mesh mesh;  // points, cells, ids
  io::IdMap nodes;
  io::IdMap elements;
  std::vector<std::int64_t> block_sizes;
  std::vector<Increment> increments;
};

[[noreturn]] void fail(const Structure& s, std::size_t offset, const std::string& message) {
  throw ReadError(s.path, std::string(kFormat), message, offset);
}

// Sums per row of up to `width` components; the width grows when a longer record arrives.
class RowAverager {
 public:
  explicit RowAverager(std::int64_t rows) : rows_(rows) {}
  void add(std::int64_t row, const std::vector<detail::Word>& words, std::size_t first, bool average) {
    const std::size_t count = words.size() - first;
    if (count > width_) widen(count);
    for (std::size_t c = 0; c < count; ++c) {
      const std::size_t at = static_cast<std::size_t>(row) * width_ + c;
      const double value = real(words[first + c]);
      if (average) {
        sum_[at] += value;
        ++count_[at];
      } else {
        sum_[at] = value;
        count_[at] = 1;
      }
    }
  }
  NDArray finish() const {
    NDArray out = width_ == 1 ? NDArray::allocate(DType::float64, {rows_})
                              : NDArray::allocate(DType::float64, {rows_, static_cast<std::int64_t>(width_)});
    double* data = out.data_as<double>();
    for (std::size_t k = 0; k < sum_.size(); ++k)
      data[k] = count_[k] ? sum_[k] / count_[k] : std::numeric_limits<double>::quiet_NaN();
    return out;
  }

 private:
  void widen(std::size_t width) {
    std::vector<double> sum(static_cast<std::size_t>(rows_) * width, 0.0);
    std::vector<std::int32_t> count(sum.size(), 0);
    for (std::int64_t r = 0; r < rows_; ++r)
      for (std::size_t c = 0; c < width_; ++c) {
        sum[r * width + c] = sum_[r * width_ + c];
        count[r * width + c] = count_[r * width_ + c];
      }
    sum_.swap(sum);
    count_.swap(count);
    width_ = width;
  }
  std::int64_t rows_;
  std::size_t width_ = 0;
  std::vector<double> sum_;
  std::vector<std::int32_t> count_;
};

bool wanted_in_model(std::int64_t key) { return key == kNode || key == kElement || key == kIncrementStart; }
bool wanted_after_model(std::int64_t key) { return key == kIncrementStart; }

std::shared_ptr<Structure> open_structure(const std::string& path) {
  auto s = std::make_shared<Structure>();
  s->path = path;
  s->file = std::make_unique<io::MappedFile>(path, kFormat);
  if (s->file->bytes().empty()) fail(*s, 0, "the file is empty");
  s->records = std::make_unique<RecordStream>(s->file->bytes(), s->path);
  RecordStream walk(*s->records, 0, s->file->bytes().size());
  Record record;
  std::vector<std::int64_t> node_ids;
  std::vector<double> coordinates;  // 3 per node
  int columns = 0;
  std::vector<Block> blocks;
  std::map<std::string, std::size_t> block_of_type;
  std::int64_t skipped = 0;
  bool model = true;  // before the first increment
  while (true) {
    const std::size_t offset = walk.next_offset();
    if (!walk.next(record, model ? wanted_in_model : wanted_after_model)) break;
    const auto& w = record.words;
    if (record.key == kIncrementStart) {
      if (w.size() < 7) fail(*s, offset, "an increment record (2000) is too short");
      if (!s->increments.empty()) s->increments.back().end = offset;
      s->increments.push_back({offset, s->file->bytes().size(), real(w[0]), real(w[1]), integer(w[5]), integer(w[6])});
      model = false;
    } else if (model && record.key == kNode) {
      if (w.size() < 2) fail(*s, offset, "a node record (1901) has no coordinates");
      node_ids.push_back(integer(w[0]));
      const std::size_t given = std::min<std::size_t>(3, w.size() - 1);
      columns = std::max(columns, static_cast<int>(given));
      for (std::size_t c = 0; c < 3; ++c) coordinates.push_back(c < given ? real(w[1 + c]) : 0.0);
    } else if (model && record.key == kElement) {
      if (w.size() < 3) fail(*s, offset, "an element record (1900) has no nodes");
      std::string name = detail::text(w[1]);
      for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      const abaqus::detail::ElementType type = abaqus::detail::element_type(name);
      const std::size_t given = w.size() - 2;
      if (!type.cell || static_cast<std::size_t>(type.cell->num_nodes) != given) {
        ++skipped;
        continue;
      }
      auto [it, inserted] = block_of_type.try_emplace(std::string(type.cell->name), blocks.size());
      if (inserted) blocks.push_back({std::string(type.cell->name), {}, {}, type.cell->num_nodes});
      Block& block = blocks[it->second];
      block.element_ids.push_back(integer(w[0]));
      const std::size_t base = block.connectivity.size();
      block.connectivity.resize(base + given);
      for (std::size_t k = 0; k < given; ++k) {
        const std::size_t to = type.file_to_meshio.empty() ? k : static_cast<std::size_t>(type.file_to_meshio[k]);
        block.connectivity[base + to] = integer(w[2 + k]);
      }
    }
  }
  if (node_ids.empty()) fail(*s, 0, "the file has no node records (1901): not an Abaqus results file with a model");
  if (const auto repeated = s->nodes.build(node_ids))
    fail(*s, 0, "node " + std::to_string(node_ids[*repeated]) + " is defined twice");
  const std::int64_t n = static_cast<std::int64_t>(node_ids.size());
  Mesh& mesh = s->mesh;
  mesh.points = NDArray::allocate(DType::float64, {n, columns});
  double* points = mesh.points.data_as<double>();
  for (std::int64_t p = 0; p < n; ++p)
    for (int c = 0; c < columns; ++c) points[p * columns + c] = coordinates[p * 3 + c];
  NDArray ids = NDArray::allocate(DType::int64, {n});
  std::copy(node_ids.begin(), node_ids.end(), ids.data_as<std::int64_t>());
  mesh.point_data.append_new("abaqus_fil:node_id", std::move(ids));
  std::vector<std::int64_t> element_ids;
  std::vector<NDArray> element_id_arrays;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    Block& block = blocks[b];
    const std::int64_t rows = static_cast<std::int64_t>(block.element_ids.size());
    NDArray conn = NDArray::allocate(DType::int64, {rows, block.nodes_per_cell});
    std::int64_t* out = conn.data_as<std::int64_t>();
    for (std::size_t k = 0; k < block.connectivity.size(); ++k) {
      const std::int64_t at = s->nodes.find(block.connectivity[k]);
      if (at < 0)
        fail(*s, 0, "element " + std::to_string(block.element_ids[k / block.nodes_per_cell]) + " uses node " +
                        std::to_string(block.connectivity[k]) + ", which has no node record");
      out[k] = at;
    }
    mesh.cells.push_back({block.type, std::move(conn), {}, {}});
    NDArray block_ids = NDArray::allocate(DType::int64, {rows});
    std::copy(block.element_ids.begin(), block.element_ids.end(), block_ids.data_as<std::int64_t>());
    element_id_arrays.push_back(std::move(block_ids));
    element_ids.insert(element_ids.end(), block.element_ids.begin(), block.element_ids.end());
    s->block_sizes.push_back(rows);
  }
  if (!blocks.empty()) mesh.cell_data.append_new("abaqus_fil:element_id", std::move(element_id_arrays));
  if (const auto repeated = s->elements.build(element_ids))
    fail(*s, 0, "element " + std::to_string(element_ids[*repeated]) + " is defined twice");
  if (skipped) mesh.field_data.append_new("abaqus_fil:skipped_elements", NDArray::from_values<std::int64_t>({skipped}));
  return s;
}

// An output record's component count decides the width of a whole array (rows × width): a
// corrupt record must not claim more memory than the read limits allow.
void check_width(const Structure& s, const Record& record, std::int64_t rows, std::size_t width) {
  constexpr std::size_t kMaxComponents = 4096;
  if (width > kMaxComponents)
    fail(s, record.offset, "output record " + std::to_string(record.key) + " has " + std::to_string(width) +
                               " components (more than " + std::to_string(kMaxComponents) + ")");
  io::check_claim_fits_limit(s.path, kFormat, "output components", static_cast<std::uint64_t>(rows) * width, 12);
}

class Series final : public TimeSeriesReader {
 public:
  explicit Series(std::shared_ptr<Structure> s) : s_(std::move(s)) {}

  std::size_t num_steps() const override { return s_->increments.size(); }
  double time(std::size_t step) const override {
    check(step);
    return s_->increments[step].time;
  }
  Mesh read_mesh() override {
    Mesh mesh;
    mesh.points = s_->mesh.points.copy();
    for (const CellBlock& block : s_->mesh.cells) mesh.cells.push_back({block.type, block.connectivity.copy(), {}, {}});
    for (const auto& [name, array] : s_->mesh.point_data) mesh.point_data.append_new(name, array.copy());
    for (const auto& [name, arrays] : s_->mesh.cell_data) {
      std::vector<NDArray> copies;
      for (const NDArray& array : arrays) copies.push_back(array.copy());
      mesh.cell_data.append_new(name, std::move(copies));
    }
    for (const auto& [name, array] : s_->mesh.field_data) mesh.field_data.append_new(name, array.copy());
    return mesh;
  }

  TimeStep read_step(std::size_t step) override {
    check(step);
    const Structure& s = *s_;
    const Increment& increment = s.increments[step];
    RecordStream walk(*s.records, increment.begin, increment.end);
    const std::int64_t n_points = s.nodes.size();
    const std::int64_t n_cells = s.elements.size();
    std::vector<std::pair<std::int64_t, RowAverager>> node_arrays, cell_arrays;  // key, values
    auto averager = [](std::vector<std::pair<std::int64_t, RowAverager>>& arrays, std::int64_t key, std::int64_t rows) -> RowAverager& {
      for (auto& [k, a] : arrays)
        if (k == key) return a;
      arrays.emplace_back(key, RowAverager(rows));
      return arrays.back().second;
    };
    Record record;
    std::int64_t current_cell = -1;
    while (walk.next(record)) {
      const auto& w = record.words;
      if (record.key == kElementHeader) {
        if (w.size() < 4) fail(s, record.offset, "an element header record (1) is too short");
        const std::int64_t location = integer(w[3]);
        current_cell = location == 4 ? -1 : s.elements.find(integer(w[0]));
      } else if (element_output(record.key)) {
        if (current_cell < 0 || w.empty()) continue;
        check_width(s, record, n_cells, w.size());
        averager(cell_arrays, record.key, n_cells).add(current_cell, w, 0, true);
      } else if (node_output(record.key)) {
        if (w.size() < 2) continue;
        check_width(s, record, n_points, w.size() - 1);
        const std::int64_t point = s.nodes.find(integer(w[0]));
        if (point >= 0) averager(node_arrays, record.key, n_points).add(point, w, 1, false);
      }
    }
    TimeStep out;
    out.time = increment.time;
    for (const auto& [key, values] : node_arrays) out.point_data.set(variable_name(key), values.finish());
    for (const auto& [key, values] : cell_arrays) {
      const NDArray all = values.finish();
      const std::int64_t width = all.ndim() == 1 ? 1 : all.dim(1);
      std::vector<NDArray> split;
      std::int64_t first = 0;
      for (const std::int64_t rows : s.block_sizes) {
        NDArray part = width == 1 ? NDArray::allocate(DType::float64, {rows}) : NDArray::allocate(DType::float64, {rows, width});
        std::copy(all.data_as<double>() + first * width, all.data_as<double>() + (first + rows) * width, part.data_as<double>());
        split.push_back(std::move(part));
        first += rows;
      }
      out.cell_data.set(variable_name(key), std::move(split));
    }
    out.field_data.append_new("abaqus_fil:step", NDArray::from_values<std::int64_t>({increment.step}));
    out.field_data.append_new("abaqus_fil:increment", NDArray::from_values<std::int64_t>({increment.increment}));
    out.field_data.append_new("abaqus_fil:step_time", NDArray::from_values<double>({increment.step_time}));
    return out;
  }

 private:
  void check(std::size_t step) const {
    if (step >= s_->increments.size())
      throw ReadError(s_->path, std::string(kFormat), "step " + std::to_string(step) + " is out of range (the file has " +
                                                          std::to_string(s_->increments.size()) + " increments)");
  }
  std::shared_ptr<Structure> s_;
};

}  // namespace

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path) {
  return std::make_unique<Series>(open_structure(path));
}

Mesh read(const std::string& path) {
  Series series(open_structure(path));
  Mesh mesh = series.read_mesh();
  if (series.num_steps() == 0) return mesh;
  TimeStep step = series.read_step(series.num_steps() - 1);
  for (auto& [name, array] : step.point_data) mesh.point_data.set(name, std::move(array));
  for (auto& [name, arrays] : step.cell_data) mesh.cell_data.set(name, std::move(arrays));
  for (auto& [name, array] : step.field_data) mesh.field_data.set(name, std::move(array));
  mesh.field_data.set("time", NDArray::from_values<double>({step.time}));
  return mesh;
}

}  // namespace meshioplusplus::abaqus_fil
