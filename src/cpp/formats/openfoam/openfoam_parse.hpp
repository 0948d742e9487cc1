// The FoamFile layer of the OpenFOAM reader: one file of a case (its bytes, inflated when
// gzip-compressed), its `FoamFile { … }` header, and the list and dictionary grammar the
// polyMesh, zone and field files use. Nothing here knows what a mesh is (openfoam_reader*.cpp).
//
//   header     format ascii|binary; class; arch "LSB;label=32;scalar=64" (label/scalar 32 or 64
//              bits; MSB files are byte-swapped). A binary file without arch: each binary list
//              tells its element size by where its ')' is (label 32 then 64, scalar 64 then 32).
//              No header at all: ASCII, and sizes as the text gives them.
//   comments   // to the end of the line and /* … */, anywhere white space may be.
//   directives lines starting with '#' (#include, #includeEtc, #inputMode, #remove …) are skipped
//              where a dictionary entry may start; $macros are kept as words (see field reading).
//   lists      N ( e0 e1 … )  ASCII, an element a number or a parenthesised tuple;
//              N { e }        N copies of one element;
//              N (<raw>)      binary: exactly N × element bytes between the parentheses;
//              ( e0 e1 … )    ASCII without a count (hand-written files).
//   faces      faceList ("N( k(a b c …) … )", binary: each face k(<raw>)) and faceCompactList (an
//              offsets list of N+1 labels, then the flat list of all nodes).
//
// Every count is checked against the bytes left in the file (a number takes at least 2 bytes in
// text, its binary size in binary) and against max_array_bytes() before anything is allocated.
// Errors are ReadError(path of this file, "openfoam", …, byte offset, line); for a compressed file
// the offset and line are in its uncompressed text, and the message says so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "meshioplusplus/ndarray.hpp"

namespace meshioplusplus::io {
class MappedFile;
}

namespace meshioplusplus::openfoam {

inline constexpr std::string_view kFormat = "openfoam";

struct FoamHeader {
  bool present = false;  // a FoamFile dictionary was found
  bool binary = false;
  bool swap_bytes = false;  // arch "MSB…" on this (little-endian) machine
  int label_bytes = 0;      // 4 or 8; 0: not stated
  int scalar_bytes = 0;     // 4 or 8; 0: not stated
  std::string class_name;
  std::string object;
};

// What kind of element a list holds.
enum class ElementKind { label, scalar, boolean };

class FoamFile {
 public:
  // Opens `path`, or `path.gz` when `path` itself is missing. `case_note` ends every error
  // message (e.g. " (case /runs/cavity)"). Throws ReadError when neither exists or on a bad
  // header. Use FoamFile::locate() first where a missing file is not an error.
  FoamFile(const std::string& path, std::string case_note = {});
  ~FoamFile();
  FoamFile(FoamFile&&) noexcept;
  FoamFile& operator=(FoamFile&&) noexcept;

  // `path` or `path.gz`, whichever is a regular file (path first); nullopt when neither is.
  static std::optional<std::string> locate(const std::string& path);

  const std::string& path() const noexcept { return path_; }
  std::string_view text() const noexcept { return text_; }
  const FoamHeader& header() const noexcept { return header_; }
  std::size_t body() const noexcept { return body_; }
  bool compressed() const noexcept { return compressed_; }
  const std::string& case_note() const noexcept { return case_note_; }

  [[noreturn]] void fail(std::size_t offset, const std::string& message) const;

 private:
  void parse_header();

  std::string path_;
  std::string case_note_;
  std::unique_ptr<io::MappedFile> mapped_;
  std::string inflated_;
  std::string_view text_;
  FoamHeader header_;
  std::size_t body_ = 0;
  bool compressed_ = false;
};

// A position in a FoamFile with the token grammar above.
class Cursor {
 public:
  Cursor(const FoamFile& file, std::size_t position) : file_(&file), text_(file.text()), pos_(position) {}

  const FoamFile& file() const noexcept { return *file_; }
  std::size_t position() const noexcept { return pos_; }
  void seek(std::size_t position) noexcept { pos_ = position; }
  std::size_t bytes_left() const noexcept { return pos_ < text_.size() ? text_.size() - pos_ : 0; }

