// mimalloc's defaults for the portable cudnnup (linked only with mimalloc: src/CMakeLists.txt,
// cmake/portable_deps.cmake). Large OS pages: mimalloc asks the kernel for transparent huge pages
// on its segments (madvise), so the heap is faulted in 2 MiB at a time instead of 4 KiB. On the
// build machine a page fault costs ~20 us (a virtual machine), and doctor's heap faults were half
// of its ~920: with huge pages it takes 578 and a quarter less wall time (docs/benchmarks.md,
// 2026-12-07). Where THP is "never" this changes nothing; MIMALLOC_LARGE_OS_PAGES=0 still turns
// it off (a default, not a setting).

#include <cstdbool>

// From mimalloc.h (2.0.x): the option enum's values are kept stable across versions ("kept for
// binary backward compatibility"); Debian's package ships no header for the static object.
extern "C" void mi_option_set_enabled_default(int option, bool enable);

namespace {

constexpr int kMimallocOptionLargeOsPages = 6;  // mi_option_large_os_pages

// Before mimalloc's own start-up (its constructor has the default priority), so its first
// segment already gets huge pages; setting a default touches no memory.
__attribute__((constructor(101))) void prefer_large_os_pages() {
  mi_option_set_enabled_default(kMimallocOptionLargeOsPages, true);
}

}  // namespace
