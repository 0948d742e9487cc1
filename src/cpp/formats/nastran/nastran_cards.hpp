// Nastran bulk data as cards: a card is its name and data fields, gathered from a first line
// and its continuation lines in any of the three field formats. Also the element cards the
// reader and writer know.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/text/text_scanner.hpp"
#include "meshioplusplus/cell_types.hpp"

namespace meshioplusplus::nastran::detail {

struct Card {
  std::string name;  // upper case, without the large-field '*'
  std::size_t offset = 0;  // of the first line
  // Data fields 2, 3, … of the card (field 1 is the name), trimmed; a blank field is empty.
  // Each is a view into the document, so errors can point at it.
  std::vector<std::string_view> fields;

  std::string_view field(std::size_t index) const noexcept {
    return index < fields.size() ? fields[index] : std::string_view();
  }
};

// What the counting pass needs of a card, without splitting it into fields: its name and
// which of its first 64 data fields are filled (no element card uses a later one).
struct CardShape {
  std::string name;
  std::size_t offset = 0;
  std::uint64_t filled = 0;  // bit i: Card::field(i) is not blank
  std::size_t num_fields = 0;

  bool has(std::size_t index) const noexcept { return index < 64 && ((filled >> index) & 1u) != 0; }
};

class CardReader {
 public:
  // Reads from after "BEGIN BULK" when the file has one (else from the start) to ENDDATA.
  CardReader(std::string_view document, const std::string& path);
  // Reads the cards whose first lines lie in [begin, end) (a part of the bulk data that starts
  // at a card: see next_card_start), up to ENDDATA.
  CardReader(std::string_view document, const std::string& path, std::size_t begin, std::size_t end);
  // Where the bulk data starts: after "BEGIN BULK", else at the top.
  static std::size_t bulk_begin(std::string_view document);
  CardReader(const CardReader&) = delete;  // the scanner refers to path_
  CardReader& operator=(const CardReader&) = delete;

  bool next(Card& card);
  // The next card as next(card) reads it, its fields only marked filled or blank.
  bool next(CardShape& shape);
  // Skips lines up to the first that starts a card (not blank, a comment or a continuation)
  // and returns its offset; nullopt at the end or at ENDDATA.
  std::optional<std::size_t> next_card_start();
  bool ended() const noexcept { return ended_; }  // ENDDATA was read
  // How far a field's bytes may be loaded (nastran_fields' parse_integer): the document's
  // end for a field in it, nothing past the field for one in a tab-expanded copy.
  const char* readable_end(std::string_view field) const noexcept {
    const std::string_view document = scanner_.document();
    const bool inside = field.data() >= document.data() && field.data() <= document.data() + document.size();
    return inside ? document.data() + document.size() : nullptr;
  }

  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    scanner_.fail_at(offset, message);
  }
  // At `field`, a view into the document (at the card when it is blank and lies elsewhere).
  [[noreturn]] void fail_on(const Card& card, std::string_view field, const std::string& message) const;

 private:
  struct PhysicalLine {
    std::string_view text;  // comment cut off, tabs expanded
    std::size_t offset;
    std::size_t comma;      // of the first ',' in text (free format); npos: fixed format
    std::string_view head;  // the first field
  };
  bool next_line(PhysicalLine& line);
  template <class Sink> bool next_card(Sink& sink);
  void append_fields(const PhysicalLine& line, bool first, Card& card);
  void append_fields(const PhysicalLine& line, bool first, CardShape& shape);
  std::string_view expand_tabs(std::string_view text);

  std::string path_;
  io::TextScanner scanner_;
  std::optional<PhysicalLine> pending_;
  std::deque<std::string> expanded_lines_;  // tab-expanded copies; a deque keeps views valid
  bool ended_ = false;
};

// An element card: where its node ids stand and which cell each node count makes.
struct ElementVariant {
  int num_nodes;
  const char* cell_type;
  std::span<const int> file_order;  // meshio node k = card node file_order[k]; empty: same
};

struct ElementCard {
  std::string_view name;
  int first_node_field;  // 0-based index into Card::fields (0 = the element id)
  int node_field_step;   // 2 for CELAS1/CELAS2 (component numbers in between)
  int max_nodes;
  int ref_field;  // index of the property id; -1: none (ref 0)
  std::span<const ElementVariant> variants;
};

const ElementCard* element_card(std::string_view name) noexcept;

// The card and node order written for `cell_type`; card == nullptr when there is none.
struct WrittenElement {
  std::string_view card;
  std::span<const int> file_order;  // card node k = meshio node file_order[k]; empty: same
};
WrittenElement written_element(std::string_view cell_type) noexcept;

}  // namespace meshioplusplus::nastran::detail
