// LS-DYNA binout (LSDA) files: the symbol tables give a directory tree of typed variables,
// each a DATA record at a file offset (binout.hpp says what becomes what).
//
// Layout (lasso-python's lsda_py3 describes the same): 8 header bytes — header length, the
// byte sizes of a record length, an offset, a command and a type, then the byte order (1:
// little-endian). At the header's end a SYMBOLTABLEOFFSET command (length, command 7) and an
// offset; each symbol table there is BEGINSYMBOLTABLE (5), then CD (2: a path, absolute or
// relative with ..) and VARIABLE (4: name, type, data offset, item count) commands, then
// ENDSYMBOLTABLE (6) followed by the offset of the next table (0: none). A DATA record (3) is
// length, command, type, name length (1 byte), name, then the items.
// Opening reads the symbol tables and each state's one-number "time"; read_step(k) copies only
// the variables of the states at step k's time.
// Continuation files: when a binout reaches LS-DYNA's size limit the database goes on in
// "<name>%001", "<name>%002", … (LSDA's nextfile). Like LSTC's lsda library, opening a file
// opens its continuations too (the names "<name>%" + two or more digits + anything, sorted),
// each with its own header and byte order, and reads their symbol tables in that order into
// one tree: a variable a later file names again replaces the earlier one.
#include "formats/binout/binout.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "io/source/byte_order.hpp"
#include "io/source/mapped_file.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::binout {

namespace {

constexpr std::string_view kFormat = "binout";
enum Command : std::uint64_t { kCd = 2, kData = 3, kVariable = 4, kBeginTable = 5, kEndTable = 6, kTableOffset = 7 };
constexpr int kTypeBytes[12] = {0, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 1};
constexpr int kLink = 11;

bool valid_size(unsigned char size) { return size == 1 || size == 2 || size == 4 || size == 8; }

std::optional<DType> dtype_of(int type) {
  switch (type) {
    case 1: return DType::int8;
    case 2: return DType::int16;
    case 3: return DType::int32;
    case 4: return DType::int64;
    case 5: return DType::uint8;
    case 6: return DType::uint16;
    case 7: return DType::uint32;
    case 8: return DType::uint64;
    case 9: return DType::float32;
    case 10: return DType::float64;
    default: return std::nullopt;
  }
}

struct Symbol {
  std::string name;
  int parent = -1;
  bool directory = true;
  int type = 0;
  std::uint64_t offset = 0, length = 0;
  std::size_t data = 0;  // byte offset of the first item
  std::size_t file = 0;  // which of Structure::parts holds the data
  std::map<std::string, int> children;
};

// One file of the family: the one named, then its continuations.
struct FilePart {
  std::string path;
  std::unique_ptr<io::MappedFile> file;
  bool little = true;
};

struct StateRef {
  std::string database;  // path without the leading '/'
  int directory = 0;
};

struct Structure {
  std::string path;
  std::vector<FilePart> parts;
  std::vector<Symbol> symbols;  // 0: the root
  std::vector<double> times;
  std::vector<std::vector<StateRef>> states;  // per step
  Mesh mesh;
};

class Reader {
 public:
  Reader(Structure& s, std::size_t part) : s_(s), part_(s.parts[part]), index_(part), bytes_(part_.file->bytes()) {}

  [[noreturn]] void fail(std::size_t offset, const std::string& message) const {
    throw ReadError(part_.path, std::string(kFormat), message, offset);
  }
  std::uint64_t number(std::size_t at, int size, std::string_view what) const {
    if (at > bytes_.size() || bytes_.size() - at < static_cast<std::size_t>(size))
      fail(at, "the file ends inside " + std::string(what));
    std::uint64_t out = 0;
    for (int k = 0; k < size; ++k) {
      const auto byte = static_cast<std::uint64_t>(static_cast<unsigned char>(bytes_[at + k]));
      out |= byte << (8 * (part_.little ? k : size - 1 - k));
    }
    return out;
  }

