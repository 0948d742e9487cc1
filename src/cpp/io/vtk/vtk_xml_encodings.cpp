// DataArrayReader's decoding of an array's bytes in each encoding VTK writes: ASCII text (split
// over threads when large), inline base64, and appended raw or base64 data, with their UInt32/
// UInt64 size headers, block tables, compressed blocks (inflated on every core) and the pread
// of large raw arrays. Split from the typed-array layer (vtk_xml_arrays.cpp) so that no file
// passes the project's 1,000-line limit.
#include "io/vtk/vtk_xml_internal.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <limits>

#include "core/parallel_ranges.hpp"
#include "io/codecs/base64.hpp"
#include "io/source/byte_order.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "meshioplusplus/threads.hpp"

namespace meshioplusplus::io::vtk_xml {

using namespace detail;

namespace {

// Work sizes below which a thread costs more than it saves.
// (A thread starts in tens of microseconds and parses 1 MiB of numbers in about one millisecond.)
constexpr std::size_t kParallelTextBytes = std::size_t{1} << 20;  // an ASCII section worth splitting
constexpr std::size_t kTextPieceBytes = std::size_t{512} << 10;   // the least text per thread
constexpr std::size_t kBase64QuantaPerThread = std::size_t{1} << 20;
constexpr std::size_t kCompressedBlocksPerThread = 16;

enum Base64Class : std::uint8_t { kInvalid, kSymbol, kPadding, kSpace };

constexpr std::array<std::uint8_t, 256> kBase64Classes = [] {
  std::array<std::uint8_t, 256> classes{};
  for (int c = 0; c < 256; ++c) {
    const bool symbol = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
    classes[static_cast<std::size_t>(c)] = symbol ? kSymbol : c == '=' ? kPadding : kInvalid;
  }
  for (unsigned char c : {' ', '\n', '\t', '\r', '\f', '\v'}) classes[c] = kSpace;
  return classes;
}();

}  // namespace

// Raw arrays at least this large are copied out of a mapped file with pread (copy_out).
constexpr std::size_t kCopyOutBytesMin = std::size_t{1} << 20;

bool DataArrayReader::Impl::compressed() const noexcept { return !layout_.compressor.empty(); }

std::uint64_t DataArrayReader::Impl::read_word(const std::uint8_t* bytes) const noexcept {
  if (layout_.header_bytes == 4) {
    std::uint32_t value;
    copy_from_file_order(&value, bytes, 4, 1, layout_.little_endian);
    return value;
  }
  std::uint64_t value;
  copy_from_file_order(&value, bytes, 8, 1, layout_.little_endian);
  return value;
}

[[noreturn]] void DataArrayReader::Impl::fail_past_end(const ArrayInfo& info, std::size_t offset) const {
  fail(offset, label(info) + " extends past the end of its data (file truncated?)");
}

void DataArrayReader::Impl::check_compressor(const ArrayInfo& info) const {
  if (!compressed()) return;
  if (layout_.codec == nullptr) {
    std::string known;
    for (const VtkCompressorName& entry : kVtkCompressors)
      known += (known.empty() ? "" : ", ") + std::string(entry.vtk_class);
    fail(info.tag_offset, "unsupported compressor '" + layout_.compressor + "' (known: " + known + ")");
  }
  if (!layout_.codec->available)
    fail(info.tag_offset, "the data is " + std::string(layout_.codec->name) + "-compressed (" + layout_.compressor +
                              ") but this meshio++ build has no " + std::string(layout_.codec->library) +
                              "; rebuild with it installed");
}

Payload DataArrayReader::Impl::open_payload(const ArrayInfo& info) const {
  check_compressor(info);
  if (info.encoding == Encoding::inline_base64) {
    const std::string_view content = trim(doc_.substr(info.content_begin, info.content_end - info.content_begin));
    return open_base64(info, content, false);
  }
  if (!layout_.has_appended) fail(info.tag_offset, label(info) + " is appended but the file has no <AppendedData>");
  const std::uint64_t available = layout_.appended_end - layout_.appended_begin;
  if (info.appended_offset >= available)
    fail(info.tag_offset, label(info) + " has offset " + std::to_string(info.appended_offset) +
                              " beyond the appended data (" + std::to_string(available) + " bytes)");
  const std::size_t start = layout_.appended_begin + static_cast<std::size_t>(info.appended_offset);
  const std::string_view region = doc_.substr(start, layout_.appended_end - start);
  return layout_.appended_base64 ? open_base64(info, region, true) : open_raw(info, region);
}

Payload DataArrayReader::Impl::open_raw(const ArrayInfo& info, std::string_view region) const {
  Payload payload;
  payload.header_offset = offset_of(region);
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(region.data());
  const std::size_t word = layout_.header_bytes;
  if (!compressed()) {
    if (region.size() < word) fail_past_end(info, payload.header_offset);
    payload.size = read_word(bytes);
    if (payload.size > region.size() - word) fail_past_end(info, payload.header_offset);
    payload.data = region.substr(word, static_cast<std::size_t>(payload.size));
    return payload;
  }
  if (region.size() < 3 * word) fail_past_end(info, payload.header_offset);
  const std::uint64_t blocks = read_word(bytes);
  if (blocks > (region.size() - 3 * word) / word) fail_past_end(info, payload.header_offset);
  const std::size_t header_size = static_cast<std::size_t>(3 + blocks) * word;
  read_block_table(info, payload, bytes, blocks);
  if (payload.compressed_total > region.size() - header_size) fail_past_end(info, payload.header_offset);
  payload.data = region.substr(header_size, static_cast<std::size_t>(payload.compressed_total));
  return payload;
}

// Parses [nblocks, blocksize, lastblocksize, compressed sizes...] and derives the size.
void DataArrayReader::Impl::read_block_table(const ArrayInfo& info, Payload& payload, const std::uint8_t* header,
                                             std::uint64_t blocks) const {
  const std::size_t word = layout_.header_bytes;
  const std::size_t at = payload.header_offset;
  payload.compressed = true;
  payload.block_size = read_word(header + word);
  payload.last_block_size = read_word(header + 2 * word);
  if (blocks > 0 && payload.block_size == 0) fail(at, label(info) + ": compression block size is 0");
  if (payload.last_block_size > payload.block_size)
    fail(at, label(info) + ": last compression block is larger than the block size");
  payload.compressed_sizes.resize(static_cast<std::size_t>(blocks));
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const std::uint64_t size = read_word(header + (3 + b) * word);
    if (size > std::numeric_limits<std::uint64_t>::max() - payload.compressed_total)
      fail(at, label(info) + ": compressed sizes overflow");
    payload.compressed_sizes[b] = size;
    payload.compressed_total += size;
  }
  if (blocks > 0) {
    const std::uint64_t last = payload.last_block_size != 0 ? payload.last_block_size : payload.block_size;
    payload.size = checked_product(blocks - 1, payload.block_size, at);
    if (payload.size > std::numeric_limits<std::uint64_t>::max() - last) fail(at, "array size overflows");
    payload.size += last;
  }
  // The per-block allowance covers container overhead (an .xz stream's header and index).
  if (payload.size / layout_.codec->max_expansion > payload.compressed_total + 64 * blocks)
    fail(at, label(info) + ": header claims " + std::to_string(payload.size) + " bytes from " +
                 std::to_string(payload.compressed_total) + " compressed bytes, more than " +
                 std::string(layout_.codec->name) + " can produce");
  // Compressed data is a claim the file's size does not bound: it must fit the read limit.
  if (payload.size > max_array_bytes())
    fail(at, label(info) + ": header claims " + std::to_string(payload.size) +
                 " bytes of compressed data, more than the read limit of " + std::to_string(max_array_bytes()) +
                 " bytes (max_array_bytes; raise it with set_max_array_bytes or MESHIOPLUSPLUS_MAX_ARRAY_BYTES)");
}

