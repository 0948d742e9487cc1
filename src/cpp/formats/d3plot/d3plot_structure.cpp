// d3plot control words, geometry and family files (d3plot.hpp says what becomes what).
//
// Layout (LS-DYNA manual, "Database Binary Output"; lasso-python's D3plot and VTK's
// vtkLSDynaReader read it the same way): every item is a word, 4 or 8 bytes, little-endian;
// the word size is the one for which word 11 (the file type: 1 d3plot, 5 d3part, +1000 for
// 64-bit ids) makes sense. 64 control words (plus EXTRA more), then in order: the material
// type section (NDIM 5 or 7), the ALE material list (IALEMAT), the SPH flags (NMSPH > 0),
// coordinates, solids (9 words: 8 nodes, material), thick shells (9), beams (6: nodes 1-2,
// orientation node, 2 unused, material), shells (5: 4 nodes, material), the NARBS numbering
// section (user ids of nodes and elements, parts), the SPH node/material list, extra
// connectivity of quadratic elements, then after an end marker (-999999.0) the title sections
// (90000 title, 90001 part titles, 90002 contact titles …). States follow in the first file
// right after that and fill the family's further files from their first byte: a state never
// spans two files, the last one of a file is followed by the end marker and zero padding.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "formats/d3plot/d3plot.hpp"
#include "formats/d3plot/d3plot_internal.hpp"
#include "io/source/read_limits.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::d3plot {
namespace detail {
namespace {

constexpr double kEndMarker = -999999.0;

// Bounded word access to one file's bytes: every read checks the end first.
class Words {
 public:
  Words(const std::string& path, std::string_view bytes, int word_size) : path_(path), bytes_(bytes), size_(word_size) {}
  std::uint64_t count() const noexcept { return bytes_.size() / size_; }
  std::int64_t integer(std::uint64_t word, std::string_view what) const {
    need(word, 1, what);
    if (size_ == 4) {
      std::int32_t v;
      std::memcpy(&v, bytes_.data() + word * 4, 4);
      return v;
    }
    std::int64_t v;
    std::memcpy(&v, bytes_.data() + word * 8, 8);
    return v;
  }
  double real(std::uint64_t word, std::string_view what) const {
    need(word, 1, what);
    if (size_ == 4) {
      float v;
      std::memcpy(&v, bytes_.data() + word * 4, 4);
      return v;
    }
    double v;
    std::memcpy(&v, bytes_.data() + word * 8, 8);
    return v;
  }
  std::string text(std::uint64_t byte, std::uint64_t length, std::string_view what) const {
    if (byte > bytes_.size() || length > bytes_.size() - byte) fail(byte, std::string(what) + " runs past the end of the file");
    std::string out(bytes_.substr(byte, length));
    while (!out.empty() && (out.back() == ' ' || out.back() == '\0')) out.pop_back();
    return out.substr(std::min(out.find_first_not_of(' '), out.size()));
  }
  // `count` words starting at `word` must be in the file.
  void need(std::uint64_t word, std::uint64_t words, std::string_view what) const {
    if (word > count() || words > count() - word)
      fail(std::min<std::uint64_t>(word * size_, bytes_.size()),
           std::string(what) + " runs past the end of the file (" + std::to_string(words) + " words at word " + std::to_string(word) + ")");
  }
  [[noreturn]] void fail(std::uint64_t byte, const std::string& message) const {
    throw ReadError(path_, std::string(kFormat), message, byte);
  }
  int size() const noexcept { return size_; }

