// Femap neutral file writer.
//
// Writes the blocks Femap 8.2 reads (the version in the 100 header): 402 properties, 403
// nodes, 404 elements and one 450 output set with a 451 vector per data component. Node ids
// are 1..n, element ids 1..m across the blocks in order, so point i is node i + 1 and
// block-major cell k is element k + 1. Reals are the shortest text that reads back to the
// same double, so a read gives the points and data back bit for bit.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/femap/femap.hpp"
#include "formats/femap/femap_internal.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/parallel_rows.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::femap {
namespace {

using detail::kFormat;
using detail::Topology;

// A title fits one record line: line breaks become blanks, "" becomes "<NULL>".
std::string clean_title(std::string_view title) {
  std::string out(title.substr(0, 79));
  for (char& c : out)
    if (c == '\n' || c == '\r') c = ' ';
  return out.empty() ? std::string("<NULL>") : out;
}

// An int64 view of a cell-data array per block (empty when absent or not one value a cell).
std::vector<NDArray> int64_table(const Mesh& mesh, std::string_view name) {
  std::vector<NDArray> out;
  const std::vector<NDArray>* arrays = mesh.cell_data.find(name);
  if (arrays == nullptr || arrays->size() != mesh.cells.size()) return out;
  for (std::size_t b = 0; b < arrays->size(); ++b) {
    const NDArray& array = (*arrays)[b];
    if (array.size() != static_cast<std::size_t>(mesh.cells[b].num_cells()) || dtype_is_float(array.dtype())) return {};
    out.push_back(array.dtype() == DType::int64 ? array : array.astype(DType::int64));
  }
  return out;
}

// One output vector: a component of a numeric point or cell data array.
struct VectorSource {
  std::string title;
  int entity;  // 7 nodal, 8 elemental
  std::vector<const NDArray*> arrays;  // one (points) or one per block (cells)
  std::int64_t component, width;
};

class Writer {
 public:
  Writer(const std::string& path, const Mesh& mesh) : mesh_(mesh), file_(path, kFormat), out_(file_) {}

  void write() {
    plan();
    open(100);
    out_.text("meshio++\n8.2,\n");
    close();
    write_properties();
    write_nodes();
    write_elements();
    write_output();
    out_.flush();
    file_.commit();
  }

 private:
  void plan() {
    if (mesh_.points.ndim() != 2 || mesh_.points.dim(1) > 3 || !dtype_is_float(mesh_.points.dtype()))
      throw std::invalid_argument("Femap neutral: points must be float (n, 1..3)");
    for (const CellBlock& block : mesh_.cells) {
      const Topology* topology = block.is_ragged() ? nullptr : detail::topology_of_type(block.type);
      if (topology == nullptr) throw std::invalid_argument("Femap neutral has no topology for cell type '" + block.type + "'");
      topologies_.push_back(topology);
    }
    properties_ = int64_table(mesh_, "femap:property");
    types_ = int64_table(mesh_, "femap:type");
  }

  std::int64_t property(std::size_t block, std::int64_t row) const {
    return properties_.empty() ? 1 : properties_[block].data_as<std::int64_t>()[row];
  }
  std::int64_t element_type(std::size_t block, std::int64_t row) const {
    return types_.empty() ? topologies_[block]->default_type : types_[block].data_as<std::int64_t>()[row];
  }

  void open(int block) {
    out_.text("   -1\n");
    char scratch[16];
    const auto result = std::to_chars(scratch, scratch + sizeof scratch, block);
    for (auto width = result.ptr - scratch; width < 6; ++width) out_.put(' ');
    out_.text(std::string_view(scratch, static_cast<std::size_t>(result.ptr - scratch)));
    out_.put('\n');
  }
  void close() { out_.text("   -1\n"); }
  void values(std::string_view value, int count, int per_line) {
    for (int k = 0; k < count; ++k) {
      out_.text(value);
      if ((k + 1) % per_line == 0 || k + 1 == count) out_.put('\n');
    }
  }