// Decodes the base64 quanta covering a `header_size`-byte header. VTK encodes the
// header of compressed data as its own padded stream but uncompressed data as one
// stream with its header, so the last quantum may also carry the first data bytes.
HeaderChunk DataArrayReader::Impl::decode_header_chunk(const ArrayInfo& info, std::string_view text,
                                                       std::size_t header_size) const {
  const std::size_t needed = (header_size + 2) / 3 * 4;
  std::string symbols;
  symbols.reserve(needed);
  std::size_t position = 0;
  for (; position < text.size() && symbols.size() < needed; ++position)
    if (!is_space(text[position])) symbols.push_back(text[position]);
  if (symbols.size() < needed) fail(offset_of(text) + position, label(info) + ": base64 data ends inside its header");
  std::vector<std::uint8_t> decoded(base64_decoded_capacity(needed));
  std::size_t bad = 0;
  const std::optional<std::size_t> decoded_size = base64_decode(symbols, decoded.data(), &bad);
  if (!decoded_size) fail(offset_of(text), label(info) + ": invalid base64 in the size header");
  if (*decoded_size < header_size) fail(offset_of(text), label(info) + ": base64 size header is too short");
  HeaderChunk chunk;
  chunk.header.assign(decoded.begin(), decoded.begin() + static_cast<std::ptrdiff_t>(header_size));
  chunk.lead_size = *decoded_size - header_size;
  std::copy_n(decoded.begin() + static_cast<std::ptrdiff_t>(header_size), chunk.lead_size, chunk.lead.begin());
  chunk.consumed = position;
  return chunk;
}

