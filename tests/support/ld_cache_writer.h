// Writes ld.so.cache bytes in the three layouts glibc's ldconfig produces, for parser tests.
// Follows the struct layouts of glibc's sysdeps/generic/dl-cache.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cudnnup::testing {

struct CacheRecord {
  std::string name, path;
  int32_t flags = 0x0303;          // libc6,x86-64
  std::string hwcap_subdir;        // "" or e.g. "x86-64-v3" (new format only)
};

enum class CacheLayout { kOld, kCompat, kNew };

std::string make_ld_cache(const std::vector<CacheRecord>& records, CacheLayout layout,
                          const std::string& generator = "test generator");

}  // namespace cudnnup::testing