  void write_properties() {
    std::map<std::int64_t, std::int64_t> type_of;  // property id -> the element type of its first cell
    std::optional<std::int64_t> previous;  // runs of one property: emplace would keep the first anyway
    for (std::size_t b = 0; b < mesh_.cells.size(); ++b)
      for (std::int64_t r = 0; r < mesh_.cells[b].num_cells(); ++r) {
        const std::int64_t id = property(b, r);
        if (previous == id) continue;
        previous = id;
        type_of.emplace(id, element_type(b, r));
      }
    if (type_of.empty()) return;
    open(402);
    for (const auto& [id, type] : type_of) {
      std::string title = "property_" + std::to_string(id);
      for (const Region& region : mesh_.regions)
        if (region.kind == RegionKind::Cell && region.tag == id && !region.name.empty()) {
          title = region.name;
          break;
        }
      out_.number(id);
      out_.text(",110,0,");
      out_.number(type);
      out_.text(",1,0,\n");
      out_.text(clean_title(title));
      out_.text("\n0,0,0,0,\n90,\n");
      values("0,", 90, 8);
      out_.text("190,\n");
      values("0.,", 190, 5);
      out_.text("0,\n0,\n");
    }
    close();
  }

  void write_nodes() {
    open(403);
    const std::int64_t width = mesh_.points.dim(1);
    const NDArray points = mesh_.points.dtype() == DType::float64 ? mesh_.points : mesh_.points.astype(DType::float64);
    const double* xyz = points.data_as<double>();
    static constexpr std::string_view kAttributes = ",0,0,1,46,0,0,0,0,0,0,";
    io::write_rows_in_parallel(out_, file_, mesh_.points.rows(), 4 * (io::kMaxNumberChars + 1) + kAttributes.size() + 1,
                               [&](char* p, std::int64_t row) {
                                 p = io::put_number(p, row + 1);
                                 p = std::copy(kAttributes.begin(), kAttributes.end(), p);
                                 for (std::int64_t axis = 0; axis < 3; ++axis) {
                                   p = io::put_number(p, axis < width ? xyz[row * width + axis] : 0.0);
                                   *p++ = ',';
                                 }
                                 *p++ = '\n';
                                 return p;
                               });
    close();
  }

  void write_elements() {
    if (mesh_.num_cells() == 0) return;
    open(404);
    std::int64_t label = 0;
    for (std::size_t b = 0; b < mesh_.cells.size(); ++b) {
      const Topology& topology = *topologies_[b];
      const NDArray connectivity = mesh_.cells[b].connectivity.dtype() == DType::int64
                                       ? mesh_.cells[b].connectivity
                                       : mesh_.cells[b].connectivity.astype(DType::int64);
      const std::int64_t* nodes = connectivity.data_as<std::int64_t>();
      static constexpr std::string_view kHeadEnd = ",1,0,0,0,0,0,0,0,\n";
      static constexpr std::string_view kTail = "0.,0.,0.,\n0.,0.,0.,\n0.,0.,0.,\n0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n";
      const std::int64_t first_label = label;
      io::write_rows_in_parallel(
          out_, file_, mesh_.cells[b].num_cells(), 25 * (io::kMaxNumberChars + 1) + kHeadEnd.size() + kTail.size() + 16,
          [&](char* p, std::int64_t r) {
            std::int64_t slots[20] = {};
            for (int i = 0; i < topology.nodes; ++i) slots[topology.slots[static_cast<std::size_t>(i)]] = nodes[r * topology.nodes + i] + 1;
            p = io::put_number(p, first_label + r + 1);
            p = std::copy_n(",124,", 5, p);
            p = io::put_number(p, property(b, r));
            *p++ = ',';
            p = io::put_number(p, element_type(b, r));
            *p++ = ',';
            p = io::put_number(p, topology.code);
            p = std::copy(kHeadEnd.begin(), kHeadEnd.end(), p);
            for (int k = 0; k < 20; ++k) {
              p = io::put_number(p, slots[k]);
              *p++ = ',';
              if (k == 9 || k == 19) *p++ = '\n';
            }
            return std::copy(kTail.begin(), kTail.end(), p);
          });
      label += mesh_.cells[b].num_cells();
    }
    close();
  }

