// The number-parsing floor of a text mesh reader (issue 36): map the file, cut it into one
// line-aligned part per thread, and parse every whitespace-separated token with
// std::from_chars (an integer where the token is one, else a double), keeping only a sum so
// the work cannot be optimised away. No result arrays are allocated, so no reader can be much
// faster; bench/floor.py times it beside the readers on the same file.
//   usage: text_floor FILE [THREADS] [REPEAT]   prints the best wall time in seconds
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

double parse_part(const char* begin, const char* end) {
  double sum = 0;
  const char* p = begin;
  while (p < end) {
    while (p < end && is_space(*p)) ++p;
    const char* token = p;
    while (p < end && !is_space(*p)) ++p;
    if (token == p) break;
    std::int64_t integer = 0;
    const auto as_integer = std::from_chars(token, p, integer);
    if (as_integer.ec == std::errc() && as_integer.ptr == p) {
      sum += static_cast<double>(integer);
      continue;
    }
    double value = 0;
    if (std::from_chars(token, p, value).ec == std::errc()) sum += value;  // words count 0
  }
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [THREADS] [REPEAT]\n", argv[0]);
    return 2;
  }
  const unsigned threads = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : std::thread::hardware_concurrency();
  const int repeat = argc > 3 ? std::atoi(argv[3]) : 3;
  double best = 1e300, checksum = 0;
  for (int run = 0; run < repeat; ++run) {
    const auto start = std::chrono::steady_clock::now();
    const int fd = open(argv[1], O_RDONLY);
    struct stat info {};
    if (fd < 0 || fstat(fd, &info) != 0) return 1;
    const auto size = static_cast<std::size_t>(info.st_size);
    void* mapped = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (mapped == MAP_FAILED) return 1;
    const char* data = static_cast<const char*>(mapped);
    std::vector<const char*> cuts{data};
    for (unsigned t = 1; t < threads; ++t) {
      const char* cut = std::max(cuts.back(), data + size * t / threads);
      while (cut < data + size && *cut != '\n') ++cut;
      cuts.push_back(cut);
    }
    cuts.push_back(data + size);
    std::vector<double> sums(threads, 0);
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t) workers.emplace_back([&, t] { sums[t] = parse_part(cuts[t], cuts[t + 1]); });
    for (std::thread& worker : workers) worker.join();
    munmap(mapped, size);
    close(fd);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::min(best, seconds);
    for (double s : sums) checksum += s;
  }
  std::printf("%.6f %.17g\n", best, checksum);
  return 0;
}
