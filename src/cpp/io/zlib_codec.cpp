#include "io/zlib_codec.hpp"

#include <stdexcept>

#ifdef MESHIOPLUSPLUS_HAVE_ZLIB
#include <zlib.h>
#endif

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

#else

bool zlib_available() noexcept { return false; }

void zlib_compress_append(const void*, std::size_t, int, std::vector<std::uint8_t>&) {
  throw std::runtime_error("this meshio++ build has no zlib support");
}

bool zlib_decompress(const void*, std::size_t, void*, std::size_t) noexcept { return false; }

#endif

}  // namespace meshioplusplus::io
