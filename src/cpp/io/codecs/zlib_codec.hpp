// Floor 2: zlib, an optional build feature (MESHIOPLUSPLUS_HAVE_ZLIB). Without it the
// functions throw std::runtime_error saying the build lacks zlib; the gzip functions throw
// ReadError/WriteError naming the file instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/output/atomic_file.hpp"

namespace meshioplusplus::io {

bool zlib_available() noexcept;

// Appends the zlib stream of `data` to `out`.
void zlib_compress_append(const void* data, std::size_t size, int level, std::vector<std::uint8_t>& out);

// Inflates `input` into exactly `output_size` bytes at `output`. False when the stream is
// corrupt or does not inflate to exactly that size.
bool zlib_decompress(const void* input, std::size_t input_size, void* output,
                     std::size_t output_size) noexcept;

// ---- zlib streams for HDF5's deflate filter and VTK XML's zlib blocks ----
// Compressed with libdeflate when the build has it (MESHIOPLUSPLUS_HAVE_LIBDEFLATE, private to
// zlib_codec.cpp; several times faster than zlib at the same level, same RFC 1950 format), zlib
// otherwise; inflated with ISA-L (MESHIOPLUSPLUS_HAVE_ISAL, likewise private), else libdeflate,
// else zlib. Thread-safe: each thread keeps its own (de)compressor.

// The compressing library: "libdeflate", "zlib", or "" when the build has neither.
std::string_view zlib_fast_library() noexcept;
// The inflating library: "isa-l", "libdeflate", "zlib", or "".
std::string_view zlib_inflate_library() noexcept;
inline bool zlib_fast_available() noexcept { return !zlib_fast_library().empty(); }
// Replaces `out` with the zlib stream of `data` (level 0-9). Throws std::runtime_error on
// failure or without a library.
void zlib_compress_fast(const void* data, std::size_t size, int level, std::vector<std::uint8_t>& out);
// As zlib_decompress: exactly `output_size` bytes, false when corrupt or of another size.
bool zlib_decompress_fast(const void* input, std::size_t input_size, void* output,
                          std::size_t output_size) noexcept;

// ---- gzip files (.gz): RFC 1952 streams, as gzip(1) and Python's gzip module write them ----

// Whether `bytes` opens with the gzip magic 0x1f 0x8b. Readers decide by content, so a
// compressed file is read whatever its name.
bool is_gzip(std::string_view bytes) noexcept;

// The uncompressed content of a gzip file (every member, when several are concatenated).
// Throws ReadError(path, format) at the compressed byte offset where the stream breaks
// (corrupt, truncated, trailing garbage), or when the build has no zlib.
std::string gunzip(std::string_view compressed, const std::string& path, std::string_view format);

// Streams gzip-compressed bytes into `file`. A text writer formats into an OutputBuffer and
// hands its bytes over with gzip(out.raw()) before the buffer fills, so the compressed
// output is produced with bounded memory. finish() writes the trailer; the caller commits.
// Throws WriteError naming the file on failure, or at construction when the build has no zlib.
class GzipWriter {
 public:
  explicit GzipWriter(AtomicFile& file, int level = 6);
  ~GzipWriter();
  GzipWriter(const GzipWriter&) = delete;
  GzipWriter& operator=(const GzipWriter&) = delete;

  void write(std::string_view bytes);
  // Compresses `text` and empties it.
  void gzip(std::string& text) {
    write(text);
    text.clear();
  }
  // Compresses what `out` holds once it passes 256 KiB (or always, with `all`): called after
  // each record, it keeps `out` below its own flush size, so no plain text reaches the file.
  void take(OutputBuffer& out, bool all = false) {
    if (all || out.raw().size() >= (std::size_t{1} << 18)) gzip(out.raw());
  }
  void finish();

 private:
  void deflate_into_file(int flush);

  AtomicFile& file_;
  void* stream_ = nullptr;  // z_stream, kept out of this header
  std::vector<unsigned char> chunk_;
  bool finished_ = false;
};

// ---- text files that may be gzip-compressed (PERMAS, Netgen) ----

// The bytes of a text file that may be gzip-compressed: inflated into `inflated` when the
// content says gzip, otherwise the mapped bytes themselves.
inline std::string_view maybe_gunzip(std::string_view bytes, std::string& inflated, const std::string& path,
                                     std::string_view format) {
  if (!is_gzip(bytes)) return bytes;
  inflated = gunzip(bytes, path, format);
  return inflated;
}

// Whether a file name ends in ".gz" (any case): writers compress exactly then.
inline bool names_gzip(std::string_view path) noexcept {
  return path.size() >= 3 && path[path.size() - 3] == '.' && (path[path.size() - 2] | 0x20) == 'g' &&
         (path[path.size() - 1] | 0x20) == 'z';
}

// A text file written through an OutputBuffer, gzip-compressed when its name ends in ".gz":
// writers format into out(), call end_record() after each record, and commit() at the end.
class TextOutput {
 public:
  TextOutput(const std::string& path, std::string_view format) : file_(path, format), out_(file_) {
    if (names_gzip(path)) gzip_.emplace(file_);
  }

  OutputBuffer& out() noexcept { return out_; }

  void end_record() {
    out_.put('\n');
    if (gzip_) gzip_->take(out_);
  }

  void commit() {
    if (gzip_) {
      gzip_->take(out_, true);
      gzip_->finish();
    } else {
      out_.flush();
    }
    file_.commit();
  }

 private:
  AtomicFile file_;
  OutputBuffer out_;
  std::optional<GzipWriter> gzip_;  // declared last: destroyed before the file it writes to
};

}  // namespace meshioplusplus::io
