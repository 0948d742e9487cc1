#include "io/codecs/zlib_codec.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "io/output/atomic_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/limits.hpp"

#ifdef MESHIOPLUSPLUS_HAVE_ZLIB
#include <zlib.h>
#endif
#ifdef MESHIOPLUSPLUS_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#ifdef MESHIOPLUSPLUS_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif
#include <cstdint>
#include <limits>
#include <memory>

namespace meshioplusplus::io {

#ifdef MESHIOPLUSPLUS_HAVE_ZLIB

bool zlib_available() noexcept { return true; }

void zlib_compress_append(const void* data, std::size_t size, int level, std::vector<std::uint8_t>& out) {
  const std::size_t start = out.size();
  uLongf capacity = compressBound(static_cast<uLong>(size));
  out.resize(start + capacity);
  const int status = compress2(out.data() + start, &capacity, static_cast<const Bytef*>(data),
                               static_cast<uLong>(size), level);
  if (status != Z_OK) throw std::runtime_error("zlib compression failed");
  out.resize(start + capacity);
}

bool zlib_decompress(const void* input, std::size_t input_size, void* output,
                     std::size_t output_size) noexcept {
  uLongf produced = static_cast<uLongf>(output_size);
  if (output_size == 0) {
    // zlib refuses empty outputs via uncompress(); an empty payload is still a valid stream.
    unsigned char sink;
    produced = 1;
    return uncompress(&sink, &produced, static_cast<const Bytef*>(input), static_cast<uLong>(input_size)) == Z_OK &&
           produced == 0;
  }
  const int status = uncompress(static_cast<Bytef*>(output), &produced, static_cast<const Bytef*>(input),
                                static_cast<uLong>(input_size));
  return status == Z_OK && produced == output_size;
}


bool is_gzip(std::string_view bytes) noexcept {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(std::string_view compressed, const std::string& path, std::string_view format) {
  const auto fail = [&](std::size_t offset, const std::string& message) {
    throw ReadError(path, std::string(format), message, offset);
  };
  std::string out;
  // The inflated text is implicit data: bounded by the read limit as it grows (a small
  // "gzip bomb" must end in a ReadError, not in gigabytes of memory).
  const std::uint64_t limit = max_array_bytes();
  const auto grow_limit = static_cast<std::size_t>(std::min<std::uint64_t>(limit, SIZE_MAX - 1) + 1);
  // ISIZE, the last member's length mod 2^32, is a good first guess; zlib cannot expand more
  // than about 1032:1, which bounds the guess when the trailer is corrupt.
  if (compressed.size() >= 18) {
    std::uint32_t isize = 0;
    for (int k = 3; k >= 0; --k) isize = (isize << 8) | static_cast<unsigned char>(compressed[compressed.size() - 4 + k]);
    out.reserve(std::min<std::size_t>({isize, compressed.size() * 1032, grow_limit}));
  }
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) fail(0, "cannot initialise gzip decompression");
  struct End {
    z_stream& stream;
    ~End() { inflateEnd(&stream); }
  } end{stream};

  std::size_t member_start = 0;
  while (true) {
    if (!is_gzip(compressed.substr(member_start)))
      fail(member_start, member_start == 0 ? "not a gzip stream" : "unexpected bytes after the gzip stream");
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data() + member_start));
    stream.avail_in = 0;
    std::size_t consumed = 0;  // of this member
    int status = Z_OK;
    while (status != Z_STREAM_END) {
      if (stream.avail_in == 0) {
        const std::size_t left = compressed.size() - member_start - consumed;
        if (left == 0) fail(compressed.size(), "truncated gzip stream");
        stream.avail_in = static_cast<uInt>(std::min<std::size_t>(left, 1u << 30));
      }
      if (out.size() == out.capacity()) {
        if (out.size() >= grow_limit)
          fail(member_start + consumed, "the gzip stream inflates to more than the read limit of " +
                                            std::to_string(limit) +
                                            " bytes (max_array_bytes; raise it with set_max_array_bytes or "
                                            "MESHIOPLUSPLUS_MAX_ARRAY_BYTES)");
        out.reserve(std::min<std::size_t>(std::max<std::size_t>(out.capacity() * 2, 1 << 16), grow_limit));
      }
      const std::size_t before = out.size();
      const std::size_t room = std::min<std::size_t>(out.capacity() - before, 1u << 30);
      out.resize(before + room);
      stream.next_out = reinterpret_cast<Bytef*>(out.data() + before);
      stream.avail_out = static_cast<uInt>(room);
      const uInt avail_in = stream.avail_in;
      status = inflate(&stream, Z_NO_FLUSH);
      consumed += avail_in - stream.avail_in;
      out.resize(before + (room - stream.avail_out));
      if (status == Z_STREAM_END) break;
      if (status != Z_OK && status != Z_BUF_ERROR)
        fail(member_start + consumed, std::string("corrupt gzip data") + (stream.msg ? std::string(": ") + stream.msg : ""));
      if (status == Z_BUF_ERROR && stream.avail_in != 0 && stream.avail_out != 0)
        fail(member_start + consumed, "corrupt gzip data");
    }
    member_start += consumed;
    // gzip(1) pads some files with zero bytes; anything else after a member must be another member.
    const std::string_view rest = compressed.substr(member_start);
    if (rest.empty() || rest.find_first_not_of('\0') == std::string_view::npos) break;
    if (inflateReset(&stream) != Z_OK) fail(member_start, "cannot restart gzip decompression");
  }
  return out;
}