Payload DataArrayReader::Impl::open_base64(const ArrayInfo& info, std::string_view text, bool appended) const {
  Payload payload;
  payload.base64 = true;
  payload.header_offset = offset_of(text);
  const std::size_t word = layout_.header_bytes;
  HeaderChunk chunk;
  std::uint64_t data_bytes = 0;  // bytes that follow the header in the stream
  if (!compressed()) {
    chunk = decode_header_chunk(info, text, word);
    payload.size = read_word(chunk.header.data());
    data_bytes = payload.size;
  } else {
    const HeaderChunk first = decode_header_chunk(info, text, 3 * word);
    const std::uint64_t blocks = read_word(first.header.data());
    // Every header word takes more than one base64 character.
    if (blocks > text.size() / word) fail(payload.header_offset, label(info) + ": block count exceeds the data");
    chunk = decode_header_chunk(info, text, static_cast<std::size_t>(3 + blocks) * word);
    read_block_table(info, payload, chunk.header.data(), blocks);
    data_bytes = payload.compressed_total;
  }
  if (chunk.lead_size > data_bytes) fail(payload.header_offset, label(info) + ": base64 data is longer than its header says");
  payload.lead = chunk.lead;
  payload.lead_size = chunk.lead_size;
  payload.data = text.substr(chunk.consumed);
  const std::uint64_t remaining = data_bytes - chunk.lead_size;
  if (remaining / 3 * 4 > payload.data.size())
    fail(payload.header_offset, label(info) + ": base64 data is shorter than its header says (" +
                                    std::to_string(data_bytes) + " bytes)");
  // Appended arrays sit back to back; the header says where this one stops.
  if (appended) payload.data = payload.data.substr(0, base64_encoded_size(static_cast<std::size_t>(remaining)));
  return payload;
}

// Decodes `text` into exactly `expected` bytes, checking the count before writing.
void DataArrayReader::Impl::decode_base64_exact(const ArrayInfo& info, std::string_view text, std::uint8_t* out,
                                                std::uint64_t expected) const {
  if (decode_unbroken_base64(text, out, expected)) return;
  std::array<std::uint64_t, 4> classes{};
  for (char c : text) ++classes[kBase64Classes[static_cast<unsigned char>(c)]];
  if (classes[kInvalid] != 0) {
    const auto bad = std::find_if(text.begin(), text.end(), [](char c) {
      return kBase64Classes[static_cast<unsigned char>(c)] == kInvalid;
    });
    fail(offset_of(text) + static_cast<std::size_t>(bad - text.begin()),
         label(info) + ": invalid base64 character '" + std::string(1, *bad) + "'");
  }
  const std::uint64_t symbols = classes[kSymbol] + classes[kPadding];
  if (symbols % 4 != 0 || symbols / 4 * 3 != expected + classes[kPadding])
    fail(offset_of(text), label(info) + ": base64 data does not decode to the " + std::to_string(expected) +
                              " bytes its header announces");
  std::size_t bad = 0;
  if (!base64_decode(text, out, &bad)) fail(offset_of(text) + bad, label(info) + ": invalid base64 data");
}

// The layout every VTK writer produces: one stream of exactly the right length, no
// whitespace. All but its last quantum decode straight into `out` (in parallel when
// large) and cannot overrun it: base64_decode writes three bytes per complete quantum,
// and those quanta hold fewer than `expected` bytes. False: take the careful path.
bool DataArrayReader::Impl::decode_unbroken_base64(std::string_view text, std::uint8_t* out,
                                                   std::uint64_t expected) const {
  if (expected == 0 || text.size() != base64_encoded_size(static_cast<std::size_t>(expected))) return false;
  const std::size_t body_quanta = text.size() / 4 - 1;
  std::atomic<bool> body_ok{true};
  parallel_ranges(body_quanta, kBase64QuantaPerThread, [&](std::size_t first, std::size_t last) {
    const std::optional<std::size_t> written =
        base64_decode(text.substr(4 * first, 4 * (last - first)), out + 3 * first);
    if (!written || *written != 3 * (last - first)) body_ok = false;
  });
  if (!body_ok) return false;
  std::uint8_t tail[6];
  const std::optional<std::size_t> written = base64_decode(text.substr(4 * body_quanta), tail);
  if (!written || 3 * body_quanta + *written != expected) return false;
  std::copy_n(tail, *written, out + 3 * body_quanta);
  return true;
}

