// Wavefront OBJ reader.
//
// Read: "v x y z [w]" or "v x y z r g b" (the common colour extension), "vt u [v [w]]",
// "vn x y z", and "f" with corners v, v/vt, v//vn or v/vt/vn — 1-based, or negative for
// "relative to the last one defined so far". '#' starts a comment anywhere on a line.
// Ignored: materials (mtllib, usemtl), smoothing groups (s), points/lines (p, l), free-form
// geometry, and anything unknown; line continuations ('\') are not supported.
//
// What becomes what:
//  - points float64 (n, 3); "w" values become point data "obj:w" (1 where a vertex has none)
//    and vertex colours point data "obj:color" (n, 3) (NaN where a vertex has none).
//  - faces: one block per run of faces of one cell type (triangle, quad, polygon; vertex/line
//    for 1/2 corners), in file order (io/cells/face_blocks). meshio also starts a new block at
//    every group.
//  - vt / vn: when there are as many as vertices and every corner that names one names the
//    one with its vertex's number, they are per-vertex data: point data "obj:vt" / "obj:vn"
//    (meshio's names). Otherwise (e.g. a UV seam duplicates texture coordinates, so there
//    are more vt than v) they go to field data "obj:vt" (nvt, width) / "obj:vn" (nvn, 3),
//    and each face's corners name theirs in cell data "obj:vt_index" / "obj:vn_index":
//    int64 (faces, corners), 0-based, -1 where a corner names none (polygon rows are padded
//    with -1 to the block's widest face). vt width is the widest vt line (missing values 0).
//  - "g a b" puts the following faces into Cell regions a and b (dim 2) and "o name" into
//    region name; "g" alone ends the groups. meshio keeps group numbers as cell data
//    "obj:group_ids" instead.
//
// Arrays: a first pass counts v/vt/vn lines, every face's corners and every region's faces,
// so each array is allocated once in final shape and the second pass parses straight into it.
// Threads: a large file is cut into line-aligned pieces of 2 MiB or more that the cores claim
// one at a time; both passes run on the pieces, each starting from the counts of those before
// it (so relative indices and runs of mixed faces read the same). A file with "g"/"o" lines
// (whose running region state the pieces would need) and any file with an error or a late
// need for index arrays is read by the sequential passes, so results and errors do not
// depend on threads.
#include <algorithm>
#include <charconv>
#include <cstring>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/obj/obj.hpp"
#include "io/cells/face_blocks.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "io/source/parallel.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/threads.hpp"

namespace meshioplusplus::obj {
namespace {

constexpr std::string_view kFormat = "obj";
constexpr std::int64_t kNone = -1;

// Which Cell regions the next face joins: the groups of the last "g" line and the object of
// the last "o" line. Both passes replay it, so regions get the same numbers each time.
class RegionState {
 public:
  void set_groups(io::TextScanner& scanner) {
    groups_.clear();
    for (std::string_view name = scanner.next_token(); !name.empty(); name = scanner.next_token()) {
      const std::size_t region = region_named(name);
      if (std::find(groups_.begin(), groups_.end(), region) == groups_.end()) groups_.push_back(region);
    }
  }

  void set_object(io::TextScanner& scanner) {
    scanner.skip_whitespace();
    std::string_view name = scanner.document().substr(scanner.position(), scanner.end() - scanner.position());
    while (!name.empty() && io::is_space(name.back())) name.remove_suffix(1);  // object names may hold blanks
    if (name.empty()) object_.reset();
    else object_ = region_named(name);
  }

  template <class Fn> void for_each_target(Fn&& fn) const {
    for (std::size_t region : groups_) fn(region);
    if (object_ && std::find(groups_.begin(), groups_.end(), *object_) == groups_.end()) fn(*object_);
  }

  const std::vector<std::string>& names() const noexcept { return names_; }

 private:
  std::size_t region_named(std::string_view name) {
    for (std::size_t r = 0; r < names_.size(); ++r)
      if (names_[r] == name) return r;
    names_.emplace_back(name);
    return names_.size() - 1;
  }

