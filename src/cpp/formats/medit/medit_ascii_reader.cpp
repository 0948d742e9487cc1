// Medit ASCII (.mesh) reader: keywords, then counts, then whitespace-separated records.
#include <cctype>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

#include "formats/medit/medit_reader.hpp"
#include "formats/medit/medit_sections.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/line_values.hpp"
#include "io/source/parallel.hpp"
#include "io/text/text_scanner.hpp"

namespace meshioplusplus::medit::detail {
namespace {

bool starts_keyword(char c) noexcept { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

class AsciiReader {
 public:
  AsciiReader(std::string_view text, const std::string& path) : path_(path), scanner_(text, path_, "medit") {}

  Mesh read() {
    while (true) {
      skip_comments();
      if (scanner_.at_end()) break;
      const std::size_t start = scanner_.position();
      const std::string_view keyword = scanner_.next_token();
      if (!starts_keyword(keyword.front()))
        scanner_.fail_at(start, "expected a keyword, found '" + std::string(keyword.substr(0, 32)) + "'");
      if (equals_ignoring_case(keyword, "End")) break;
      read_section(keyword, start);
    }
    if (parsed_.points.empty_handle()) scanner_.fail("the file has no Vertices section");
    return assemble(std::move(parsed_), path_);
  }

 private:
  void read_section(std::string_view keyword, std::size_t start) {
    if (equals_ignoring_case(keyword, "MeshVersionFormatted")) return read_version(start);
    if (equals_ignoring_case(keyword, "Dimension")) return read_dimension(start);
    if (equals_ignoring_case(keyword, "Vertices")) return read_vertices(start);
    if (const ElementSection* section = element_section_by_keyword(keyword)) return read_elements(*section, start);
    if (const SkippedSection* section = skipped_section_by_keyword(keyword)) return skip_records(*section, start);
    skip_to_next_keyword();
  }

  // '#' comments run to the end of the line; they may stand wherever a keyword or a count may.
  void skip_comments() {
    while (true) {
      scanner_.skip_whitespace();
      if (scanner_.at_end() || scanner_.document()[scanner_.position()] != '#') return;
      scanner_.next_line();
    }
  }

  void read_version(std::size_t start) {
    version_ = scanner_.next_number<int>();
    if (version_ < 1 || version_ > 4)
      scanner_.fail_at(start, "MeshVersionFormatted " + std::to_string(version_) + " is not 1, 2, 3 or 4");
  }

  // 1 is not Medit's (libMeshb refuses it) but meshio writes and reads it for 1-D meshes:
  // points (n, 1), as meshio gives them.
  void read_dimension(std::size_t start) {
    skip_comments();
    dimension_ = scanner_.next_number<int>();
    if (dimension_ < 1 || dimension_ > 3)
      scanner_.fail_at(start, "Dimension " + std::to_string(dimension_) + " is not 1, 2 or 3");
  }

  // A section's record count, checked against the bytes left: every value takes at least
  // one character and one separator, so a count the file cannot hold is refused before
  // anything is allocated for it.
  std::int64_t read_count(std::string_view keyword, std::int64_t values_per_record) {
    skip_comments();
    const std::size_t at = scanner_.position();
    const std::int64_t count = scanner_.next_number<std::int64_t>();
    if (count < 0) scanner_.fail_at(at, std::string(keyword) + ": negative count " + std::to_string(count));
    const auto remaining = static_cast<std::int64_t>(scanner_.end() - scanner_.position());
    if (values_per_record > 0 && count > (remaining + 1) / 2 / values_per_record)
      scanner_.fail_at(at, std::string(keyword) + ": " + std::to_string(count) +
                               " records announced, more than the rest of the file can hold");
    return count;
  }

  void require_dimension(std::size_t start, std::string_view keyword) {
    if (dimension_ == 0) scanner_.fail_at(start, std::string(keyword) + " comes before Dimension");
  }

  void read_vertices(std::size_t start) {
    require_dimension(start, "Vertices");
    if (!parsed_.points.empty_handle()) scanner_.fail_at(start, "a second Vertices section");
    const std::int64_t count = read_count("Vertices", dimension_ + 1);
    parsed_.points = NDArray::allocate(version_ == 1 ? DType::float32 : DType::float64, {count, dimension_});
    parsed_.point_refs = allocate_refs(count);
    visit_dtype(parsed_.points.dtype(), [&](auto real) {
      using Real = decltype(real);
      if constexpr (std::is_floating_point_v<Real>) {
        Real* coordinates = parsed_.points.data_as<Real>();
        const auto fast = [&](std::uint64_t row, const char* p, const char* end) {
          for (int k = 0; k < dimension_; ++k)
            if ((p = io::plain_real(p, end, coordinates[row * static_cast<std::uint64_t>(dimension_) + k])) == nullptr)
              return false;
          return fast_ref(p, end, parsed_.point_refs, row, document_end());
        };
        const auto per_line = [&](LineScanner& line, std::uint64_t row) {
          for (int k = 0; k < dimension_; ++k)
            if (!line.next(coordinates[row * static_cast<std::uint64_t>(dimension_) + k])) return false;
          return read_ref_on_line(line, parsed_.point_refs, row);
        };
        if (parse_records_in_parallel(count, fast, per_line)) return;
        for (std::int64_t row = 0; row < count; ++row) {
          scanner_.next_numbers(coordinates + row * dimension_, static_cast<std::size_t>(dimension_));
          read_ref(parsed_.point_refs, row);
        }
      }
    });
  }

  void read_elements(const ElementSection& section, std::size_t start) {
    const std::int64_t count = read_count(section.keyword, section.num_nodes + 1);
    ParsedBlock block;
    block.section = &section;
    block.offset = start;
    block.text = scanner_.document();
    block.connectivity = NDArray::allocate(DType::int64, {count, section.num_nodes});
    block.refs = allocate_refs(count);
    std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
    const auto fast = [&, num_nodes = static_cast<std::uint64_t>(section.num_nodes)](std::uint64_t row, const char* p,
                                                                                     const char* end) {
      std::int64_t* record = nodes + row * num_nodes;
      for (std::uint64_t k = 0; k < num_nodes; ++k) {
        if ((p = io::plain_integer(p, end, record[k], document_end())) == nullptr) return false;
        record[k] = io::zero_based(record[k]);
      }
      return fast_ref(p, end, block.refs, row, document_end());
    };
    const auto per_line = [&, num_nodes = static_cast<std::uint64_t>(section.num_nodes)](LineScanner& line,
                                                                                         std::uint64_t row) {
      std::int64_t* record = nodes + row * num_nodes;
      for (std::uint64_t k = 0; k < num_nodes; ++k) {
        if (!line.next(record[k])) return false;
        record[k] = io::zero_based(record[k]);
      }
      return read_ref_on_line(line, block.refs, row);
    };
    if (parse_records_in_parallel(count, fast, per_line)) {
      parsed_.blocks.push_back(std::move(block));
      return;
    }
    for (std::int64_t row = 0; row < count; ++row) {
      for (int k = 0; k < section.num_nodes; ++k) *nodes++ = io::zero_based(scanner_.next_number<std::int64_t>());
      read_ref(block.refs, row);
    }
    parsed_.blocks.push_back(std::move(block));
  }

  void skip_records(const SkippedSection& section, std::size_t start) {
    const int width = section.values_per_record + section.dim_multiple * dimension_;
    if (section.dim_multiple > 0) require_dimension(start, section.keyword);
    const std::int64_t count = read_count(section.keyword, section.count_lines ? 0 : width);
    if (section.count_lines) {
      scanner_.next_line();  // the rest of the count's line
      for (std::int64_t i = 0; i < count && !scanner_.at_end(); ++i) scanner_.next_line();
      return;
    }
    for (std::int64_t value = 0; value < count * width; ++value) scanner_.next_number<double>();
  }

  void skip_to_next_keyword() {
    while (true) {
      skip_comments();
      if (scanner_.at_end() || starts_keyword(scanner_.document()[scanner_.position()])) return;
      scanner_.next_token();
    }
  }

  // One line's worth of a record for the parallel parse: numbers are read exactly as the
  // sequential scanner reads them (same characters, same errors), but running out of line
  // means the record is wrapped, a layout only the sequential parse handles.
  class LineScanner {
   public:
    explicit LineScanner(io::TextScanner scanner) : scanner_(scanner) {}
    template <class T> bool next(T& value) {
      scanner_.skip_whitespace();
      if (scanner_.at_end()) return false;
      value = scanner_.next_number<T>();
      return true;
    }
    bool done() {
      scanner_.skip_whitespace();
      return scanner_.at_end();
    }

   private:
    io::TextScanner scanner_;
  };

  bool read_ref_on_line(LineScanner& line, NDArray& refs, std::uint64_t row) const {
    if (refs.dtype() == DType::int64) {
      if (!line.next(refs.data_as<std::int64_t>()[row])) return false;
    } else {
      if (!line.next(refs.data_as<std::int32_t>()[row])) return false;
    }
    return line.done();
  }

  // Lines' last numbers may load bytes past the line, up to here (see io::plain_digits).
  const char* document_end() const noexcept { return scanner_.document().data() + scanner_.document().size(); }

  static bool fast_ref(const char* p, const char* end, NDArray& refs, std::uint64_t row, const char* readable_end) {
    if (refs.dtype() == DType::int64) {
      p = io::plain_integer(p, end, refs.data_as<std::int64_t>()[row], readable_end);
    } else {
      p = io::plain_integer(p, end, refs.data_as<std::int32_t>()[row], readable_end);
    }
    return p != nullptr && io::only_blanks(p, end);
  }

  // Sections of one record per line — what writers produce — parse on all cores when they
  // start on the line after their count. `fast(row, first, last)` may fill record `row` from
  // its line [first, last) when that is plainly laid out; otherwise `per_line(line, row)`
  // fills it and says whether the line held exactly that record. False when the sequential
  // parse must run instead (small section, other layouts); the scanner is then untouched.
  template <class Fast, class PerLine>
  bool parse_records_in_parallel(std::int64_t count, const Fast& fast, const PerLine& per_line) {
    const std::string_view document = scanner_.document();
    std::size_t begin = scanner_.position();
    while (begin < document.size() && (document[begin] == ' ' || document[begin] == '\t' || document[begin] == '\r'))
      ++begin;
    if (begin >= document.size() || document[begin] != '\n') return false;  // records on the count's line
    ++begin;
    const auto parse_record = [&](std::uint64_t row, std::size_t first, std::size_t last) {
      if (fast(row, document.data() + first, document.data() + last)) return true;
      LineScanner line(io::TextScanner(document, first, last, path_, "medit"));
      return per_line(line, row);
    };
    const std::optional<std::size_t> end =
        io::parse_lines_in_parallel(document, begin, static_cast<std::uint64_t>(count), parse_record);
    if (!end) return false;
    scanner_.seek(*end);
    return true;
  }

  // Version 4 files hold 64-bit integers; the others 32-bit ones.
  NDArray allocate_refs(std::int64_t count) const {
    return NDArray::allocate(version_ == 4 ? DType::int64 : DType::int32, {count});
  }

  void read_ref(NDArray& refs, std::int64_t row) {
    if (refs.dtype() == DType::int64) {
      refs.data_as<std::int64_t>()[row] = scanner_.next_number<std::int64_t>();
    } else {
      refs.data_as<std::int32_t>()[row] = scanner_.next_number<std::int32_t>();
    }
  }

  const std::string& path_;
  io::TextScanner scanner_;
  // A file without MeshVersionFormatted is read as version 2 (float64) rather than refused.
  int version_ = 2;
  int dimension_ = 0;
  ParsedMesh parsed_;
};

}  // namespace

Mesh read_ascii(std::string_view text, const std::string& path) { return AsciiReader(text, path).read(); }

}  // namespace meshioplusplus::medit::detail