  std::vector<VectorSource> vector_sources() const {
    std::vector<VectorSource> out;
    for (const auto& [name, array] : mesh_.point_data) {
      if (array.rows() != mesh_.num_points() || array.ndim() > 2 || array.ndim() == 0) continue;
      const std::int64_t width = array.row_width();
      for (std::int64_t c = 0; c < width; ++c)
        out.push_back({width == 1 ? name : name + "_" + std::to_string(c), 7, {&array}, c, width});
    }
    for (const auto& [name, arrays] : mesh_.cell_data) {
      if (name.starts_with("femap:") || arrays.size() != mesh_.cells.size() || arrays.empty()) continue;
      const std::int64_t width = arrays.front().row_width();
      bool usable = true;
      std::vector<const NDArray*> pointers;
      for (std::size_t b = 0; b < arrays.size(); ++b) {
        usable = usable && arrays[b].ndim() >= 1 && arrays[b].ndim() <= 2 && arrays[b].row_width() == width &&
                 arrays[b].rows() == mesh_.cells[b].num_cells();
        pointers.push_back(&arrays[b]);
      }
      if (!usable) continue;
      for (std::int64_t c = 0; c < width; ++c)
        out.push_back({width == 1 ? name : name + "_" + std::to_string(c), 8, pointers, c, width});
    }
    return out;
  }

  void write_output() {
    const std::vector<VectorSource> sources = vector_sources();
    if (sources.empty()) return;
    std::int64_t set = 1;
    double value = 0.0;
    if (const NDArray* id = mesh_.field_data.find("femap:output_set"); id != nullptr && id->size() == 1)
      set = std::max<std::int64_t>(1, id->astype(DType::int64).data_as<std::int64_t>()[0]);
    if (const NDArray* time = mesh_.field_data.find("femap:output_value"); time != nullptr && time->size() == 1)
      value = time->astype(DType::float64).data_as<double>()[0];
    open(450);
    out_.number(set);
    out_.text(",\nmeshio++\n0,0,\n");
    out_.number(value);
    out_.text(",\n0,\n");
    close();
    open(451);
    std::int64_t vector_id = 9000000;
    for (const VectorSource& source : sources) {
      std::vector<std::pair<std::int64_t, double>> records;
      std::int64_t label = 0;
      for (const NDArray* array : source.arrays) {
        const NDArray values = array->astype(DType::float64);
        const double* data = values.data_as<double>();
        for (std::int64_t r = 0; r < values.rows(); ++r) {
          ++label;
          const double x = data[r * source.width + source.component];
          if (!std::isnan(x)) records.emplace_back(label, x);
        }
      }
      double low = 0, high = 0, magnitude = 0;
      std::int64_t id_low = 0, id_high = 0;
      for (std::size_t k = 0; k < records.size(); ++k) {
        const auto [id, x] = records[k];
        if (k == 0 || x < low) low = x, id_low = id;
        if (k == 0 || x > high) high = x, id_high = id;
        magnitude = std::max(magnitude, std::abs(x));
      }
      out_.number(set);
      out_.put(',');
      out_.number(++vector_id);
      out_.text(",1,\n");
      out_.text(clean_title(source.title));
      out_.put('\n');
      for (const double x : {low, high, magnitude}) {
        out_.number(x);
        out_.put(',');
      }
      out_.text("\n0,0,0,0,0,0,0,0,0,0,\n0,0,0,0,0,0,0,0,0,0,\n");
      out_.number(id_low);
      out_.put(',');
      out_.number(id_high);
      out_.text(",0,");
      out_.number(source.entity);
      out_.text(",\n0,0,1,\n");
      for (const auto& [id, x] : records) {
        out_.number(id);
        out_.put(',');
        out_.number(x);
        out_.text(",\n");
      }
      out_.text("-1,0.,\n");
    }
    close();
  }

  const Mesh& mesh_;
  io::AtomicFile file_;
  io::OutputBuffer out_;
  std::vector<const Topology*> topologies_;
  std::vector<NDArray> properties_, types_;
};

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& /*options*/) { Writer(path, mesh).write(); }

}  // namespace meshioplusplus::femap