  std::vector<std::string> names_;
  std::vector<std::size_t> groups_;
  std::optional<std::size_t> object_;
};

// What the first pass finds (over the whole file, or over one piece of it).
struct Survey {
  std::int64_t vertices = 0;
  std::int64_t texcoords = 0;
  std::int64_t normals = 0;
  std::int64_t texcoord_width = 0;
  bool any_w = false;
  bool any_color = false;
  std::vector<std::int64_t> corner_counts;
  RegionState regions;
  std::vector<std::int64_t> region_sizes;  // faces per region (index as in `regions`)
};

// Where the second pass stands: what it has read so far (relative indices count back from
// there), what the corners named, and which regions the next face joins. A piece read on its
// own thread starts from the counts of the pieces before it.
struct PassState {
  std::int64_t vertices_seen = 0, texcoords_seen = 0, normals_seen = 0, faces_seen = 0;
  bool texcoords_per_vertex = true, normals_per_vertex = true;
  bool any_texcoord_index = false, any_normal_index = false;
  RegionState regions;
};

// One corner of a face, as 0-based indices (kNone where absent).
struct Corner {
  std::int64_t vertex = kNone;
  std::int64_t texcoord = kNone;
  std::int64_t normal = kNone;
};

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& path) : bytes_(bytes), path_(path) {}

  Mesh read() {
    // Large files are cut into line-aligned pieces for all cores. Both passes run on the
    // pieces when no "g"/"o" line needs the regions' running state and nothing is wrong;
    // otherwise the sequential passes read the file and word any error.
    std::vector<std::size_t> cuts = piece_cuts();
    std::vector<PassState> piece_starts;
    if (cuts.size() < 3 || !survey_in_pieces(cuts, piece_starts)) {
      survey_ = Survey();
      survey_lines(0, bytes_.size(), survey_);
      cuts.clear();
    }
    allocate();
    if (!cuts.empty() && parse_in_pieces(cuts, piece_starts)) return finish();
    // Per-corner index arrays are allocated only when needed; a file that turns out to need
    // one only halfway through is parsed again from the start (rare: vt/vn counts equal to
    // the vertex count, yet a corner names another one).
    for (;;) {
      try {
        pass_ = PassState();
        region_filled_.assign(region_entries_.size(), 0);
        io::FaceBlockFiller filler(*layout_, mesh_.cells);
        parse_lines(0, bytes_.size(), pass_, filler);
        break;
      } catch (const IndicesNeeded& needed) {
        texcoord_index_needed_ |= needed.texcoords;
        normal_index_needed_ |= needed.normals;
        allocate_corner_indices();
      }
    }
    return finish();
  }

 private:
  // ---- line walking ----

  // Calls `on_line(keyword, scanner)` for every line with data in [begin, end) (line starts);
  // the scanner covers the line up to its comment and stands after the keyword.
  template <class OnLine> void for_each_line(std::size_t begin, std::size_t end, OnLine on_line) const {
    io::TextScanner lines(bytes_, begin, end, path_, kFormat);
    // Where the next '#' is: most files have comments only in a header, so most lines are
    // known to hold none without searching them.
    const auto comment_from = [this, end](std::size_t from) {
      const void* hash = from < end ? std::memchr(bytes_.data() + from, '#', end - from) : nullptr;
      return hash ? static_cast<std::size_t>(static_cast<const char*>(hash) - bytes_.data()) : end;
    };
    std::size_t next_comment = comment_from(begin);
    while (!lines.at_end()) {
      const std::string_view line = lines.next_line();
      const std::size_t line_begin = static_cast<std::size_t>(line.data() - bytes_.data());
      std::size_t line_end = line_begin + line.size();
      if (next_comment < line_begin) next_comment = comment_from(line_begin);
      if (next_comment < line_end) line_end = next_comment;
      io::TextScanner scanner(bytes_, line_begin, line_end, path_, kFormat);
      const std::string_view keyword = scanner.next_token();
      if (!keyword.empty()) on_line(keyword, scanner);
    }
  }

