// mimalloc's defaults for the portable cudnnup (linked only with mimalloc: src/CMakeLists.txt,
// cmake/portable_deps.cmake).
//
// Large OS pages: with the option on, mimalloc first asks for 2 MiB pages from the kernel's
// reserved huge-page pool (mmap MAP_HUGETLB) and, when there is none, marks its segments for
// transparent huge pages (madvise MADV_HUGEPAGE). The second is what helps: the heap is faulted
// in 2 MiB at a time instead of 4 KiB, and on the build machine (a virtual machine, 10-20 us a page
// fault) doctor took ~550 faults instead of ~920 and an eighth less wall time (docs/benchmarks.md,
// 2026-12-07). The first is a hazard: on a host that reserved huge pages, a container without a
// hugetlb allowance gets the mapping and then SIGBUS on first touch (mimalloc#682, the same trap
// as postgres in Kubernetes), and outside containers it would take pages other services reserved.
// So the default is turned on only where no pool exists (vm.nr_hugepages and
// vm.nr_overcommit_hugepages both 0), where MAP_HUGETLB cannot succeed and mimalloc falls back
// to transparent huge pages. MIMALLOC_LARGE_OS_PAGES=0 or 1 still decides when set (a default,
// not a setting). Cost: two small reads of /proc before main.
//
// Eager commit from a thread's first segment: mimalloc 2.0 leaves the first segment of every
// thread but the first uncommitted (eager_commit_delay=1, to spare programs with many short threads) and
// commits it a megabyte at a time with mprotect, which splits the mapping below 2 MiB, so it
// never gets a huge page. doctor models the plain program's load on a second thread
// (core/diagnose/doctor.cc); its heap alone took ~190 page faults at 4 KiB. With the delay at 0
// doctor --json went from ~500 (495-519) to 309 page faults (perf stat, docs/benchmarks.md). cudnnup
// starts a handful of threads at most, so the memory the delay would save does not matter.

#include <fcntl.h>
#include <unistd.h>

// From mimalloc.h (2.0.x, Debian's 2.0.9 here): option 6 is mi_option_large_os_pages. Debian's
// package ships no header for the static object; the option's number is checked by
// scripts/check-packages.sh (MIMALLOC_VERBOSE=1 must name 'large_os_pages' as on), and mimalloc
// 2.1 renumbered it, so a new mimalloc fails that check rather than set another option silently.
extern "C" void mi_option_set_enabled_default(int option, bool enable);
extern "C" void mi_option_set_default(int option, long value);

namespace {

constexpr int kMimallocOptionLargeOsPages = 6;      // mi_option_large_os_pages
constexpr int kMimallocOptionEagerCommitDelay = 14;  // mi_option_eager_commit_delay

// The number in a /proc/sys file; -1 when it cannot be read (then huge pages stay off). Plain
// open/read into the stack, never stdio: fopen allocates its buffer, and mimalloc's first
// allocation makes its first segment with the default as it is then. Through fopen, the heap
// kept 4 KiB pages although the option read as on (scripts/check-packages.sh now counts the
// page faults).
long proc_number(const char* path) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char text[32];
  ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (n <= 0) return -1;
  long value = 0;
  ssize_t i = 0;
  for (; i < n && text[i] >= '0' && text[i] <= '9' && value < 1000000000; ++i) value = value * 10 + (text[i] - '0');
  return i > 0 ? value : -1;
}

// Before mimalloc's own start-up (its constructor has the default priority), so its first
// segment already follows the default; setting a default touches no memory.
__attribute__((constructor(101))) void set_mimalloc_defaults() {
  mi_option_set_default(kMimallocOptionEagerCommitDelay, 0);
  if (proc_number("/proc/sys/vm/nr_hugepages") != 0 || proc_number("/proc/sys/vm/nr_overcommit_hugepages") != 0) return;
  mi_option_set_enabled_default(kMimallocOptionLargeOsPages, true);
}

}  // namespace
