// PVD as a time series (include/meshioplusplus/time_series.hpp).
//
// Reading: opening reads only the .pvd (the steps and their times, parts of one time merged);
// read_mesh() reads the first step's file and keeps its points and cells; read_step(k) reads
// step k's file(s) and returns their point/cell/field data, which must fit that mesh (same
// number of points, same blocks) — else a ReadError naming the .pvd and the step.
// Writing: write_mesh() keeps the mesh; each write_step() writes one complete .vtu
// (<stem>/<stem>_<k>.vtu, the step's arrays on the mesh) as it arrives; close() writes the
// collection. A writer destroyed without close() removes its step files and leaves no .pvd.
// Appending: the index keeps its entries as written; new steps get the next free file numbers
// and their entries go before </Collection> at close().
#include <charconv>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "formats/vtk_xml/pvd_time_series.hpp"
#include "formats/vtk_xml/vtk_xml.hpp"
#include "formats/vtk_xml/vtk_xml_common.hpp"
#include "formats/vtu/vtu.hpp"
#include "io/output/kept_geometry.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/series_append.hpp"
#include "io/source/mapped_file.hpp"
#include "io/text/xml_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::pvd {
namespace {

class SeriesReader : public TimeSeriesReader {
 public:
  explicit SeriesReader(std::string path) : path_(std::move(path)), steps_(read_steps(path_)) {}

  std::size_t num_steps() const override { return steps_.size(); }
  double time(std::size_t step) const override { return steps_.at(check(step)).first; }

  Mesh read_mesh() override {
    if (steps_.empty()) throw ReadError(path_, "pvd", "the collection lists no DataSet");
    Mesh mesh = read_time(steps_.front().first);
    mesh.point_data = {};
    mesh.cell_data = {};
    mesh.field_data = {};
    num_points_ = mesh.num_points();
    for (const CellBlock& block : mesh.cells) block_cells_.push_back(block.num_cells());
    mesh_read_ = true;
    return mesh;
  }

  TimeStep read_step(std::size_t step) override {
    check(step);
    Mesh mesh = read_time(steps_[step].first);
    const std::string where = "step " + std::to_string(step) + " (" + steps_[step].second + ")";
    if (mesh_read_) {
      std::vector<std::int64_t> cells;
      for (const CellBlock& block : mesh.cells) cells.push_back(block.num_cells());
      if (mesh.num_points() != num_points_ || cells != block_cells_)
        throw ReadError(path_, "pvd", where + ": its points or cell blocks differ from the first step's mesh");
    }
    TimeStep result;
    result.time = steps_[step].first;
    result.point_data = std::move(mesh.point_data);
    result.cell_data = std::move(mesh.cell_data);
    result.field_data = std::move(mesh.field_data);
    return result;
  }

 private:
  std::size_t check(std::size_t step) const {
    if (step >= steps_.size())
      throw ReadError(path_, "pvd", "step " + std::to_string(step) + " out of range (" + std::to_string(steps_.size()) +
                                        " steps)");
    return step;
  }

  Mesh read_time(double time) const {
    Mesh mesh = read_at_time(path_, time);
    mesh.field_data = [&] {
      NamedList<NDArray> kept;
      for (auto& [name, array] : mesh.field_data)
        if (name != "pvd:time") kept.set(name, array);
      return kept;
    }();
    return mesh;
  }

  std::string path_;
  std::vector<std::pair<double, std::string>> steps_;
  bool mesh_read_ = false;
  std::int64_t num_points_ = 0;
  std::vector<std::int64_t> block_cells_;
};

class SeriesWriter : public TimeSeriesWriter {
 public:
  SeriesWriter(std::string path, const WriteOptions& options, bool append) : path_(std::move(path)), options_(options) {
    io::vtk_xml::parse_write_settings(options_);  // bad options fail before any file is written
    std::error_code error;
    if (append && std::filesystem::exists(path_, error)) open_existing();
  }
  ~SeriesWriter() override {
    if (closed_) return;
    std::error_code ignored;
    for (const auto& [time, file] : written_) std::filesystem::remove(file, ignored);
  }