  // Line-aligned cuts of the file into pieces of at least 2 MiB, several per core: the cores
  // claim them one at a time, as a face line costs more per byte than a vertex line, and the
  // vertices fill the first half of a typical file. {0, size} when too small to split.
  std::vector<std::size_t> piece_cuts() const {
    if (thread_count() < 2 || bytes_.size() < io::kParallelLinesMinBytes) return {0, bytes_.size()};
    constexpr std::size_t kPiecesPerCore = 8;
    const std::size_t pieces =
        std::min<std::size_t>(kPiecesPerCore * thread_count(), bytes_.size() / (io::kParallelLinesMinBytes / 2));
    return io::detail::line_cuts(bytes_.data(), 0, bytes_.size(), pieces);
  }

  // `work(piece)` for every piece, claimed one at a time by the cores; the exception of the
  // earliest failing piece is rethrown.
  template <class Work> static void for_each_piece(std::size_t pieces, Work work) {
    parallel_claims(pieces, 1, [&](auto claim) {
      for (std::size_t p = claim(); p < pieces; p = claim()) work(p);
    });
  }

  static std::int64_t count_values(const io::TextScanner& scanner) {
    const char* const first = scanner.document().data() + scanner.position();
    return static_cast<std::int64_t>(io::count_tokens(first, scanner.document().data() + scanner.end()));
  }

  // Thrown by a piece's survey at a "g" or "o" line: only a sequential pass tracks regions.
  struct RegionsNamed {};

  // The first pass over [begin, end) into `into`; `piece`: a piece of the file surveyed on
  // its own, which stops at the first "g"/"o" line (RegionsNamed).
  void survey_lines(std::size_t begin, std::size_t end, Survey& into, bool piece = false) const {
    for_each_line(begin, end, [&into, piece](std::string_view keyword, io::TextScanner& scanner) {
      if (keyword == "v") {
        const std::int64_t values = count_values(scanner);
        if (values != 3 && values != 4 && values != 6)
          scanner.fail("a vertex needs x y z, x y z w or x y z r g b");
        into.any_w |= values == 4;
        into.any_color |= values == 6;
        ++into.vertices;
      } else if (keyword == "vt") {
        const std::int64_t values = count_values(scanner);
        if (values < 1 || values > 3) scanner.fail("a texture coordinate needs 1 to 3 values");
        into.texcoord_width = std::max(into.texcoord_width, values);
        ++into.texcoords;
      } else if (keyword == "vn") {
        if (count_values(scanner) != 3) scanner.fail("a normal needs 3 values");
        ++into.normals;
      } else if (keyword == "f") {
        const std::int64_t corners = count_values(scanner);
        if (corners < 1) scanner.fail("a face needs corners");
        into.corner_counts.push_back(corners);
        into.regions.for_each_target([&into](std::size_t region) {
          if (region >= into.region_sizes.size()) into.region_sizes.resize(region + 1, 0);
          ++into.region_sizes[region];
        });
      } else if (keyword == "g" || keyword == "o") {
        if (piece) throw RegionsNamed{};
        if (keyword == "g") into.regions.set_groups(scanner);
        else into.regions.set_object(scanner);
      }
    });
  }

  // The first pass on every piece at once, merged into survey_, with each piece's starting
  // counts in `piece_starts`. False (survey_ unset) where a line names regions or fails:
  // the sequential survey then runs, and its error is the one reported.
  bool survey_in_pieces(const std::vector<std::size_t>& cuts, std::vector<PassState>& piece_starts) {
    const std::size_t pieces = cuts.size() - 1;
    std::vector<Survey> surveys(pieces);
    try {
      // Counted in a local Survey: neighbouring elements of `surveys` share cache lines.
      for_each_piece(pieces, [&](std::size_t p) {
        Survey piece;
        survey_lines(cuts[p], cuts[p + 1], piece, true);
        surveys[p] = std::move(piece);
      });
    } catch (const ReadError&) {
      return false;
    } catch (const RegionsNamed&) {
      return false;  // no piece is handed out after it: little of the file was surveyed twice
    }
    std::size_t faces = 0;
    for (const Survey& piece : surveys) faces += piece.corner_counts.size();
    survey_.corner_counts.reserve(faces);
    for (const Survey& piece : surveys) {
      PassState start;
      start.vertices_seen = survey_.vertices;
      start.texcoords_seen = survey_.texcoords;
      start.normals_seen = survey_.normals;
      start.faces_seen = static_cast<std::int64_t>(survey_.corner_counts.size());
      piece_starts.push_back(start);
      survey_.vertices += piece.vertices;
      survey_.texcoords += piece.texcoords;
      survey_.normals += piece.normals;
      survey_.texcoord_width = std::max(survey_.texcoord_width, piece.texcoord_width);
      survey_.any_w |= piece.any_w;
      survey_.any_color |= piece.any_color;
      survey_.corner_counts.insert(survey_.corner_counts.end(), piece.corner_counts.begin(), piece.corner_counts.end());
    }
    return true;
  }