// Blocks inflate independently, so large arrays use every core. `block_bytes(b, start,
// buffer)` yields block b's deflate bytes, which start at `start` in the stream.
template <class BlockBytes>
void DataArrayReader::Impl::inflate_blocks(const ArrayInfo& info, const Payload& payload, std::uint8_t* out,
                                           BlockBytes&& block_bytes) const {
  const std::vector<std::uint64_t>& sizes = payload.compressed_sizes;
  std::vector<std::uint64_t> starts(sizes.size() + 1, 0);
  for (std::size_t b = 0; b < sizes.size(); ++b) starts[b + 1] = starts[b] + sizes[b];
  const BlockCodec& codec = *layout_.codec;
  parallel_ranges(sizes.size(), kCompressedBlocksPerThread, [&](std::size_t first, std::size_t last) {
    std::vector<std::uint8_t> buffer;  // per thread: one block's bytes, when they need decoding
    for (std::size_t b = first; b < last; ++b) {
      const bool partial = b + 1 == sizes.size() && payload.last_block_size != 0;
      const std::uint64_t size = partial ? payload.last_block_size : payload.block_size;
      const std::uint8_t* bytes = block_bytes(b, starts[b], buffer);
      if (bytes == nullptr || !codec.decompress(bytes, sizes[b], out + b * payload.block_size, size)) {
        const std::size_t at = offset_of(payload.data) + (payload.base64 ? 0 : static_cast<std::size_t>(starts[b]));
        fail(at, label(info) + ": " + std::string(codec.name) + " block " + std::to_string(b) +
                     " is corrupt or does not decompress to " +
                     std::to_string(size) + " bytes");
      }
    }
  });
}

// Bytes [start, start + size) of a deflate stream held as `lead` then the unbroken base64
// `text`, decoded into `buffer`; nullptr when the text there is not valid base64.
const std::uint8_t* DataArrayReader::Impl::base64_block(const Payload& payload, std::uint64_t start, std::uint64_t size,
                                                        std::vector<std::uint8_t>& buffer) {
  buffer.resize(static_cast<std::size_t>(size));
  std::uint64_t filled = 0;
  for (; filled < size && start + filled < payload.lead_size; ++filled)
    buffer[static_cast<std::size_t>(filled)] = payload.lead[static_cast<std::size_t>(start + filled)];
  if (filled == size) return buffer.data();
  const std::uint64_t first = start + filled - payload.lead_size;  // byte offset in the text's stream
  const std::uint64_t end = start + size - payload.lead_size;
  const std::uint64_t first_quantum = first / 3, end_quantum = (end + 2) / 3;
  std::uint8_t decoded[3 * 4096];
  for (std::uint64_t q = first_quantum; q < end_quantum; q += 4096) {
    const std::uint64_t quanta = std::min<std::uint64_t>(4096, end_quantum - q);
    const std::optional<std::size_t> written =
        base64_decode(payload.data.substr(static_cast<std::size_t>(4 * q), static_cast<std::size_t>(4 * quanta)), decoded);
    if (!written) return nullptr;
    const std::uint64_t decoded_first = 3 * q;
    const std::uint64_t from = std::max(first, decoded_first), to = std::min(end, decoded_first + *written);
    if (to < from) return nullptr;
    if (to > from) std::memcpy(buffer.data() + filled, decoded + (from - decoded_first), static_cast<std::size_t>(to - from));
    filled += to - from;
  }
  return filled == size ? buffer.data() : nullptr;
}

