// The number-formatting floor of a text mesh writer (issue 36): the numbers of a file a writer
// wrote, printed again with std::to_chars (integers in decimal, doubles in the shortest form
// that reads back the same) on THREADS threads, each into its own buffer for its share of the
// tokens, and written in order into a new file with write(2). Other tokens (keywords, tags) are
// copied; every token keeps the one separator that followed it. Reading and splitting the
// input is not timed. No writer that prints the same numbers can be much faster; bench/floor.py
// times it beside the writers (bench/floor_text_writers.py).
//   usage: text_write_floor FILE OUT [THREADS] [REPEAT]   prints the best wall time in seconds
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
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace {

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// One token of the input: an integer, a double, or a copied word (offset and length in the file).
struct Token {
  union {
    std::int64_t integer;
    double real;
    struct {
      std::uint32_t offset, length;
    } word;
  };
  std::uint8_t kind;  // 0 integer, 1 double, 2 word
  char separator;     // what followed it ('\0': the end of the file)
};

std::vector<Token> split(const char* data, const char* begin, const char* end) {
  std::vector<Token> tokens;
  const char* p = begin;
  while (p < end && is_space(*p)) ++p;
  while (p < end) {
    const char* token = p;
    while (p < end && !is_space(*p)) ++p;
    Token t{};
    if (std::from_chars(token, p, t.integer).ptr == p) {
      t.kind = 0;
    } else if (std::from_chars(token, p, t.real).ptr == p) {
      t.kind = 1;
    } else {
      t.kind = 2;
      t.word = {static_cast<std::uint32_t>(token - data), static_cast<std::uint32_t>(p - token)};
    }
    t.separator = p < end ? *p : '\0';
    tokens.push_back(t);
    while (p < end && is_space(*p)) ++p;
  }
  return tokens;
}

char* print(char* out, const char* data, const std::vector<Token>& tokens) {
  for (const Token& t : tokens) {
    if (t.kind == 0) {
      out = std::to_chars(out, out + 24, t.integer).ptr;
    } else if (t.kind == 1) {
      out = std::to_chars(out, out + 32, t.real).ptr;
    } else {
      std::memcpy(out, data + t.word.offset, t.word.length);
      out += t.word.length;
    }
    if (t.separator != '\0') *out++ = t.separator;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s FILE OUT [THREADS] [REPEAT]\n", argv[0]);
    return 2;
  }
  const unsigned threads = argc > 3 ? static_cast<unsigned>(std::atoi(argv[3])) : std::thread::hardware_concurrency();
  const int repeat = argc > 4 ? std::atoi(argv[4]) : 3;
  const int fd = open(argv[1], O_RDONLY);
  struct stat info {};
  if (fd < 0 || fstat(fd, &info) != 0) return 1;
  const auto size = static_cast<std::size_t>(info.st_size);
  if (size >= (std::size_t{1} << 32)) return 1;  // word offsets are 32-bit
  if (size == 0) {  // nothing to print (an empty file of a folder writer)
    std::printf("0 0\n");
    return 0;
  }
  void* mapped = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (mapped == MAP_FAILED) return 1;
  const char* data = static_cast<const char*>(mapped);
  std::vector<const char*> cuts{data};
  for (unsigned t = 1; t < threads; ++t) {
    const char* cut = std::max(cuts.back(), data + size * t / threads);
    while (cut < data + size && !is_space(*cut)) ++cut;  // parts end between tokens
    cuts.push_back(cut);
  }
  cuts.push_back(data + size);
  std::vector<std::vector<Token>> parts(threads);
  std::vector<std::size_t> room(threads);
  for (unsigned t = 0; t < threads; ++t) {
    parts[t] = split(data, cuts[t], cuts[t + 1]);
    room[t] = parts[t].size() * 33 + static_cast<std::size_t>(cuts[t + 1] - cuts[t]);  // every token may grow
  }
  double best = 1e300;
  std::size_t written = 0;
  for (int run = 0; run < repeat; ++run) {
    unlink(argv[2]);
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::unique_ptr<char[]>> buffers(threads);
    std::vector<std::size_t> sizes(threads);
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t)
      workers.emplace_back([&, t] {
        buffers[t].reset(new char[room[t]]);
        sizes[t] = static_cast<std::size_t>(print(buffers[t].get(), data, parts[t]) - buffers[t].get());
      });
    for (std::thread& worker : workers) worker.join();
    const int out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) return 1;
    written = 0;
    for (unsigned t = 0; t < threads; ++t)
      for (std::size_t done = 0; done < sizes[t];) {
        const ssize_t n = write(out, buffers[t].get() + done, sizes[t] - done);
        if (n <= 0) return 1;
        done += static_cast<std::size_t>(n);
      }
    for (std::size_t s : sizes) written += s;
    close(out);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::min(best, seconds);
  }
  unlink(argv[2]);
  munmap(mapped, size);
  close(fd);
  std::printf("%.6f %zu\n", best, written);
  return 0;
}