  void read_tables() {
    const auto* h = reinterpret_cast<const unsigned char*>(bytes_.data());
    if (bytes_.size() < 8 || h[0] < 8 || !valid_size(h[1]) || !valid_size(h[2]) || !valid_size(h[3]) || !valid_size(h[4]))
      fail(0, "not an LSDA (binout) header");
    part_.little = h[5] == 1;
    ls_ = h[1], os_ = h[2], cs_ = h[3], ts_ = h[4];
    if (s_.symbols.empty()) s_.symbols.push_back(Symbol{"/", -1, true, 0, 0, 0, 0, 0, {}});
    std::size_t at = h[0];
    if (number(at + ls_, cs_, "the first command") != kTableOffset) fail(at, "the file does not start with a symbol table offset");
    at += ls_ + cs_;
    std::set<std::uint64_t> visited;
    while (true) {
      const std::uint64_t table = number(at, os_, "a symbol table offset");
      if (table == 0) return;
      if (!visited.insert(table).second) fail(at, "symbol table offsets form a loop");
      at = static_cast<std::size_t>(std::min<std::uint64_t>(table, bytes_.size()));
      if (number(at + ls_, cs_, "a command") != kBeginTable) return;
      at += ls_ + cs_;
      int cwd = 0;
      while (true) {
        const std::uint64_t length = number(at, ls_, "a command length");
        const std::uint64_t command = number(at + ls_, cs_, "a command");
        if (command != kCd && command != kVariable) {
          at += ls_ + cs_;
          break;
        }
        if (length < static_cast<std::uint64_t>(ls_ + cs_) || length > bytes_.size() - at)
          fail(at, "a command's length runs past the end of the file");
        const std::string_view body = bytes_.substr(at + ls_ + cs_, length - ls_ - cs_);
        if (command == kCd) {
          cwd = change_directory(cwd, body);
        } else {
          const std::size_t fixed = ts_ + os_ + ls_;
          if (body.size() < fixed) fail(at, "a variable entry is too short");
          const std::size_t name_length = body.size() - fixed;
          const std::size_t fields = at + ls_ + cs_ + name_length;
          const int type = static_cast<int>(number(fields, ts_, "a variable type"));
          const std::uint64_t offset = number(fields + ts_, os_, "a variable offset");
          const std::uint64_t items = number(fields + ts_ + os_, ls_, "a variable length");
          add_variable(at, cwd, std::string(body.substr(0, name_length)), type, offset, items);
        }
        at += static_cast<std::size_t>(length);
      }
    }
  }

 private:
  int child(int directory, const std::string& name) {
    auto found = s_.symbols[directory].children.find(name);
    if (found != s_.symbols[directory].children.end()) return found->second;
    const int index = static_cast<int>(s_.symbols.size());
    s_.symbols.push_back(Symbol{name, directory, true, 0, 0, 0, 0, 0, {}});
    s_.symbols[directory].children.emplace(name, index);
    return index;
  }
  int change_directory(int cwd, std::string_view path) {
    if (path.empty()) return cwd;
    if (path.front() == '/') cwd = 0;
    std::size_t begin = 0;
    while (begin <= path.size()) {
      std::size_t end = path.find('/', begin);
      if (end == std::string_view::npos) end = path.size();
      const std::string_view part = path.substr(begin, end - begin);
      if (part == "..") {
        if (s_.symbols[cwd].parent >= 0) cwd = s_.symbols[cwd].parent;
      } else if (!part.empty() && part != ".") {
        const int next = child(cwd, std::string(part));
        if (!s_.symbols[next].directory) break;
        cwd = next;
      }
      begin = end + 1;
    }
    return cwd;
  }
  void add_variable(std::size_t at, int cwd, std::string name, int type, std::uint64_t offset, std::uint64_t items) {
    if (type < 1 || type > kLink) fail(at, "variable '" + name + "' has an unknown type " + std::to_string(type));
    const int index = child(cwd, name);
    Symbol& symbol = s_.symbols[index];
    if (!symbol.children.empty()) fail(at, "'" + name + "' is both a directory and a variable");
    symbol.directory = false;
    symbol.type = type;
    symbol.offset = offset;
    symbol.length = items;
    symbol.file = index_;
    if (type == kLink) return;
    // The DATA record: length, command, type, name length, name, items.
    const std::uint64_t header = static_cast<std::uint64_t>(ls_ + cs_ + ts_ + 1) + name.size();
    const std::uint64_t size = static_cast<std::uint64_t>(kTypeBytes[type]);
    if (offset > bytes_.size() || header > bytes_.size() - offset || items > (bytes_.size() - offset - header) / size)
      fail(at, "the data of variable '" + name + "' (" + std::to_string(items) + " items at byte " +
                   std::to_string(offset) + ") runs past the end of the file");
    if (number(static_cast<std::size_t>(offset) + ls_, cs_, "a data command") != kData)
      fail(static_cast<std::size_t>(offset), "variable '" + name + "' does not point at a data record");
    symbol.data = static_cast<std::size_t>(offset + header);
  }

