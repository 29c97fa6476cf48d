// Reads /etc/ld.so.cache directly (no `ldconfig -p`), in both layouts glibc has written:
//   * "ld.so-1.7.0" (old) entries, optionally followed by the new format hidden in the old
//     string table (the "compat" layout written by glibc < 2.32 by default);
//   * "glibc-ld.so.cache1.1" alone (glibc >= 2.32 default).
// The layout follows glibc's sysdeps/generic/dl-cache.h; ld.so itself prefers the new entries
// when both are present, and so does `lookup` here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/filesystem.h"
#include "base/result.h"

namespace cudnnup {

// Flag values from glibc's dl-cache.h: the low byte is the library type, the next byte the ABI
// that ld.so requires (x86-64, aarch64, ...).
namespace ldcache_flags {
constexpr int32_t kTypeMask = 0x00ff;
constexpr int32_t kElf = 0x0001;
constexpr int32_t kElfLibc5 = 0x0002;
constexpr int32_t kElfLibc6 = 0x0003;
constexpr int32_t kRequiredMask = 0xff00;
constexpr int32_t kX8664Lib64 = 0x0300;
constexpr int32_t kPowerPcLib64 = 0x0500;
constexpr int32_t kX8664LibX32 = 0x0800;
constexpr int32_t kArmLibHf = 0x0900;
constexpr int32_t kAarch64Lib64 = 0x0a00;
constexpr int32_t kArmLibSf = 0x0b00;
constexpr int32_t kS390Lib64 = 0x0400;
constexpr int32_t kRiscvDouble = 0x1000;
}  // namespace ldcache_flags

// The new format marks entries that come from a glibc-hwcaps subdirectory by setting these
// upper 32 bits of `hwcap`; the low 32 bits index the subdirectory-name table.
constexpr uint64_t kLdCacheHwcapExtension = uint64_t{1} << 62;

struct LdCacheEntry {
  std::string name;  // the key ld.so matches: a SONAME such as "libcudnn.so.9"
  std::string path;  // the file it maps to
  int32_t flags = 0;
  uint64_t hwcap = 0;         // new format only
  std::string hwcap_subdir;   // "x86-64-v3" when the entry lives in glibc-hwcaps/x86-64-v3
  bool legacy_hwcap() const { return hwcap != 0 && (hwcap >> 32) != (kLdCacheHwcapExtension >> 32); }
  std::string describe_flags() const;  // "libc6,x86-64", as `ldconfig -p` prints it
};

enum class LdCacheFormat { kOld, kCompat, kNew };
const char* ld_cache_format_name(LdCacheFormat format);  // "old", "old+new", "new"

struct LdCache {
  LdCacheFormat format = LdCacheFormat::kNew;
  // The entries ld.so consults, in file order: the new-format ones when present, else the old.
  std::vector<LdCacheEntry> entries;
  std::string generator;  // e.g. "ldconfig (GNU libc) stable release version 2.36" (new format)
};

// Parses the bytes of a cache file. Fails with kCorrupt on a bad magic or out-of-range table,
// naming what was wrong.
Result<LdCache> parse_ld_so_cache(std::string_view bytes);

// Reads and parses `path` (normally /etc/ld.so.cache) through the FileSystem.
Result<LdCache> read_ld_so_cache(const FileSystem& fs, const std::string& path = "/etc/ld.so.cache");

// The same, parsed once per distinct file content in this process and shared: the loader model
// builds a simulation per question (a plain program, each framework, with and without
// LD_LIBRARY_PATH), and parsing a cache of a thousand entries each time was most of its cost.
Result<std::shared_ptr<const LdCache>> read_ld_so_cache_shared(const FileSystem& fs,
                                                              const std::string& path = "/etc/ld.so.cache");

// Whether ld.so for an object of this ELF class and machine accepts a cache entry with these
// flags (glibc's _dl_cache_check_flags per architecture).
bool ld_cache_flags_match(int32_t flags, bool is_64bit, uint16_t machine);

struct LdCacheHit {
  const LdCacheEntry* entry = nullptr;  // null: no usable entry
  // Entries with the right name that ld.so would pass over, with the reason.
  std::vector<std::pair<const LdCacheEntry*, std::string>> skipped;
};

// What ld.so's cache lookup returns for `name`. `supported_hwcaps` lists the glibc-hwcaps
// subdirectories this CPU supports, best first (e.g. {"x86-64-v3", "x86-64-v2"}); an entry in
// such a subdirectory beats the plain one, as in glibc >= 2.33.
LdCacheHit ld_cache_lookup(const LdCache& cache, std::string_view name, bool is_64bit, uint16_t machine,
                           const std::vector<std::string>& supported_hwcaps = {});

}  // namespace cudnnup
