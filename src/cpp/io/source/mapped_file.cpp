#include "io/source/mapped_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>

#include "io/source/parallel.hpp"

namespace meshioplusplus::io {
namespace {

std::atomic<std::size_t> g_small_file_limit{std::size_t{1} << 20};
std::atomic<MappedFile::AfterMapHook> g_after_map_hook{nullptr};

// ---- SIGBUS guard -----------------------------------------------------------------------
// A fixed table the signal handler can scan without locks or allocation. A slot is claimed by
// a mapping for its lifetime; more live mappings than slots are read into memory instead.
struct GuardSlot {
  std::atomic<bool> claimed{false};
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};  // rounded up to whole pages
  std::atomic<bool> truncated{false};
};
constexpr std::size_t kGuardSlots = 128;
std::array<GuardSlot, kGuardSlots> g_slots;

std::mutex g_install_mutex;
struct sigaction g_previous_action {};  // what SIGBUS did before our handler
std::uintptr_t g_page_size = 4096;

void pass_on(int signal_number, siginfo_t* info, void* context) {
  const struct sigaction previous = g_previous_action;
  if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
    previous.sa_sigaction(signal_number, info, context);
    return;
  }
  if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN && previous.sa_handler != nullptr) {
    previous.sa_handler(signal_number);
    return;
  }
  // Default action (ignoring a fault would spin on it): restore it; a fault then repeats and
  // ends the process as it would have without us, a signal sent by kill() is raised again.
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(SIGBUS, &fallback, nullptr);
  if (info == nullptr || info->si_code <= 0) ::raise(SIGBUS);
}

void on_sigbus(int signal_number, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  if (info != nullptr && info->si_code > 0) {  // a fault, not a kill()
    const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
    for (GuardSlot& slot : g_slots) {
      const std::uintptr_t begin = slot.begin.load(std::memory_order_acquire);
      const std::uintptr_t end = slot.end.load(std::memory_order_acquire);
      if (begin == 0 || address < begin || address >= end) continue;
      // The file shrank under this mapping: zero pages from the fault to the end let the
      // parser run to its end over bytes that are marked as not to be trusted.
      const std::uintptr_t page = address & ~(g_page_size - 1);
      void* replaced = ::mmap(reinterpret_cast<void*>(page), end - page, PROT_READ,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
      if (replaced != MAP_FAILED) {
        slot.truncated.store(true, std::memory_order_release);
        errno = saved_errno;
        return;
      }
      break;
    }
  }
  errno = saved_errno;
  pass_on(signal_number, info, context);
}

// Installs the handler if it is not the current one (someone may have replaced it since, e.g.
// Python's faulthandler); the replaced handler becomes the one non-mapping faults go to.
bool ensure_sigbus_handler() {
  std::lock_guard lock(g_install_mutex);
  struct sigaction current {};
  if (::sigaction(SIGBUS, nullptr, &current) != 0) return false;
  if ((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == on_sigbus) return true;
  g_page_size = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  struct sigaction ours {};
  ours.sa_sigaction = on_sigbus;
  ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&ours.sa_mask);
  g_previous_action = current;
  return ::sigaction(SIGBUS, &ours, nullptr) == 0;
}

int claim_guard_slot(const void* address, std::size_t size) {
  if (!ensure_sigbus_handler()) return -1;
  const auto begin = reinterpret_cast<std::uintptr_t>(address);
  const std::uintptr_t end = (begin + size + g_page_size - 1) & ~(g_page_size - 1);
  for (std::size_t i = 0; i < kGuardSlots; ++i) {
    bool expected = false;
    if (!g_slots[i].claimed.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) continue;
    g_slots[i].truncated.store(false, std::memory_order_relaxed);
    g_slots[i].end.store(end, std::memory_order_release);
    g_slots[i].begin.store(begin, std::memory_order_release);
    return static_cast<int>(i);
  }
  return -1;
}

void release_guard_slot(int index) {
  GuardSlot& slot = g_slots[static_cast<std::size_t>(index)];
  slot.begin.store(0, std::memory_order_release);
  slot.end.store(0, std::memory_order_release);
  slot.claimed.store(false, std::memory_order_release);
}

[[noreturn]] void fail(const std::string& path, std::string_view format, std::string message) {
  throw ReadError(path, std::string(format), std::move(message));
}

}  // namespace