  // ---- arrays, allocated once ----

  void allocate() {
    mesh_.points = NDArray::allocate(DType::float64, {survey_.vertices, 3});
    if (survey_.any_w) w_ = NDArray::allocate(DType::float64, {survey_.vertices});
    if (survey_.any_color) colors_ = NDArray::allocate(DType::float64, {survey_.vertices, 3});
    if (survey_.texcoords > 0) texcoords_ = NDArray::allocate(DType::float64, {survey_.texcoords, survey_.texcoord_width});
    if (survey_.normals > 0) normals_ = NDArray::allocate(DType::float64, {survey_.normals, 3});
    layout_.emplace(survey_.corner_counts);
    mesh_.cells = layout_->allocate_blocks();
    // With as many vt (vn) as vertices they are likely per-vertex data, which needs no index
    // arrays; the second pass asks for them if a corner proves otherwise.
    texcoord_index_needed_ = survey_.texcoords > 0 && survey_.texcoords != survey_.vertices;
    normal_index_needed_ = survey_.normals > 0 && survey_.normals != survey_.vertices;
    allocate_corner_indices();
    survey_.region_sizes.resize(survey_.regions.names().size(), 0);
    for (std::int64_t size : survey_.region_sizes) region_entries_.push_back(NDArray::allocate(DType::int64, {size}));
    region_filled_.assign(region_entries_.size(), 0);
  }

  void allocate_corner_indices() {
    std::vector<std::int64_t> widths;
    for (std::size_t b = 0; b < layout_->num_blocks(); ++b) widths.push_back(layout_->max_corners(b));
    if (texcoord_index_needed_ && texcoord_index_.empty())
      texcoord_index_ = layout_->allocate_per_face(DType::int64, widths);
    if (normal_index_needed_ && normal_index_.empty()) normal_index_ = layout_->allocate_per_face(DType::int64, widths);
  }

  // ---- second pass ----

  // Thrown where a corner shows that vt (vn) need per-corner index arrays not yet allocated.
  struct IndicesNeeded {
    bool texcoords, normals;
  };

  // The second pass over [begin, end), from `state`; `filler` stands at the range's first face.
  void parse_lines(std::size_t begin, std::size_t end, PassState& state, io::FaceBlockFiller& filler) {
    for_each_line(begin, end, [&](std::string_view keyword, io::TextScanner& scanner) {
      if (keyword == "v") parse_vertex(scanner, state.vertices_seen++);
      else if (keyword == "vt") parse_texcoord(scanner, state.texcoords_seen++);
      else if (keyword == "vn") scanner.next_numbers(normals_.data_as<double>() + 3 * state.normals_seen++, 3);
      else if (keyword == "f") parse_face(scanner, state, filler);
      else if (keyword == "g") state.regions.set_groups(scanner);
      else if (keyword == "o") state.regions.set_object(scanner);
    });
  }