 private:
  const std::string& path_;
  std::string_view bytes_;
  int size_;
};

int digit(std::int64_t value, int place) {
  for (int k = 0; k < place; ++k) value /= 10;
  return static_cast<int>(value % 10);
}

int word_size_of(const std::string& path, std::string_view bytes) {
  auto type_ok = [](std::int64_t type) {
    if (type > 1000) type -= 1000;
    return type == 1 || type == 5;
  };
  if (bytes.size() >= 64 * 4) {
    std::int32_t type;
    std::memcpy(&type, bytes.data() + 44, 4);
    if (type_ok(type)) return 4;
  }
  if (bytes.size() >= 64 * 8) {
    std::int64_t type;
    std::memcpy(&type, bytes.data() + 88, 8);
    if (type_ok(type)) return 8;
  }
  if (bytes.size() < 64 * 4) throw ReadError(path, std::string(kFormat), "the file ends inside its 64 control words", bytes.size());
  throw ReadError(path, std::string(kFormat), "control word 11 (file type) is neither 1 (d3plot) nor 5 (d3part) for 4- or 8-byte words", 44);
}

// The family: `base` then base01, base02, … (any number of digits) in number order.
std::vector<std::string> family_of(const std::string& base) {
  std::vector<std::string> files{base};
  const std::filesystem::path path(base);
  const std::string stem = path.filename().string();
  std::filesystem::path directory = path.parent_path();
  if (directory.empty()) directory = ".";
  std::vector<std::pair<std::string, std::string>> numbered;  // digits, path
  std::error_code error;
  for (std::filesystem::directory_iterator it(directory, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= stem.size() || name.compare(0, stem.size(), stem) != 0) continue;
    const std::string digits = name.substr(stem.size());
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    numbered.emplace_back(digits, (path.parent_path() / name).string());
  }
  std::sort(numbered.begin(), numbered.end(), [](const auto& a, const auto& b) {
    const std::string_view x = std::string_view(a.first).substr(std::min(a.first.find_first_not_of('0'), a.first.size()));
    const std::string_view y = std::string_view(b.first).substr(std::min(b.first.find_first_not_of('0'), b.first.size()));
    return x.size() != y.size() ? x.size() < y.size() : x < y;
  });
  for (auto& entry : numbered) files.push_back(std::move(entry.second));
  return files;
}

// The base file of the family `path` belongs to: d3plot07 → d3plot when that exists.
std::string base_of(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string name = p.filename().string();
  std::size_t end = name.size();
  while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
  if (end == name.size() || end == 0) return path;
  const std::filesystem::path base = p.parent_path() / name.substr(0, end);
  std::error_code error;
  return std::filesystem::is_regular_file(base, error) ? base.string() : path;
}

// One past the file's last nonzero byte (the states' end, before LS-DYNA's zero padding): read
// backwards a piece at a time with pread, so a family file's other pages are never touched
// (mapping them would read ahead megabytes of states nobody asked for).
std::uint64_t last_nonzero_byte(const io::MappedFile& file) {
  constexpr std::uint64_t kPiece = 64 * 1024;
  std::vector<char> piece(kPiece);
  std::uint64_t end = file.bytes().size();
  while (end > 0) {
    const std::uint64_t size = std::min(end, kPiece);
    if (!file.copy_out(end - size, piece.data(), size)) throw ReadError(file.path(), std::string(kFormat), "the file shrank while being read", end - size);
    for (std::uint64_t k = size; k > 0; --k)
      if (piece[k - 1] != 0) return end - size + k;
    end -= size;
  }
  return 0;
}

struct Cursor {
  const Words& words;
  std::uint64_t at = 0;
  std::int64_t next_integer(std::string_view what) { return words.integer(at++, what); }
};

void read_control_words(const Words& w, Layout& l, Structure& s, std::uint64_t& header_words) {
  auto word = [&](std::uint64_t k, std::string_view name) { return w.integer(k, name); };
  const std::int64_t ndim = word(15, "NDIM");
  if (ndim == 6 || ndim == 7 || ndim == 9) w.fail(15 * w.size(), "rigid road surfaces (NDIM " + std::to_string(ndim) + ") are not read");
  if (ndim == 8) w.fail(15 * w.size(), "rigid body data (NDIM 8) is not read");
  if (ndim < 2 || ndim > 9) w.fail(15 * w.size(), "NDIM " + std::to_string(ndim) + " is not 2 to 9");
  l.dimensions = ndim == 2 ? 2 : 3;
  l.numnp = word(16, "NUMNP");
  l.nglbv = word(18, "NGLBV");
  l.it = word(19, "IT");
  l.iu = word(20, "IU");
  l.iv = word(21, "IV");
  l.ia = word(22, "IA");
  l.nel8 = word(23, "NEL8");
  l.nv3d = word(27, "NV3D");
  l.nel2 = word(28, "NEL2");
  l.nv1d = word(30, "NV1D");
  l.nel4 = word(31, "NEL4");
  l.nv2d = word(33, "NV2D");
  l.neiph = word(34, "NEIPH");
  l.neips = word(35, "NEIPS");
  l.maxint = word(36, "MAXINT");
  l.nmsph = word(37, "NMSPH");
  l.nelt = word(40, "NELT");
  l.nv3dt = word(42, "NV3DT");
  l.ioshl1 = word(43, "IOSHL1");
  l.ioshl2 = word(44, "IOSHL2");
  l.ioshl3 = word(45, "IOSHL3");
  l.ioshl4 = word(46, "IOSHL4");
  l.nmmat = word(51, "NMMAT");
  l.idtdt = word(56, "IDTDT");
  if (l.nel8 < 0) w.fail(23 * w.size(), "10-node solids (NEL8 < 0) are not read");
  const std::pair<const char*, std::int64_t> counts[] = {
      {"NUMNP", l.numnp}, {"NGLBV", l.nglbv}, {"NEL8", l.nel8}, {"NV3D", l.nv3d}, {"NEL2", l.nel2}, {"NV1D", l.nv1d},
      {"NEL4", l.nel4},   {"NV2D", l.nv2d},   {"NELT", l.nelt}, {"NV3DT", l.nv3dt}, {"NMSPH", l.nmsph}, {"NMMAT", l.nmmat},
      {"NEIPH", l.neiph}, {"NEIPS", l.neips}, {"IT", l.it},     {"IU", l.iu},     {"IV", l.iv},       {"IA", l.ia}};
  for (const auto& [name, value] : counts)
    if (value < 0 || value > (std::int64_t{1} << 40)) w.fail(0, std::string("control word ") + name + " = " + std::to_string(value) + " is out of range");
  if (word(47, "IALEMAT") < 0) w.fail(47 * w.size(), "IALEMAT is negative");
  if (word(48, "NCFDV1") != 0) w.fail(48 * w.size(), "CFD data (NCFDV1) is not read");
  if (word(54, "NPEFG") > 0) w.fail(54 * w.size(), "airbag particle data (NPEFG) is not read");
  const std::int64_t extra = word(57, "EXTRA");
  if (extra < 0 || extra > 1024) w.fail(57 * w.size(), "EXTRA = " + std::to_string(extra) + " is out of range");
  header_words = 64 + static_cast<std::uint64_t>(extra);
  w.need(0, header_words, "the control words");
  // Materials have no words of their own unless numbered (NARBS), yet each gets a part id and
  // title here: a file cannot name more materials than it has words.
  if (static_cast<std::uint64_t>(l.nmmat) > w.count())
    w.fail(51 * w.size(), "NMMAT = " + std::to_string(l.nmmat) + " is more materials than the file has words");
  if (extra > 0) {
    l.nt3d = word(65, "NT3D");
    if (l.nt3d < 0 || l.nt3d > 1000) w.fail(65 * w.size(), "NT3D is out of range");
  }
  (void)s;
}

// Words per node per state (lasso-python's and the manual's order: displacement, temperature
// (1 or 3 with layers), heat flux 3, mass scaling, temperature gradient, residual forces and
// moments 6, velocity, acceleration).
std::int64_t node_words_of(const Layout& l) {
  std::int64_t words = (l.iu + l.iv + l.ia) * l.dimensions;
  const int temperature = digit(l.it, 0);
  if (temperature >= 1) words += 1;
  if (temperature >= 3) words += 2;
  if (temperature >= 2) words += 3;
  if (digit(l.it, 1) == 1) words += 1;
  if (digit(l.idtdt, 0) == 1) words += 1;
  if (digit(l.idtdt, 1) == 1) words += 6;
  return words;
}

}  // namespace

std::shared_ptr<const Structure> open_structure(const std::string& requested) {
  auto structure = std::make_shared<Structure>();
  Structure& s = *structure;
  const std::string path = base_of(requested);
  io::MappedFile file(path, kFormat);
  const std::string_view bytes = file.bytes();
  Layout& l = s.layout;
  l.word_size = word_size_of(path, bytes);
  const Words w(path, bytes, l.word_size);
  std::uint64_t header_words = 0;
  read_control_words(w, l, s, header_words);
  Cursor c{w, header_words};

  const std::int64_t ndim_word = w.integer(15, "NDIM");
  if (ndim_word == 5 || ndim_word == 7) {  // material type section: rigid shells have no results
    l.rigid_shells = c.next_integer("NUMRBE");
    const std::int64_t nummat = c.next_integer("NUMMAT");
    if (nummat != l.nmmat) w.fail((c.at - 1) * l.word_size, "the material type section counts " + std::to_string(nummat) + " materials, NMMAT " + std::to_string(l.nmmat));
    if (l.rigid_shells < 0 || l.rigid_shells > l.nel4) w.fail((c.at - 2) * l.word_size, "NUMRBE is out of range");
    w.need(c.at, l.nmmat, "the material types");
    c.at += l.nmmat;
  }
  c.at += w.integer(47, "IALEMAT");
  if (l.nmsph > 0) {  // SPH flags: their count first, then which per-particle values a state has
    const std::uint64_t start = c.at;
    const std::int64_t flags = c.next_integer("ISPHFG1");
    if (flags < 10 || flags > 64) w.fail(start * l.word_size, "ISPHFG1 = " + std::to_string(flags) + " is not a count of SPH flags");
    std::int64_t vars = 1;  // the material number
    for (int k = 2; k <= 10; ++k) {
      const std::int64_t flag = w.integer(start + k - 1, "an SPH flag");
      if (flag < -100 || flag > 100) w.fail((start + k - 1) * l.word_size, "SPH flag " + std::to_string(k) + " is out of range");
      vars += flag < 0 ? -flag : flag;
    }
    if (flags != 10) vars += std::max<std::int64_t>(0, w.integer(start + 10, "ISPHFG11"));
    l.sph_variables = vars;
    c.at = start + flags;
  }

  // Coordinates and element records, each count checked against the file before allocating.
  const std::uint64_t n = l.numnp;
  io::check_claim(path, kFormat, "nodes", n, 3ull * l.word_size, bytes.size() - std::min<std::uint64_t>(bytes.size(), c.at * l.word_size), 24, {c.at * l.word_size, {}});
  w.need(c.at, n * l.dimensions, "the coordinates");
  const DType real = l.word_size == 4 ? DType::float32 : DType::float64;
  s.points = NDArray::allocate(real, {static_cast<std::int64_t>(n), 3});
  visit_dtype(real, [&](auto zero) {
    using T = decltype(zero);
    T* out = s.points.data_as<T>();
    const char* in = bytes.data() + c.at * l.word_size;
    for (std::uint64_t i = 0; i < n; ++i) {
      std::memcpy(out + 3 * i, in + i * l.dimensions * sizeof(T), l.dimensions * sizeof(T));
      if (l.dimensions == 2) out[3 * i + 2] = 0;
    }
  });
  c.at += n * l.dimensions;

  struct Family {
    Kind kind;
    std::int64_t count;
    int words, nodes;
    const char* what;
  };
  const Family families[] = {{kSolid, l.nel8, 9, 8, "solids"}, {kThickShell, l.nelt, 9, 8, "thick shells"},
                             {kBeam, l.nel2, 6, 2, "beams"},   {kShell, l.nel4, 5, 4, "shells"}};
  for (const Family& f : families) {
    const std::uint64_t count = f.count;
    io::check_claim(path, kFormat, f.what, count, static_cast<std::uint64_t>(f.words) * l.word_size,
                    bytes.size() - std::min<std::uint64_t>(bytes.size(), c.at * l.word_size), 8 * f.nodes + 16, {c.at * l.word_size, {}});
    w.need(c.at, count * f.words, f.what);
    NDArray conn = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(count), f.nodes});
    std::int64_t* out = conn.data_as<std::int64_t>();
    std::vector<std::int64_t>& material = s.material[f.kind];
    material.resize(count);
    // The section's words are in the file (w.need above): read them without a check per word.
    const auto records = [&](auto zero) {
      using I = decltype(zero);
      const char* section = bytes.data() + c.at * l.word_size;
      const std::int64_t max_material = std::max<std::int64_t>(l.nmmat, 1);
      for (std::uint64_t e = 0; e < count; ++e) {
        I record[9];
        std::memcpy(record, section + e * f.words * sizeof(I), f.words * sizeof(I));
        for (int k = 0; k < f.nodes; ++k) {
          const std::int64_t node = record[k];
          if (node < 1 || static_cast<std::uint64_t>(node) > n)
            w.fail((c.at + e * f.words + k) * l.word_size, std::string(f.what) + ": element " + std::to_string(e + 1) + " names node " + std::to_string(node) + " of " + std::to_string(n));
          out[e * f.nodes + k] = node - 1;
        }
        const std::int64_t mat = record[f.words - 1];
        if (mat < 1 || mat > max_material)
          w.fail((c.at + e * f.words + f.words - 1) * l.word_size, std::string(f.what) + ": element " + std::to_string(e + 1) + " has material " + std::to_string(mat) + " of NMMAT " + std::to_string(l.nmmat));
        material[e] = mat - 1;
      }
    };
    if (l.word_size == 4) records(std::int32_t{0});
    else records(std::int64_t{0});
    s.connectivity[f.kind] = std::move(conn);
    c.at += count * f.words;
  }

  // NARBS: user ids of nodes, elements and parts.
  const std::int64_t narbs = w.integer(39, "NARBS");
  if (narbs < 0) w.fail(39 * l.word_size, "NARBS is negative");
  w.need(c.at, narbs, "the numbering section (NARBS)");
  const std::uint64_t numbering_end = c.at + narbs;
  auto identity = [](std::int64_t count) {
    std::vector<std::int64_t> ids(count);
    for (std::int64_t k = 0; k < count; ++k) ids[k] = k + 1;
    return ids;
  };
  std::vector<std::int64_t> node_ids = identity(l.numnp);
  for (const Family& f : families) s.element_ids[f.kind] = identity(f.count);
  // Elements name materials 1..max(NMMAT, 1) (files with NMMAT 0 still number theirs 1).
  s.part_ids = identity(std::max<std::int64_t>(l.nmmat, 1));
  if (narbs > 0) {
    const std::uint64_t start = c.at;
    const std::int64_t nsort = c.next_integer("NSORT");
    c.at = start + 5;
    const std::int64_t declared[] = {c.next_integer("NSORTD"), c.next_integer("NSRHD"), c.next_integer("NSRBD"),
                                     c.next_integer("NSRSD"), c.next_integer("NSRTD")};
    const std::int64_t expected[] = {l.numnp, l.nel8, l.nel2, l.nel4, l.nelt};
    const char* names[] = {"NSORTD", "NSRHD", "NSRBD", "NSRSD", "NSRTD"};
    for (int k = 0; k < 5; ++k)
      if (declared[k] != expected[k])
        w.fail((start + 5 + k) * l.word_size, std::string("numbering section: ") + names[k] + " = " + std::to_string(declared[k]) + ", the control words count " + std::to_string(expected[k]));
    std::int64_t parts = 0;
    if (nsort < 0) {
      c.at = start + 13;
      parts = c.next_integer("NSRTM");
      if (parts != l.nmmat) w.fail((start + 13) * l.word_size, "numbering section: NSRTM = " + std::to_string(parts) + ", NMMAT " + std::to_string(l.nmmat));
      c.at = start + 16;
    }
    const std::uint64_t words = c.at - start + l.numnp + l.nel8 + l.nel2 + l.nel4 + l.nelt + 3 * parts;
    if (words > static_cast<std::uint64_t>(narbs)) w.fail(start * l.word_size, "the numbering section holds more ids than NARBS = " + std::to_string(narbs) + " words");
    auto read_ids = [&](std::vector<std::int64_t>& ids) {
      for (auto& id : ids) id = c.next_integer("an id");
    };
    read_ids(node_ids);
    read_ids(s.element_ids[kSolid]);
    read_ids(s.element_ids[kBeam]);
    read_ids(s.element_ids[kShell]);
    read_ids(s.element_ids[kThickShell]);
    if (parts > 0) read_ids(s.part_ids);
  }
  c.at = numbering_end;
  s.node_ids = NDArray::allocate(DType::int64, {l.numnp});
  std::copy(node_ids.begin(), node_ids.end(), s.node_ids.data_as<std::int64_t>());

  // SPH particles: node and material per particle.
  w.need(c.at, 2 * static_cast<std::uint64_t>(l.nmsph), "the SPH node list");
  {
    NDArray conn = NDArray::allocate(DType::int64, {l.nmsph, 1});
    s.material[kSph].resize(l.nmsph);
    for (std::int64_t p = 0; p < l.nmsph; ++p) {
      const std::int64_t node = c.next_integer("an SPH node"), mat = c.next_integer("an SPH material");
      if (node < 1 || node > l.numnp || mat < 1 || mat > std::max<std::int64_t>(l.nmmat, 1))
        w.fail((c.at - 2) * l.word_size, "SPH particle " + std::to_string(p + 1) + " names node " + std::to_string(node) + " / material " + std::to_string(mat) + " out of range");
      conn.data_as<std::int64_t>()[p] = node - 1;
      s.material[kSph][p] = mat - 1;
      s.element_ids[kSph].push_back(node);
    }
    s.connectivity[kSph] = std::move(conn);
  }

  // Extra connectivity of quadratic elements (EXTRA words 64+): skipped, sizes as the manual's.
  if (header_words > 64) {
    const std::int64_t nel48 = w.integer(55, "NEL48"), nel20 = w.integer(64, "NEL20");
    if (nel48 < 0 || nel20 < 0 || nel48 > l.nel4 || nel20 > l.nel8) w.fail(55 * l.word_size, "NEL48/NEL20 out of range");
    c.at += 5 * nel48 + 13 * nel20;
    const std::int64_t others[] = {w.integer(66, "NEL27"), w.integer(68, "NEL21P"), w.integer(69, "NEL15T"),
                                   w.integer(71, "NEL20T"), w.integer(72, "NEL40P"), w.integer(73, "NEL64")};
    for (std::int64_t other : others)
      if (other != 0) w.fail(66 * l.word_size, "27-, 21-, 15-, 20-, 40- or 64-node solids are not read");
  } else if (const std::int64_t nel48 = w.integer(55, "NEL48"); nel48 > 0) {
    // As above: at most one extra record per 4-node shell (a larger count overflowed the cursor).
    if (nel48 > l.nel4) w.fail(55 * l.word_size, "NEL48 out of range");
    c.at += 5 * nel48;
  }

  // Titles after an end marker: 90000 the run's title, 90001 parts, 90002 contacts, 90020 ICFD
  // parts (each id + 72 characters), 90100 keyword lines (80 characters each).
  s.part_titles.assign(s.part_ids.size(), std::string());
  if (c.at < w.count() && w.real(c.at, "end marker") == kEndMarker) {
    ++c.at;
    std::uint64_t byte = c.at * l.word_size;
    while (byte + l.word_size <= bytes.size()) {
      const std::int64_t type = Words(path, bytes.substr(byte), l.word_size).integer(0, "a title type");
      if (type != 90000 && type != 90001 && type != 90002 && type != 90020 && type != 90100) break;
      byte += l.word_size;
      if (type == 90000) {
        byte += 72;
      } else {
        const std::int64_t entries = Words(path, bytes.substr(std::min<std::uint64_t>(byte, bytes.size())), l.word_size).integer(0, "a title count");
        const std::uint64_t each = type == 90100 ? 80 : l.word_size + 72;
        if (entries < 0 || static_cast<std::uint64_t>(entries) > (bytes.size() - byte) / each) w.fail(byte, "title section " + std::to_string(type) + " counts " + std::to_string(entries) + " entries past the end of the file");
        byte += l.word_size;
        for (std::int64_t k = 0; type == 90001 && k < entries; ++k) {
          const std::uint64_t at = byte + k * each;
          const std::int64_t id = Words(path, bytes.substr(at), l.word_size).integer(0, "a part id");
          const auto found = std::find(s.part_ids.begin(), s.part_ids.end(), id);
          if (found != s.part_ids.end()) s.part_titles[found - s.part_ids.begin()] = w.text(at + l.word_size, 72, "a part title");
        }
        byte += entries * each;
      }
      if ((byte + l.word_size <= bytes.size()) && Words(path, bytes.substr(byte), l.word_size).real(0, "end marker") == kEndMarker) byte += l.word_size;
    }
    c.at = (byte + l.word_size - 1) / l.word_size;
  }

  // The state's size in words.
  l.node_deletion = l.maxint < 0 && l.maxint > -10000;
  l.element_deletion = l.maxint <= -10000;
  l.node_words = node_words_of(l);
  std::int64_t state = 1 + l.nglbv + l.node_words * l.numnp + l.nt3d * l.nel8 + l.nel8 * l.nv3d + l.nelt * l.nv3dt +
                       l.nel2 * l.nv1d + (l.nel4 - l.rigid_shells) * l.nv2d + l.nmsph * l.sph_variables;
  if (l.node_deletion) state += l.numnp;
  if (l.element_deletion) state += l.nel8 + l.nelt + l.nel4 + l.nel2;
  if (l.nv3d < 0 || l.nv2d < 0 || l.nv3dt < 0 || l.nv1d < 0) w.fail(0, "a variable count (NV3D, NV2D, NV3DT, NV1D) is negative");
  l.state_words = state;
  const std::uint64_t state_bytes = static_cast<std::uint64_t>(state) * l.word_size;

  // The family's states: whole states from the geometry's end (first file) or the first byte.
  s.files = family_of(path);
  // Each file is read with pread only where it is needed: its tail and each state's time word.
  for (std::size_t f = 0; f < s.files.size(); ++f) {
    std::unique_ptr<io::MappedFile> other;
    if (f > 0) other = std::make_unique<io::MappedFile>(s.files[f], kFormat);
    const io::MappedFile& data = f > 0 ? *other : file;
    const std::uint64_t start = f == 0 ? c.at * l.word_size : 0;
    const std::uint64_t end = last_nonzero_byte(data);
    if (end <= start) continue;
    const std::uint64_t count = (end - start) / state_bytes;
    for (std::uint64_t k = 0; k < count; ++k) {
      const std::uint64_t at = start + k * state_bytes;
      char word[8];
      if (!data.copy_out(at, word, l.word_size)) throw ReadError(s.files[f], std::string(kFormat), "the file shrank while being read", at);
      s.states.push_back({f, at, Words(s.files[f], std::string_view(word, l.word_size), l.word_size).real(0, "a state's time")});
    }
  }

  // Blocks: solids, thick shells, beams, shells (quads then triangles), SPH.
  auto all = [](std::int64_t count) {
    std::vector<std::int64_t> v(count);
    for (std::int64_t k = 0; k < count; ++k) v[k] = k;
    return v;
  };
  if (l.nel8 > 0) s.blocks.push_back({kSolid, "hexahedron", all(l.nel8)});
  if (l.nelt > 0) s.blocks.push_back({kThickShell, "hexahedron", all(l.nelt)});
  if (l.nel2 > 0) s.blocks.push_back({kBeam, "line", all(l.nel2)});
  if (l.nel4 > 0) {
    BlockSource quads{kShell, "quad", {}}, triangles{kShell, "triangle", {}};
    const std::int64_t* conn = s.connectivity[kShell].data_as<std::int64_t>();
    for (std::int64_t e = 0; e < l.nel4; ++e) (conn[4 * e + 2] == conn[4 * e + 3] ? triangles : quads).elements.push_back(e);
    if (!quads.elements.empty()) s.blocks.push_back(std::move(quads));
    if (!triangles.elements.empty()) s.blocks.push_back(std::move(triangles));
  }
  if (l.nmsph > 0) s.blocks.push_back({kSph, "vertex", all(l.nmsph)});
  return structure;
}

}  // namespace detail

bool is_family_file_name(std::string_view path) noexcept {
  const std::size_t slash = path.find_last_of("/\\");
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (!name.starts_with("d3plot")) return false;
  name.remove_prefix(6);
  return std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace meshioplusplus::d3plot