MappedFile::MappedFile(const std::string& path, std::string_view format) : path_(path), format_(format) {
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait for one forever.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) fail(path, format, std::string("cannot open: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int stat_errno = errno;
    ::close(fd);
    fail(path, format, std::string("cannot stat: ") + std::strerror(stat_errno));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    if (S_ISDIR(info.st_mode)) fail(path, format, "is a directory");
    const char* kind = S_ISFIFO(info.st_mode)  ? "a FIFO"
                       : S_ISSOCK(info.st_mode) ? "a socket"
                       : S_ISCHR(info.st_mode)  ? "a character device"
                       : S_ISBLK(info.st_mode)  ? "a block device"
                                                : "not a plain file";
    fail(path, format, std::string("not a regular file (") + kind + ")");
  }
  size_ = static_cast<std::size_t>(info.st_size);
  if (size_ == 0) {
    ::close(fd);
    data_ = "";
    return;
  }

  void* address = MAP_FAILED;
  if (size_ >= small_file_limit()) {
    address = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (address != MAP_FAILED) {
      guard_slot_ = claim_guard_slot(address, size_);
      if (guard_slot_ < 0) {  // no guard available: fall back to a private copy
        ::munmap(address, size_);
        address = MAP_FAILED;
      }
    }
  }
  if (address == MAP_FAILED) {
    // A private copy: small files, or a mapping that could not be made or guarded.
    copy_.reset(new (std::nothrow) char[size_]);
    if (copy_ == nullptr) {
      ::close(fd);
      fail(path, format, "not enough memory to read " + std::to_string(size_) + " bytes");
    }
    std::size_t done = 0;
    while (done < size_) {
      const ssize_t got = ::pread(fd, copy_.get() + done, size_ - done, static_cast<off_t>(done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        const int read_errno = errno;
        ::close(fd);
        fail(path, format, std::string("read failed: ") + std::strerror(read_errno));
      }
      if (got == 0) {
        ::close(fd);
        fail(path, format, "file changed size while being read (" + std::to_string(size_) + " bytes expected, " +
                               std::to_string(done) + " found)");
      }
      done += static_cast<std::size_t>(got);
    }
    ::close(fd);
    data_ = copy_.get();
    return;
  }
  fd_ = fd;  // kept for copy_out
  ::madvise(address, size_, MADV_SEQUENTIAL);
  data_ = static_cast<const char*>(address);
  mapped_ = true;
  if (AfterMapHook hook = g_after_map_hook.load()) hook(path_);
}

MappedFile::~MappedFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!mapped_) return;
  if (guard_slot_ >= 0) {
    if (changed_while_read()) {
      detail::ChangedWhileRead& record = detail::changed_while_read_on_this_thread();
      if (!record.happened) record = {path_, format_, true};
    }
    release_guard_slot(guard_slot_);
  }
  ::munmap(const_cast<char*>(data_), size_);
}

bool MappedFile::copy_out(std::size_t offset, void* destination, std::size_t size) const {
  if (offset > size_ || size > size_ - offset) return false;
  if (size == 0) return true;
  if (fd_ < 0) {
    std::memcpy(destination, data_ + offset, size);
    return true;
  }
  const int error = pread_in_parallel(fd_, offset, destination, size);
  if (error > 0) fail(path_, format_, std::string("read failed: ") + std::strerror(error));
  return error == 0;
}

void MappedFile::release_pages() const noexcept {
  if (mapped_ && size_ > 0) ::madvise(const_cast<char*>(data_), size_, MADV_DONTNEED);
}

bool MappedFile::changed_while_read() const noexcept {
  return guard_slot_ >= 0 && g_slots[static_cast<std::size_t>(guard_slot_)].truncated.load(std::memory_order_acquire);
}

std::size_t MappedFile::small_file_limit() noexcept { return g_small_file_limit.load(std::memory_order_relaxed); }

std::size_t MappedFile::set_small_file_limit(std::size_t bytes) noexcept {
  return g_small_file_limit.exchange(bytes, std::memory_order_relaxed);
}

void MappedFile::set_after_map_hook(AfterMapHook hook) noexcept { g_after_map_hook.store(hook); }

namespace detail {

ChangedWhileRead& changed_while_read_on_this_thread() noexcept {
  thread_local ChangedWhileRead record;
  return record;
}

void throw_changed_while_read(const ChangedWhileRead& record) {
  throw ReadError(record.path, record.format,
                  "file changed size while being read (another process truncated it); read it again");
}

}  // namespace detail
}  // namespace meshioplusplus::io