  // The second pass on every piece at once, from the starts survey_in_pieces found. False
  // where a piece fails or needs index arrays: the sequential pass then reads everything
  // again (overwriting all this one wrote), so errors are its own.
  bool parse_in_pieces(const std::vector<std::size_t>& cuts, std::vector<PassState>& piece_starts) {
    const std::size_t pieces = cuts.size() - 1;
    // Each piece's filler stands at its first face: placed here, in order, since placing a
    // polygon writes its offset.
    std::vector<io::FaceBlockFiller> fillers;
    fillers.reserve(pieces);
    io::FaceBlockFiller filler(*layout_, mesh_.cells);
    for (std::size_t p = 0; p < pieces; ++p) {
      fillers.push_back(filler);
      if (p + 1 == pieces) break;
      for (std::int64_t f = piece_starts[p].faces_seen; f < piece_starts[p + 1].faces_seen; ++f)
        filler.place(survey_.corner_counts[static_cast<std::size_t>(f)]);
    }
    try {
      // Local copies of the state and the filler: neighbouring elements share cache lines, and
      // both change at every line.
      for_each_piece(pieces, [&](std::size_t p) {
        PassState state = piece_starts[p];
        io::FaceBlockFiller piece_filler = fillers[p];
        parse_lines(cuts[p], cuts[p + 1], state, piece_filler);
        piece_starts[p] = std::move(state);
      });
    } catch (const ReadError&) {
      return false;
    } catch (const IndicesNeeded&) {
      return false;
    }
    for (const PassState& piece : piece_starts) {
      pass_.texcoords_per_vertex &= piece.texcoords_per_vertex;
      pass_.normals_per_vertex &= piece.normals_per_vertex;
      pass_.any_texcoord_index |= piece.any_texcoord_index;
      pass_.any_normal_index |= piece.any_normal_index;
    }
    return true;
  }

  void parse_vertex(io::TextScanner& scanner, std::int64_t i) {
    double values[6];
    std::size_t count = 0;  // 3, 4 or 6: checked by the survey
    for (scanner.skip_whitespace(); !scanner.at_end() && count < 6; scanner.skip_whitespace())
      values[count++] = scanner.next_number<double>();
    std::copy(values, values + 3, mesh_.points.data_as<double>() + 3 * i);
    if (!w_.empty_handle()) w_.data_as<double>()[i] = count == 4 ? values[3] : 1.0;
    if (!colors_.empty_handle())
      for (std::size_t c = 0; c < 3; ++c)
        colors_.data_as<double>()[3 * i + c] = count == 6 ? values[3 + c] : std::numeric_limits<double>::quiet_NaN();
  }

  void parse_texcoord(io::TextScanner& scanner, std::int64_t i) {
    double* row = texcoords_.data_as<double>() + survey_.texcoord_width * i;
    for (std::int64_t c = 0; c < survey_.texcoord_width; ++c) {
      scanner.skip_whitespace();
      row[c] = scanner.at_end() ? 0.0 : scanner.next_number<double>();
    }
  }

  // A 1-based or negative (relative) index of the `what` list, as 0-based.
  std::int64_t resolve(std::string_view text, std::int64_t seen, std::int64_t total, std::string_view what,
                       const io::TextScanner& scanner) const {
    const std::size_t offset = static_cast<std::size_t>(text.data() - bytes_.data());
    std::int64_t raw = 0;
    const auto [end, error] = io::parse_int64(text.data(), text.data() + text.size(), raw);
    if (error != std::errc{} || end != text.data() + text.size() || raw == 0)
      scanner.fail_at(offset, "invalid " + std::string(what) + " index '" + std::string(text.substr(0, 32)) + "'");
    const std::int64_t index = raw > 0 ? raw - 1 : seen + raw;
    if (index < 0 || index >= total)
      scanner.fail_at(offset, std::string(what) + " index " + std::to_string(raw) + " refers to none of the " +
                                  std::to_string(total) + " defined");
    return index;
  }

  // "v", "v/vt", "v//vn" or "v/vt/vn".
  Corner parse_corner(std::string_view token, const PassState& state, const io::TextScanner& scanner) const {
    Corner corner;
    const std::size_t first_slash = token.find('/');
    corner.vertex = resolve(token.substr(0, first_slash), state.vertices_seen, survey_.vertices, "vertex", scanner);
    if (first_slash == std::string_view::npos) return corner;
    const std::string_view rest = token.substr(first_slash + 1);
    const std::size_t second_slash = rest.find('/');
    const std::string_view texcoord = rest.substr(0, second_slash);
    // Only "v//vn" may leave the texture coordinate out; "v/" is cut short.
    if (!texcoord.empty() || second_slash == std::string_view::npos)
      corner.texcoord = resolve(texcoord, state.texcoords_seen, survey_.texcoords, "texture coordinate", scanner);
    if (second_slash != std::string_view::npos)
      corner.normal = resolve(rest.substr(second_slash + 1), state.normals_seen, survey_.normals, "normal", scanner);
    return corner;
  }