GzipWriter::GzipWriter(AtomicFile& file, int level) : file_(file), chunk_(1 << 16) {
  auto* stream = new z_stream{};
  if (deflateInit2(stream, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    delete stream;
    file_.fail("cannot initialise gzip compression");
  }
  stream_ = stream;
}

GzipWriter::~GzipWriter() {
  auto* stream = static_cast<z_stream*>(stream_);
  deflateEnd(stream);
  delete stream;
}

void GzipWriter::deflate_into_file(int flush) {
  auto* stream = static_cast<z_stream*>(stream_);
  int status = Z_OK;
  do {
    stream->next_out = chunk_.data();
    stream->avail_out = static_cast<uInt>(chunk_.size());
    status = deflate(stream, flush);
    if (status == Z_STREAM_ERROR) file_.fail("gzip compression failed");
    file_.write(chunk_.data(), chunk_.size() - stream->avail_out);
  } while (stream->avail_out == 0 || (flush == Z_FINISH && status != Z_STREAM_END));
}

void GzipWriter::write(std::string_view bytes) {
  if (finished_) file_.fail("gzip stream written after it was finished");
  auto* stream = static_cast<z_stream*>(stream_);
  while (!bytes.empty()) {
    const std::size_t piece = std::min<std::size_t>(bytes.size(), 1u << 30);
    stream->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    stream->avail_in = static_cast<uInt>(piece);
    deflate_into_file(Z_NO_FLUSH);
    bytes.remove_prefix(piece);
  }
}

void GzipWriter::finish() {
  if (finished_) return;
  auto* stream = static_cast<z_stream*>(stream_);
  stream->next_in = nullptr;
  stream->avail_in = 0;
  deflate_into_file(Z_FINISH);
  finished_ = true;
}

#else

bool zlib_available() noexcept { return false; }

void zlib_compress_append(const void*, std::size_t, int, std::vector<std::uint8_t>&) {
  throw std::runtime_error("this meshio++ build has no zlib support");
}

bool zlib_decompress(const void*, std::size_t, void*, std::size_t) noexcept { return false; }


bool is_gzip(std::string_view bytes) noexcept {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(std::string_view, const std::string& path, std::string_view format) {
  throw ReadError(path, std::string(format), "the file is gzip-compressed and this meshio++ build has no zlib support", 0);
}

GzipWriter::GzipWriter(AtomicFile& file, int) : file_(file) {
  file_.fail("gzip output needs zlib, and this meshio++ build has no zlib support");
}
GzipWriter::~GzipWriter() = default;
void GzipWriter::deflate_into_file(int) {}
void GzipWriter::write(std::string_view) {}
void GzipWriter::finish() {}

#endif

// ---- zlib streams for HDF5 chunks and VTK XML blocks ----
// Compression: libdeflate when built with it, zlib otherwise. Inflation: ISA-L when built with
// it (Intel's igzip: 1.5x libdeflate on meshio's connectivity chunks, on this project's
// machines), then libdeflate, then zlib.

namespace {

#ifdef MESHIOPLUSPLUS_HAVE_LIBDEFLATE
struct CompressorFree {
  void operator()(libdeflate_compressor* compressor) const noexcept { libdeflate_free_compressor(compressor); }
};
struct DecompressorFree {
  void operator()(libdeflate_decompressor* decompressor) const noexcept { libdeflate_free_decompressor(decompressor); }
};

// One compressor per thread and level (allocating one costs more than a small chunk).
libdeflate_compressor* thread_compressor(int level) {
  thread_local std::unique_ptr<libdeflate_compressor, CompressorFree> compressors[10];
  auto& compressor = compressors[level];
  if (!compressor) compressor.reset(libdeflate_alloc_compressor(level));
  return compressor.get();
}

bool libdeflate_inflate(const void* input, std::size_t input_size, void* output, std::size_t output_size) noexcept {
  thread_local std::unique_ptr<libdeflate_decompressor, DecompressorFree> decompressor;
  if (!decompressor) decompressor.reset(libdeflate_alloc_decompressor());
  if (!decompressor) return false;
  // A null actual-size pointer: success only when the stream fills exactly output_size bytes.
  return libdeflate_zlib_decompress(decompressor.get(), input, input_size, output, output_size, nullptr) ==
         LIBDEFLATE_SUCCESS;
}
#endif

#ifdef MESHIOPLUSPLUS_HAVE_ISAL
// Inflates a whole zlib stream in one call (isal_inflate_stateless): the header is parsed, the
// Adler-32 checked, and the stream must end exactly at output_size bytes. ISA-L counts in
// 32 bits, so larger buffers go to the next library. A preset dictionary (never written by
// HDF5 or VTK) is a failure, as with the others.
enum class IsalResult { inflated, corrupt, too_large };
IsalResult isal_zlib_inflate(const void* input, std::size_t input_size, void* output, std::size_t output_size) noexcept {
  if (input_size > std::numeric_limits<std::uint32_t>::max() || output_size >= std::numeric_limits<std::uint32_t>::max())
    return IsalResult::too_large;
  // 85 KiB of tables: one per thread, on the heap (not in the thread's static storage).
  thread_local std::unique_ptr<inflate_state> state;
  if (!state) {
    state.reset(new (std::nothrow) inflate_state);
    if (!state) return IsalResult::too_large;
  }
  isal_inflate_init(state.get());
  state->crc_flag = ISAL_ZLIB;
  state->next_in = static_cast<std::uint8_t*>(const_cast<void*>(input));
  state->avail_in = static_cast<std::uint32_t>(input_size);
  state->next_out = static_cast<std::uint8_t*>(output);
  // Exactly the bytes expected: a stream that would inflate to more ends in ISAL_OUT_OVERFLOW.
  state->avail_out = static_cast<std::uint32_t>(output_size);
  const int status = isal_inflate_stateless(state.get());
  const bool whole = status == ISAL_DECOMP_OK && state->block_state == ISAL_BLOCK_FINISH &&
                     state->total_out == output_size;
  return whole ? IsalResult::inflated : IsalResult::corrupt;
}
#endif

}  // namespace

std::string_view zlib_fast_library() noexcept {
#ifdef MESHIOPLUSPLUS_HAVE_LIBDEFLATE
  return "libdeflate";
#else
  return zlib_available() ? "zlib" : "";
#endif
}

std::string_view zlib_inflate_library() noexcept {
#if defined(MESHIOPLUSPLUS_HAVE_ISAL)
  return "isa-l";
#elif defined(MESHIOPLUSPLUS_HAVE_LIBDEFLATE)
  return "libdeflate";
#else
  return zlib_available() ? "zlib" : "";
#endif
}

void zlib_compress_fast(const void* data, std::size_t size, int level, std::vector<std::uint8_t>& out) {
#ifdef MESHIOPLUSPLUS_HAVE_LIBDEFLATE
  libdeflate_compressor* compressor = thread_compressor(std::clamp(level, 0, 9));
  if (compressor == nullptr) throw std::runtime_error("libdeflate: cannot allocate a compressor");
  out.resize(libdeflate_zlib_compress_bound(compressor, size));
  const std::size_t written = libdeflate_zlib_compress(compressor, data, size, out.data(), out.size());
  if (written == 0) throw std::runtime_error("libdeflate compression failed");
  out.resize(written);
#else
  out.clear();
  zlib_compress_append(data, size, std::clamp(level, 0, 9), out);
#endif
}

bool zlib_decompress_fast(const void* input, std::size_t input_size, void* output,
                          std::size_t output_size) noexcept {
  // An empty output: zlib's own special case (an empty payload is still a valid stream).
  if (output_size == 0) return zlib_decompress(input, input_size, output, output_size);
#ifdef MESHIOPLUSPLUS_HAVE_ISAL
  switch (isal_zlib_inflate(input, input_size, output, output_size)) {
    case IsalResult::inflated: return true;
    case IsalResult::corrupt: return false;
    case IsalResult::too_large: break;
  }
#endif
#ifdef MESHIOPLUSPLUS_HAVE_LIBDEFLATE
  return libdeflate_inflate(input, input_size, output, output_size);
#else
  return zlib_decompress(input, input_size, output, output_size);
#endif
}

}  // namespace meshioplusplus::io