  // Skips white space and comments; returns false at the end of the text.
  bool skip_space();
  // Also skips '#' directive lines (where a dictionary entry may start).
  bool skip_space_and_directives();
  // The next non-space character without consuming it ('\0' at the end).
  char peek();
  bool accept(char c);
  void expect(char c, std::string_view what);
  // A word: a run of characters up to white space or one of ;(){}[]" — or a "quoted string"
  // (returned with its quotes). Fails at the end or on a delimiter.
  std::string_view word(std::string_view what);
  // Whether the next token is a number (a digit, or a sign or '.' before a digit).
  bool at_number();
  std::int64_t label(std::string_view what);
  double scalar(std::string_view what);
  // Skips one dictionary value up to and including its ';' (balanced brackets, strings, and
  // binary lists after List<T> of a known T).
  void skip_value();
  // Skips a balanced '(' … ')' or '{' … '}' group starting at the cursor.
  void skip_group();

  [[noreturn]] void fail(const std::string& message) const { file_->fail(pos_, message); }

 private:
  const FoamFile* file_;
  std::string_view text_;
  std::size_t pos_;
};

// The binary size of one component of `kind` in this file, or 0 when the header leaves it open.
int element_bytes(const FoamHeader& header, ElementKind kind) noexcept;
// Components per element of a List<T> type name ("scalar" 1, "vector" 3, "symmTensor" 6,
// "tensor" 9, "sphericalTensor" 1, "label" 1, "bool" 1 …); 0 for unknown or non-contiguous types.
int components_of(std::string_view type_name, ElementKind* kind = nullptr) noexcept;

// A list at the cursor (after any List<T> prefix): `width` components per element, ASCII or
// binary per the file's header. Labels come back int64, scalars float64, booleans uint8; shape
// (n,) when width is 1, else (n, width). Checks every count against the bytes left and the
// array limit. `what` names the list in messages ("owner", "internalField"). `scratch`: the
// list is a temporary of the read (faces, owner …), its memory given back at once when freed
// (NDArray::allocate_scratch) rather than kept for a later array. `int32_labels`: labels come
// back int32 where a binary file stores them so (else int64).
NDArray read_list(Cursor& cursor, ElementKind kind, int width, std::string_view what, bool scratch = false,
                  bool int32_labels = false);
// A List<word> ("N(a b c)" or "(a b c)"), as inGroups is written.
std::vector<std::string> read_word_list(Cursor& cursor, std::string_view what);

// The whole body of a polyMesh list file (points, owner, neighbour, *ProcAddressing …).
NDArray read_list_file(const FoamFile& file, ElementKind kind, int width, std::string_view what, bool scratch = false,
                       bool int32_labels = false);

struct Faces {  // temporaries of a read: scratch arrays
  NDArray offsets;  // int64 (n + 1); int32 from a large ASCII faceList, which the reader widens
  NDArray nodes;    // int64 or int32 (offsets[n]): the reader narrows what fits (openfoam_reader.cpp)
  // Set by the reader when every face has this many nodes: offsets is then an empty handle.
  int face_size = 0;
  std::int64_t face_begin(std::int64_t f) const noexcept {
    return face_size > 0 ? f * face_size : offsets.data_as<std::int64_t>()[f];
  }
};
// The faces file: faceList or faceCompactList, ASCII or binary.
Faces read_faces_file(const FoamFile& file);

// One entry of a dictionary: its keyword and where its value starts (a sub-dictionary: just
// past its '{'); `end` is just past the entry (its ';' or its '}').
struct DictEntry {
  std::string keyword;
  std::size_t value = 0;
  std::size_t end = 0;
  bool is_dict = false;
};
// The entries of the dictionary whose content starts at `begin` (just inside '{', or the start
// of a file's body), up to the matching '}' (or the end of the file, or — with `stop_at_paren`
// — a ')' ending the list the dictionary sits in). `end` (if given) receives the position just
// past the closing '}' or of that ')'.
std::vector<DictEntry> dictionary_entries(const FoamFile& file, std::size_t begin, std::size_t* end = nullptr);
// The entry `keyword` of that dictionary, found without reading past its keyword (a field's
// internalField is parsed once, not skipped first); nullopt when the dictionary has none.
std::optional<DictEntry> find_dictionary_entry(const FoamFile& file, std::size_t begin, std::string_view keyword);
const DictEntry* find_entry(const std::vector<DictEntry>& entries, std::string_view keyword) noexcept;

// The single word or number of a "keyword value;" entry (e.g. type, nFaces), quotes removed.
std::string entry_word(const FoamFile& file, const DictEntry& entry);
std::int64_t entry_label(const FoamFile& file, const DictEntry& entry);

// A list of named dictionaries as the boundary and zone files hold them:
// "N ( name { … } name { … } )". Returns each name with the entries of its dictionary.
struct NamedDict {
  std::string name;
  std::size_t at = 0;  // where the name is (for messages)
  std::vector<DictEntry> entries;
};
std::vector<NamedDict> read_named_dicts(const FoamFile& file, std::string_view what);

}  // namespace meshioplusplus::openfoam