  Structure& s_;
  FilePart& part_;
  std::size_t index_;
  std::string_view bytes_;
  int ls_ = 8, os_ = 8, cs_ = 1, ts_ = 1;
};

std::string path_of(const Structure& s, int index) {
  std::string out;
  for (int at = index; at > 0; at = s.symbols[at].parent) out = out.empty() ? s.symbols[at].name : s.symbols[at].name + "/" + out;
  return out;
}

bool is_state_name(const std::string& name) {
  return name.size() > 1 && name[0] == 'd' && std::all_of(name.begin() + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

NDArray copy_variable(const Structure& s, const Symbol& symbol) {
  const DType dtype = *dtype_of(symbol.type);
  NDArray out = NDArray::allocate(dtype, {static_cast<std::int64_t>(symbol.length)});
  const std::size_t size = static_cast<std::size_t>(kTypeBytes[symbol.type]);
  const FilePart& part = s.parts[symbol.file];
  io::copy_from_file_order(out.data(), part.file->bytes().data() + symbol.data, size, static_cast<std::size_t>(symbol.length), part.little);
  return out;
}

double scalar_time(const Structure& s, const Symbol& symbol) {
  const NDArray value = copy_variable(s, symbol);
  if (symbol.type == 9) return value.data_as<float>()[0];
  if (symbol.type == 10) return value.data_as<double>()[0];
  return static_cast<double>(value.data_as<std::int32_t>()[0]);
}

// "<name>%" followed by two digits or more, then anything (lsda's glob "<name>%[0-9][0-9]*").
bool is_continuation_of(std::string_view candidate, std::string_view name) {
  if (candidate.size() < name.size() + 3 || !candidate.starts_with(name) || candidate[name.size()] != '%') return false;
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  return digit(candidate[name.size() + 1]) && digit(candidate[name.size() + 2]);
}

std::vector<std::string> continuation_files(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path named(path);
  const std::string name = named.filename().string();
  std::vector<std::string> out;
  std::error_code error;
  const fs::path folder = named.has_parent_path() ? named.parent_path() : fs::path(".");
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const std::string candidate = it->path().filename().string();
    if (is_continuation_of(candidate, name) && it->is_regular_file(error)) out.push_back((named.parent_path() / candidate).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::shared_ptr<Structure> open_structure(const std::string& path) {
  auto s = std::make_shared<Structure>();
  s->path = path;
  std::vector<std::string> paths{path};
  for (std::string& more : continuation_files(path)) paths.push_back(std::move(more));
  for (std::string& part : paths) {
    s->parts.push_back(FilePart{part, std::make_unique<io::MappedFile>(part, kFormat), true});
    Reader(*s, s->parts.size() - 1).read_tables();
  }
  std::map<double, std::vector<StateRef>> by_time;
  for (std::size_t d = 0; d < s->symbols.size(); ++d) {
    const Symbol& dir = s->symbols[d];
    if (!dir.directory) continue;
    const std::string database = path_of(*s, static_cast<int>(d));
    for (const auto& [name, index] : dir.children) {
      const Symbol& entry = s->symbols[index];
      if (name == "metadata" && entry.directory) {
        for (const auto& [variable, v] : entry.children) {
          const Symbol& value = s->symbols[v];
          if (value.directory || value.type == kLink) continue;
          const std::string key = database + "/metadata/" + variable;
          if (value.type == 1) {
            std::string chars(s->parts[value.file].file->bytes().substr(value.data, static_cast<std::size_t>(value.length)));
            while (!chars.empty() && (chars.back() == ' ' || chars.back() == '\0')) chars.pop_back();
            s->mesh.string_field_data.append_new(key, std::vector<std::string>{chars});
          } else {
            s->mesh.field_data.append_new(key, copy_variable(*s, value));
          }
        }
      } else if (entry.directory && is_state_name(name)) {
        const auto time = entry.children.find("time");
        if (time == entry.children.end()) continue;
        const Symbol& t = s->symbols[time->second];
        if (t.directory || t.length < 1 || (t.type != 9 && t.type != 10 && t.type != 3)) continue;
        by_time[scalar_time(*s, t)].push_back({database, index});
      }
    }
  }
  for (auto& [time, refs] : by_time) {
    s->times.push_back(time);
    s->states.push_back(std::move(refs));
  }
  s->mesh.points = NDArray::allocate(DType::float64, {0, 3});
  return s;
}

class Series final : public TimeSeriesReader {
 public:
  explicit Series(std::shared_ptr<Structure> s) : s_(std::move(s)) {}
  std::size_t num_steps() const override { return s_->times.size(); }
  double time(std::size_t step) const override {
    check(step);
    return s_->times[step];
  }
  Mesh read_mesh() override {
    Mesh mesh;
    mesh.points = s_->mesh.points.copy();
    for (const auto& [name, array] : s_->mesh.field_data) mesh.field_data.append_new(name, array.copy());
    for (const auto& [name, strings] : s_->mesh.string_field_data) mesh.string_field_data.append_new(name, strings);
    return mesh;
  }
  TimeStep read_step(std::size_t step) override {
    check(step);
    TimeStep out;
    out.time = s_->times[step];
    for (const StateRef& state : s_->states[step])
      for (const auto& [name, index] : s_->symbols[state.directory].children) {
        const Symbol& symbol = s_->symbols[index];
        if (symbol.directory || symbol.type == kLink) continue;
        out.field_data.set(state.database + "/" + name, copy_variable(*s_, symbol));
      }
    return out;
  }

 private:
  void check(std::size_t step) const {
    if (step >= s_->times.size())
      throw ReadError(s_->path, std::string(kFormat), "step " + std::to_string(step) + " is out of range (the file has " +
                                                          std::to_string(s_->times.size()) + " time steps)");
  }
  std::shared_ptr<Structure> s_;
};

}  // namespace

bool looks_like(std::string_view head) noexcept {
  if (head.size() < 8) return false;
  const auto* h = reinterpret_cast<const unsigned char*>(head.data());
  return h[0] >= 8 && valid_size(h[1]) && valid_size(h[2]) && valid_size(h[3]) && valid_size(h[4]) && h[5] <= 1;
}

bool is_file_name(std::string_view path) noexcept {
  const std::size_t slash = path.find_last_of('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (!name.starts_with("binout")) return false;
  // binout, binout0000 …, and a continuation file itself (binout%001, binout0000%002).
  const std::string_view family = name.substr(0, std::min(name.find('%'), name.size()));
  const auto digits = [](std::string_view text) { return std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }); };
  if (!digits(family.substr(6))) return false;
  return family.size() == name.size() || (name.size() > family.size() + 1 && digits(name.substr(family.size() + 1)));
}

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path) { return std::make_unique<Series>(open_structure(path)); }

Mesh read(const std::string& path) {
  Series series(open_structure(path));
  Mesh mesh = series.read_mesh();
  if (series.num_steps() == 0) return mesh;
  TimeStep step = series.read_step(0);
  for (auto& [name, array] : step.field_data) mesh.field_data.set(name, std::move(array));
  mesh.field_data.set("time", NDArray::from_values<double>({step.time}));
  return mesh;
}

}  // namespace meshioplusplus::binout
