#include "io/source/read_limits.hpp"

#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "meshioplusplus/errors.hpp"

namespace meshioplusplus {
namespace {

std::uint64_t limit_from_environment() noexcept {
  const char* text = std::getenv("MESHIOPLUSPLUS_MAX_ARRAY_BYTES");
  if (text == nullptr) return default_max_array_bytes();
  std::uint64_t requested = 0;
  const char* end = text + std::strlen(text);
  const auto [stop, error] = std::from_chars(text, end, requested);
  if (error != std::errc{} || stop != end || requested == 0) return default_max_array_bytes();  // unreadable: the default
  return requested;
}

std::atomic<std::uint64_t> chosen_limit{0};  // 0: not chosen by the program

}  // namespace

std::uint64_t default_max_array_bytes() noexcept {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return std::uint64_t{1} << 30;
  return static_cast<std::uint64_t>(pages) / 2 * static_cast<std::uint64_t>(page_size);
}

std::uint64_t max_array_bytes() noexcept {
  const std::uint64_t chosen = chosen_limit.load(std::memory_order_relaxed);
  if (chosen != 0) return chosen;
  static const std::uint64_t from_environment = limit_from_environment();
  return from_environment;
}

void set_max_array_bytes(std::uint64_t bytes) noexcept { chosen_limit.store(bytes, std::memory_order_relaxed); }

namespace io {

void check_claim_fits_file(const std::string& path, std::string_view format, std::string_view what,
                           std::uint64_t count, std::uint64_t min_file_bytes_each, std::uint64_t bytes_left,
                           ClaimSite site) {
  const std::optional<std::uint64_t> needed = checked_product(count, min_file_bytes_each);
  if (needed && *needed <= bytes_left) return;
  throw ReadError(path, std::string(format),
                  "the header claims " + std::to_string(count) + " " + std::string(what) + ", which need at least " +
                      (needed ? std::to_string(*needed) : std::string("2^64")) + " bytes, but the file has only " +
                      std::to_string(bytes_left) + " bytes left",
                  site.byte_offset, site.line);
}

void check_claim_fits_limit(const std::string& path, std::string_view format, std::string_view what,
                            std::uint64_t count, std::uint64_t bytes_each, ClaimSite site) {
  const std::uint64_t limit = max_array_bytes();
  const std::optional<std::uint64_t> needed = checked_product(count, bytes_each);
  if (needed && *needed <= limit) return;
  throw ReadError(path, std::string(format),
                  "the header claims " + std::to_string(count) + " " + std::string(what) + " (" +
                      (needed ? std::to_string(*needed) : std::string("over 2^64")) +
                      " bytes), more than the read limit of " + std::to_string(limit) +
                      " bytes (max_array_bytes; raise it with set_max_array_bytes or MESHIOPLUSPLUS_MAX_ARRAY_BYTES)",
                  site.byte_offset, site.line);
}

void reject_empty_file(std::string_view bytes, const std::string& path, std::string_view format) {
  if (bytes.find_first_not_of(" \t\r\n\f\v") != std::string_view::npos) return;
  throw ReadError(path, std::string(format),
                  bytes.empty() ? "the file is empty (0 bytes)" : "the file holds only white space", 0);
}

}  // namespace io
}  // namespace meshioplusplus