  void write_mesh(const Mesh& mesh) override {
    if (has_mesh_ && !appending_) throw WriteError(path_, "pvd", "write_mesh() called twice");
    if (appending_) io::check_appended_mesh(path_, "pvd", mesh_, mesh);
    std::vector<Region> regions = std::move(mesh_.regions);  // an appended file's, else none
    mesh_ = io::kept_geometry(mesh);
    mesh_.regions = std::move(regions);
    has_mesh_ = true;
  }

  void write_step(const TimeStep& step) override {
    if (!has_mesh_) throw WriteError(path_, "pvd", "write_step() before write_mesh()");
    if (closed_) throw WriteError(path_, "pvd", "write_step() after close()");
    Mesh mesh = mesh_;
    mesh.point_data = step.point_data;
    mesh.cell_data = step.cell_data;
    mesh.field_data = step.field_data;
    const std::filesystem::path index(path_);
    const std::string stem = index.stem().string();
    const std::filesystem::path folder = index.parent_path() / stem;
    std::error_code error;
    std::filesystem::create_directories(folder, error);
    if (error) throw WriteError(path_, "pvd", "cannot create the folder '" + folder.string() + "': " + error.message());
    // Appending: the next number no file of the folder has yet.
    std::string name;
    do name = stem + "_" + std::to_string(next_number_++) + ".vtu";
    while (appending_ && std::filesystem::exists(folder / name, error));
    try {
      vtu::write((folder / name).string(), mesh, options_);
    } catch (const std::invalid_argument& problem) {
      throw WriteError(path_, "pvd", "step " + std::to_string(written_.size()) + ": " + problem.what());
    }
    written_.emplace_back(step.time, (folder / name).string());
    relative_.push_back(stem + "/" + name);
  }

  void close() override {
    if (closed_) return;
    std::string entries;
    for (std::size_t k = 0; k < written_.size(); ++k) {
      char buffer[32];
      const auto result = std::to_chars(buffer, buffer + sizeof buffer, written_[k].first);
      entries += "    <DataSet timestep=\"" + std::string(buffer, result.ptr) + "\" group=\"\" part=\"0\" file=\"" +
                 io::escape_xml_attribute(relative_[k]) + "\"/>\n";
    }
    // Appending: the index as it was, the new entries before its </Collection>.
    const std::string text = appending_ ? existing_.substr(0, insert_at_) + entries + existing_.substr(insert_at_)
                                        : vtk_xml_detail::index_prologue("Collection") + "  <Collection>\n" + entries +
                                              "  </Collection>\n</VTKFile>\n";
    io::AtomicFile file(path_, "pvd");
    file.write(text);
    file.commit();
    closed_ = true;
  }

 private:
  // Append: the index's text (its entries stay as written) and the mesh of its first step,
  // which the new steps are written on unless write_mesh() gives it again.
  void open_existing() {
    SeriesReader reader(path_);
    mesh_ = reader.read_mesh();
    const io::MappedFile index(path_, "pvd");
    existing_ = std::string(index.bytes());
    insert_at_ = existing_.rfind("</Collection>");
    if (insert_at_ == std::string::npos)
      throw WriteError(path_, "pvd", "append: the file has no </Collection> to add the steps to");
    while (insert_at_ > 0 && (existing_[insert_at_ - 1] == ' ' || existing_[insert_at_ - 1] == '\t')) --insert_at_;
    next_number_ = reader.num_steps();
    has_mesh_ = appending_ = true;
  }

  std::string path_;
  WriteOptions options_;
  Mesh mesh_;
  bool has_mesh_ = false, closed_ = false;
  bool appending_ = false;
  std::string existing_;
  std::size_t insert_at_ = 0;
  std::size_t next_number_ = 0;
  std::vector<std::pair<double, std::string>> written_;
  std::vector<std::string> relative_;
};

}  // namespace

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path) {
  return std::make_unique<SeriesReader>(path);
}

std::unique_ptr<TimeSeriesWriter> create_time_series(const std::string& path, const WriteOptions& options) {
  return std::make_unique<SeriesWriter>(path, options, false);
}

std::unique_ptr<TimeSeriesWriter> append_time_series(const std::string& path, const WriteOptions& options) {
  return std::make_unique<SeriesWriter>(path, options, true);
}

}  // namespace meshioplusplus::pvd