void DataArrayReader::Impl::decode_payload(const ArrayInfo& info, const Payload& payload, void* out) const {
  auto* target = static_cast<std::uint8_t*>(out);
  if (!payload.compressed) {
    if (!payload.base64) {
      const auto bytes = static_cast<std::size_t>(payload.size);
      // Raw bytes of a mapped file: pread them, leaving the mapping's pages untouched.
      if (file_ != nullptr && file_->is_mapped() && bytes >= kCopyOutBytesMin &&
          payload.data.data() >= doc_.data() && payload.data.data() + bytes <= doc_.data() + doc_.size()) {
        if (!file_->copy_out(offset_of(payload.data), target, bytes))
          fail(offset_of(payload.data), label(info) + ": the file ends inside its bytes (file changed size while being read)");
        return;
      }
      copy_in_parallel(target, payload.data.data(), bytes);
      return;
    }
    std::copy_n(payload.lead.begin(), payload.lead_size, target);
    decode_base64_exact(info, payload.data, target + payload.lead_size, payload.size - payload.lead_size);
    return;
  }
  const auto* stream = reinterpret_cast<const std::uint8_t*>(payload.data.data());
  const auto in_stream = [&stream](std::size_t, std::uint64_t start, std::vector<std::uint8_t>&) {
    return stream + start;
  };
  if (!payload.base64) return inflate_blocks(info, payload, target, in_stream);
  // VTK writes the deflate blocks as one unbroken base64 stream: then each block decodes by
  // itself as it is inflated, and the whole compressed stream never sits in memory.
  if (payload.data.size() == base64_encoded_size(static_cast<std::size_t>(payload.compressed_total - payload.lead_size))) {
    const auto decoded_block = [&](std::size_t b, std::uint64_t start, std::vector<std::uint8_t>& buffer) {
      const std::uint8_t* bytes = base64_block(payload, start, payload.compressed_sizes[b], buffer);
      if (bytes == nullptr) {  // bad text: the careful decoder names the character and its offset
        std::vector<std::uint8_t> whole(static_cast<std::size_t>(payload.compressed_total - payload.lead_size));
        decode_base64_exact(info, payload.data, whole.data(), whole.size());
      }
      return bytes;
    };
    return inflate_blocks(info, payload, target, decoded_block);
  }
  std::vector<std::uint8_t> compressed_bytes(static_cast<std::size_t>(payload.compressed_total));  // scratch
  std::copy_n(payload.lead.begin(), payload.lead_size, compressed_bytes.begin());
  decode_base64_exact(info, payload.data, compressed_bytes.data() + payload.lead_size,
                      payload.compressed_total - payload.lead_size);
  stream = compressed_bytes.data();
  inflate_blocks(info, payload, target, in_stream);
}

void DataArrayReader::Impl::parse_ascii(const ArrayInfo& info, void* out, std::uint64_t count) const {
  const std::size_t length = info.content_end - info.content_begin;
  const std::size_t pieces = std::min<std::size_t>(thread_count(), length / kTextPieceBytes);
  if (length >= kParallelTextBytes && pieces > 1 && parse_ascii_in_pieces(info, out, count, pieces)) return;
  parse_ascii_range(info, info.content_begin, info.content_end, out, count);
}

void DataArrayReader::Impl::parse_ascii_range(const ArrayInfo& info, std::size_t begin, std::size_t end, void* out,
                                              std::uint64_t count) const {
  TextScanner scanner(doc_, begin, end, path_, format_);
  visit_dtype(*info.dtype, [&](auto tag) {
    using Value = decltype(tag);
    scanner.next_numbers(static_cast<Value*>(out), static_cast<std::size_t>(count));
  });
  scanner.skip_whitespace();
  if (!scanner.at_end()) scanner.fail(label(info) + " holds more than the " + std::to_string(count) + " values expected");
}

// Splits the section at whitespace and parses the pieces on separate threads; every
// number is still one from_chars call on the same characters, so the result and the
// first error are those of a sequential parse. False when the value count is off: the
// sequential parse then says precisely where.
bool DataArrayReader::Impl::parse_ascii_in_pieces(const ArrayInfo& info, void* out, std::uint64_t count,
                                                  std::size_t pieces) const {
  const std::size_t length = info.content_end - info.content_begin;
  std::vector<std::size_t> bounds(pieces + 1, info.content_begin);
  bounds[pieces] = info.content_end;
  for (std::size_t p = 1; p < pieces; ++p) {
    std::size_t at = std::max(bounds[p - 1], info.content_begin + length / pieces * p);
    while (at < info.content_end && !is_space(doc_[at])) ++at;
    bounds[p] = at;
  }
  std::vector<std::uint64_t> firsts(pieces + 1, 0);  // index of each piece's first value
  parallel_ranges(pieces, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t p = first; p < last; ++p) firsts[p + 1] = count_tokens(doc_.substr(bounds[p], bounds[p + 1] - bounds[p]));
  });
  for (std::size_t p = 0; p < pieces; ++p) firsts[p + 1] += firsts[p];
  if (firsts[pieces] != count) return false;
  const std::size_t item = dtype_size(*info.dtype);
  parallel_ranges(pieces, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t p = first; p < last; ++p)
      parse_ascii_range(info, bounds[p], bounds[p + 1], static_cast<std::uint8_t*>(out) + firsts[p] * item,
                        firsts[p + 1] - firsts[p]);
  });
  return true;
}

}  // namespace meshioplusplus::io::vtk_xml
