// Bounded reading of MAPDL records (ansys_rst_records.hpp says the layout).
#include "formats/ansys_rst/ansys_rst_records.hpp"

#include <cstring>
#include <type_traits>

#include "io/source/read_limits.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::ansys_rst::detail {
namespace {

constexpr unsigned kBitSparse = 1u << 3, kWindowSparse = 1u << 4, kZlib = 1u << 5, kSingle = 1u << 6,
                   kInteger = 1u << 7;

template <class T> T load(std::string_view bytes, std::uint64_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

}  // namespace

void RecordFile::fail(std::string message, std::int64_t word) const {
  throw ReadError(path_, std::string(kFormat), std::move(message),
                  word >= 0 ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(word) * 4) : std::nullopt);
}

RecordFile::Header RecordFile::header(std::int64_t word, std::string_view what) const {
  const std::string name(what);
  if (word <= 0 || static_cast<std::uint64_t>(word) > bytes_.size() / 4 ||
      static_cast<std::uint64_t>(word) * 4 + 8 > bytes_.size())
    fail("the " + name + " record's pointer (word " + std::to_string(word) + ") is past the end of the file (" +
             std::to_string(bytes_.size()) + " bytes)",
         word > 0 && static_cast<std::uint64_t>(word) <= bytes_.size() / 4 ? word : -1);
  const std::uint64_t offset = static_cast<std::uint64_t>(word) * 4;
  const std::int32_t words = load<std::int32_t>(bytes_, offset);
  const std::uint32_t flag_word = load<std::uint32_t>(bytes_, offset + 4);
  if (words < 0) fail("the " + name + " record claims " + std::to_string(words) + " words", word);
  if (offset + 8 + 4 * static_cast<std::uint64_t>(words) > bytes_.size())
    fail("the " + name + " record (" + std::to_string(words) + " words) runs past the end of the file", word);
  return {offset + 8, static_cast<std::uint64_t>(words), flag_word >> 24};
}

std::int64_t RecordFile::next(std::int64_t word, std::string_view what) const {
  return word + static_cast<std::int64_t>(header(word, what).data_words) + 3;
}

template <class Out>
std::vector<Out> RecordFile::decode(std::int64_t word, std::string_view what, bool want_integers) const {
  const Header h = header(word, what);
  const std::string name(what);
  if (h.flags & kZlib)
    fail("the " + name + " record is zlib-compressed (/FCOMP); write the file with /FCOMP,RST,0", word);
  const bool integer = (h.flags & kInteger) != 0;
  if (integer != want_integers)
    fail("the " + name + std::string(" record holds ") + (integer ? "integers" : "reals") + " where " +
             (want_integers ? "integers" : "reals") + " belong",
         word);
  const std::uint64_t item = integer ? ((h.flags & kSingle) ? 2 : 4) : ((h.flags & kSingle) ? 4 : 8);
  const std::string_view data = bytes_.substr(h.data_offset, h.data_words * 4);
  const auto value_at = [&](std::uint64_t offset) -> Out {
    if (integer) {
      if (item == 2) return static_cast<Out>(load<std::int16_t>(data, offset));
      return static_cast<Out>(load<std::int32_t>(data, offset));
    }
    if (item == 4) return static_cast<Out>(load<float>(data, offset));
    return static_cast<Out>(load<double>(data, offset));
  };
  std::vector<Out> out;
  if (!(h.flags & (kBitSparse | kWindowSparse))) {
    const std::uint64_t count = data.size() / item;
    out.resize(count);
    for (std::uint64_t k = 0; k < count; ++k) out[k] = value_at(k * item);
    return out;
  }
  if (data.size() < 8) fail("the sparse " + name + " record has no size", word);
  const std::int32_t count = load<std::int32_t>(data, 0);
  if (count < 0) fail("the sparse " + name + " record claims " + std::to_string(count) + " values", word);
  std::uint64_t at = 8;
  const auto need = [&](std::uint64_t bytes) {
    if (at + bytes > data.size()) fail("the sparse " + name + " record ends inside its values", word);
  };
  if (h.flags & kBitSparse) {
    if (count > 32) fail("the bit-sparse " + name + " record claims " + std::to_string(count) + " values (32 at most)", word);
    const std::uint32_t mask = load<std::uint32_t>(data, 4);
    out.assign(static_cast<std::size_t>(count), Out{});
    for (std::int32_t k = 0; k < count; ++k)
      if (mask & (1u << k)) {
        need(item);
        out[static_cast<std::size_t>(k)] = value_at(at);
        at += item;
      }
    return out;
  }
  io::check_claim_fits_limit(path_, kFormat, name + " values", static_cast<std::uint64_t>(count), sizeof(Out),
                             {h.data_offset, std::nullopt});
  out.assign(static_cast<std::size_t>(count), Out{});
  const std::int32_t windows = load<std::int32_t>(data, 4);
  // Each window takes at least 4 + item bytes: a count past that cannot be in the record.
  if (windows < 0 || static_cast<std::uint64_t>(windows) > data.size() / (4 + item))
    fail("the windowed " + name + " record claims " + std::to_string(windows) + " windows", word);
  const std::uint64_t step = item < 4 ? 4 : item;  // values are padded to whole words
  for (std::int32_t w = 0; w < windows; ++w) {
    need(4);
    const std::int32_t location = load<std::int32_t>(data, at);
    at += 4;
    if (location > 0) {
      if (location >= count) fail("a window of the " + name + " record is past its " + std::to_string(count) + " values", word);
      need(item);
      out[static_cast<std::size_t>(location)] = value_at(at);
      at += step;
      continue;
    }
    need(4);
    const std::int64_t start = -static_cast<std::int64_t>(location);
    const std::int32_t length = load<std::int32_t>(data, at);
    at += 4;
    const std::int64_t span = length < 0 ? -static_cast<std::int64_t>(length) : length;
    if (start + span > count) fail("a window of the " + name + " record is past its " + std::to_string(count) + " values", word);
    if (length > 0) {
      need(static_cast<std::uint64_t>(span) * item);
      for (std::int64_t k = 0; k < span; ++k) out[static_cast<std::size_t>(start + k)] = value_at(at + static_cast<std::uint64_t>(k) * item);
      at += static_cast<std::uint64_t>(span) * item;
      if (item == 2 && span % 2) at += 2;
    } else {
      need(item);
      const Out constant = value_at(at);
      at += step;
      for (std::int64_t k = 0; k < span; ++k) out[static_cast<std::size_t>(start + k)] = constant;
    }
  }
  return out;
}

std::vector<std::int64_t> RecordFile::integers(std::int64_t word, std::string_view what) const {
  return decode<std::int64_t>(word, what, true);
}

std::vector<double> RecordFile::reals(std::int64_t word, std::string_view what) const {
  return decode<double>(word, what, false);
}

}  // namespace meshioplusplus::ansys_rst::detail