  void parse_face(io::TextScanner& scanner, PassState& state, io::FaceBlockFiller& filler) {
    const std::int64_t corners = survey_.corner_counts[static_cast<std::size_t>(state.faces_seen++)];
    const io::FaceSlot slot = filler.place(corners);
    const std::int64_t width = layout_->max_corners(slot.block);
    std::int64_t* texcoord_row = texcoord_index_.empty() ? nullptr : texcoord_index_[slot.block].data_as<std::int64_t>() + slot.row * width;
    std::int64_t* normal_row = normal_index_.empty() ? nullptr : normal_index_[slot.block].data_as<std::int64_t>() + slot.row * width;
    for (std::int64_t k = 0; k < width; ++k) {
      const Corner corner = k < corners ? parse_corner(scanner.next_token(), state, scanner) : Corner{};
      if (k < corners) slot.corners[k] = corner.vertex;
      if (texcoord_row != nullptr) texcoord_row[k] = corner.texcoord;
      if (normal_row != nullptr) normal_row[k] = corner.normal;
      state.texcoords_per_vertex &= corner.texcoord == kNone || corner.texcoord == corner.vertex;
      state.normals_per_vertex &= corner.normal == kNone || corner.normal == corner.vertex;
      if ((!state.texcoords_per_vertex && !texcoord_index_needed_) || (!state.normals_per_vertex && !normal_index_needed_))
        throw IndicesNeeded{!state.texcoords_per_vertex, !state.normals_per_vertex};
      state.any_texcoord_index |= corner.texcoord != kNone;
      state.any_normal_index |= corner.normal != kNone;
    }
    const std::int64_t cell = layout_->first_cell(slot.block) + slot.row;
    state.regions.for_each_target(
        [&](std::size_t region) { region_entries_[region].data_as<std::int64_t>()[region_filled_[region]++] = cell; });
  }

  // ---- assembly ----

  // vt or vn: per-vertex point data, or a field array plus per-corner indices.
  void place_corner_attribute(std::string_view name, NDArray values, std::vector<NDArray> indices, bool per_vertex,
                              bool any_index) {
    if (values.empty_handle()) return;
    if (per_vertex && values.rows() == mesh_.num_points()) {
      mesh_.point_data.set(std::string(name), std::move(values));
      return;
    }
    mesh_.field_data.set(std::string(name), std::move(values));
    if (any_index && !mesh_.cells.empty()) mesh_.cell_data.set(std::string(name) + "_index", std::move(indices));
  }

  Mesh finish() {
    if (!w_.empty_handle()) mesh_.point_data.set("obj:w", std::move(w_));
    if (!colors_.empty_handle()) mesh_.point_data.set("obj:color", std::move(colors_));
    place_corner_attribute("obj:vt", std::move(texcoords_), std::move(texcoord_index_), pass_.texcoords_per_vertex,
                           pass_.any_texcoord_index);
    place_corner_attribute("obj:vn", std::move(normals_), std::move(normal_index_), pass_.normals_per_vertex,
                           pass_.any_normal_index);
    // Faces join in file order; blocks interleave, so block-major indices need sorting.
    for (std::size_t r = 0; r < region_entries_.size(); ++r) {
      NDArray& entries = region_entries_[r];
      std::int64_t* first = entries.data_as<std::int64_t>();
      std::sort(first, first + entries.rows());
      mesh_.regions.push_back(Region{pass_.regions.names()[r], RegionKind::Cell, 2, -1, std::move(entries)});
    }
    return std::move(mesh_);
  }

  std::string_view bytes_;
  const std::string& path_;
  Survey survey_;
  Mesh mesh_;
  std::optional<io::FaceBlockLayout> layout_;
  NDArray w_, colors_, texcoords_, normals_;
  std::vector<NDArray> texcoord_index_, normal_index_;
  bool texcoord_index_needed_ = false, normal_index_needed_ = false;
  PassState pass_;  // where the second pass ended (merged over the pieces when it ran on them)
  std::vector<NDArray> region_entries_;  // allocated from the survey's counts
  std::vector<std::int64_t> region_filled_;
};

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  return Reader(file.bytes(), path).read();
}

}  // namespace meshioplusplus::obj
