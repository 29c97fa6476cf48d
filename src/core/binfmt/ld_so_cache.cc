#include "binfmt/ld_so_cache.h"

#include <cstring>
#include <functional>
#include <map>
#include <mutex>

#include "facts/machines.h"
#include "binfmt/little_endian.h"

namespace cudnnup {
namespace {

constexpr std::string_view kOldMagic = "ld.so-1.7.0";
constexpr std::string_view kNewMagic = "glibc-ld.so.cache1.1";
constexpr size_t kOldHeaderSize = 16;  // char magic[11]; (pad 1) uint32 nlibs
constexpr size_t kOldEntrySize = 12;   // int32 flags; uint32 key, value
constexpr size_t kNewHeaderSize = 48;  // magic[17] version[3] nlibs len_strings flags pad[3] ext unused[3]
constexpr size_t kNewEntrySize = 24;   // flags key value osversion_unused uint64 hwcap
constexpr size_t kNewAlignment = 8;    // __alignof__(struct cache_file_new)
constexpr uint32_t kExtensionMagic = 0xEAA42174u;
constexpr uint32_t kExtensionTagGenerator = 0;
constexpr uint32_t kExtensionTagGlibcHwcaps = 1;
constexpr uint8_t kEndianMask = 3, kEndianBig = 3;

Error corrupt(const std::string& what) {
  return make_error(ErrorCode::kCorrupt, "the ld.so cache is damaged: " + what +
                                             " (regenerate it with `sudo ldconfig`)");
}

// A NUL-terminated string at base + offset, bounded by the end of the data.
Result<std::string> string_at(std::string_view bytes, size_t base, uint64_t offset) {
  uint64_t start = base + offset;
  if (start >= bytes.size()) return corrupt("a string offset points past the end of the file");
  size_t end = bytes.find('\0', start);
  if (end == std::string_view::npos) return corrupt("a string is not terminated");
  return std::string(bytes.substr(start, end - start));
}

Status parse_extensions(std::string_view bytes, size_t base, uint32_t extension_offset,
                        std::vector<std::string>& hwcap_names, std::string& generator) {
  uint64_t at = base + uint64_t{extension_offset};
  if (extension_offset == 0 || at + 8 > bytes.size()) return ok_status();  // none: allowed
  if (load_le<uint32_t>(bytes, at) != kExtensionMagic) return ok_status();  // glibc ignores it too
  uint32_t count = load_le<uint32_t>(bytes, at + 4);
  if (at + 8 + uint64_t{count} * 16 > bytes.size()) return corrupt("the extension table is cut short");
  for (uint32_t i = 0; i < count; ++i) {
    size_t s = at + 8 + size_t{i} * 16;
    uint32_t tag = load_le<uint32_t>(bytes, s);
    uint32_t offset = load_le<uint32_t>(bytes, s + 8);
    uint32_t size = load_le<uint32_t>(bytes, s + 12);
    if (base + uint64_t{offset} + size > bytes.size()) return corrupt("an extension section lies past the end");
    if (tag == kExtensionTagGenerator) {
      generator = std::string(bytes.substr(base + offset, size));
    } else if (tag == kExtensionTagGlibcHwcaps) {
      if (size % 4 != 0) return corrupt("the glibc-hwcaps table has a partial entry");
      for (uint32_t k = 0; k < size / 4; ++k) {
        auto name = string_at(bytes, base, load_le<uint32_t>(bytes, base + offset + k * 4));
        if (!name) return name.error();
        hwcap_names.push_back(*name);
      }
    }
  }
  return ok_status();
}

// The fields both formats share at the start of an entry: flags, then the offsets of the name
// and the path (counted from `base`, which differs between the formats).
Result<LdCacheEntry> entry_at(std::string_view bytes, size_t e, size_t base) {
  LdCacheEntry entry;
  entry.flags = load_le<int32_t>(bytes, e);
  auto key = string_at(bytes, base, load_le<uint32_t>(bytes, e + 4));
  if (!key) return key.error();
  auto value = string_at(bytes, base, load_le<uint32_t>(bytes, e + 8));
  if (!value) return value.error();
  entry.name = std::move(*key);
  entry.path = std::move(*value);
  return entry;
}

Result<std::vector<LdCacheEntry>> parse_new(std::string_view bytes, size_t base, std::string& generator) {
  if (base + kNewHeaderSize > bytes.size()) return corrupt("the new-format header is cut short");
  uint32_t nlibs = load_le<uint32_t>(bytes, base + 20);
  uint8_t flags = load_le<uint8_t>(bytes, base + 28);
  uint32_t extension_offset = load_le<uint32_t>(bytes, base + 32);
  if ((flags & kEndianMask) == kEndianBig) {
    return make_error(ErrorCode::kUnsupported, "this ld.so cache is big-endian; only little-endian is read");
  }
  if (base + kNewHeaderSize + uint64_t{nlibs} * kNewEntrySize > bytes.size()) {
    return corrupt("it claims " + std::to_string(nlibs) + " entries but the file is too short");
  }
  std::vector<std::string> hwcap_names;
  auto ext = parse_extensions(bytes, base, extension_offset, hwcap_names, generator);
  if (!ext) return ext.error();
  std::vector<LdCacheEntry> entries;
  entries.reserve(nlibs);
  for (uint32_t i = 0; i < nlibs; ++i) {
    size_t e = base + kNewHeaderSize + size_t{i} * kNewEntrySize;
    auto read = entry_at(bytes, e, base);
    if (!read) return read.error();
    LdCacheEntry entry = std::move(*read);
    entry.hwcap = load_le<uint64_t>(bytes, e + 16);
    if (entry.hwcap != 0 && !entry.legacy_hwcap()) {
      uint32_t index = static_cast<uint32_t>(entry.hwcap);
      if (index >= hwcap_names.size()) return corrupt("an entry names a glibc-hwcaps subdirectory that is not listed");
      entry.hwcap_subdir = hwcap_names[index];
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace

const char* ld_cache_format_name(LdCacheFormat format) {
  switch (format) {
    case LdCacheFormat::kOld: return "old";
    case LdCacheFormat::kCompat: return "old+new";
    case LdCacheFormat::kNew: return "new";
  }
  return "?";
}

std::string LdCacheEntry::describe_flags() const {
  std::string out;
  switch (flags & ldcache_flags::kTypeMask) {
    case 0: out = "libc4"; break;
    case ldcache_flags::kElf: out = "ELF"; break;
    case ldcache_flags::kElfLibc5: out = "libc5"; break;
    case ldcache_flags::kElfLibc6: out = "libc6"; break;
    default: out = "unknown"; break;
  }
  switch (flags & ldcache_flags::kRequiredMask) {
    case 0: break;
    case ldcache_flags::kX8664Lib64: out += ",x86-64"; break;
    case ldcache_flags::kX8664LibX32: out += ",x32"; break;
    case ldcache_flags::kAarch64Lib64: out += ",AArch64"; break;
    case ldcache_flags::kPowerPcLib64: out += ",64bit"; break;
    case ldcache_flags::kS390Lib64: out += ",64bit"; break;
    case ldcache_flags::kArmLibHf: out += ",hard-float"; break;
    case ldcache_flags::kArmLibSf: out += ",soft-float"; break;
    case ldcache_flags::kRiscvDouble: out += ",double-float"; break;
    default: out += ",abi " + std::to_string((flags & ldcache_flags::kRequiredMask) >> 8); break;
  }
  if (!hwcap_subdir.empty()) out += ", hwcap: \"" + hwcap_subdir + "\"";
  return out;
}

Result<LdCache> parse_ld_so_cache(std::string_view bytes) {
  LdCache cache;
  if (bytes.substr(0, kNewMagic.size()) == kNewMagic) {
    cache.format = LdCacheFormat::kNew;
    auto entries = parse_new(bytes, 0, cache.generator);
    if (!entries) return entries.error();
    cache.entries = std::move(*entries);
    return cache;
  }
  if (bytes.substr(0, kOldMagic.size()) != kOldMagic) {
    return make_error(ErrorCode::kCorrupt,
                      "not an ld.so cache (neither the \"ld.so-1.7.0\" nor the \"glibc-ld.so.cache1.1\" magic)");
  }
  if (bytes.size() < kOldHeaderSize) return corrupt("the old-format header is cut short");
  uint32_t nlibs = load_le<uint32_t>(bytes, 12);
  uint64_t entries_end = kOldHeaderSize + uint64_t{nlibs} * kOldEntrySize;
  if (entries_end > bytes.size()) {
    return corrupt("it claims " + std::to_string(nlibs) + " old entries but the file is too short");
  }
  // glibc looks for the new format right after the old entries, aligned (dl-cache.c).
  uint64_t new_at = (entries_end + kNewAlignment - 1) / kNewAlignment * kNewAlignment;
  if (new_at + kNewMagic.size() <= bytes.size() && bytes.substr(new_at, kNewMagic.size()) == kNewMagic) {
    cache.format = LdCacheFormat::kCompat;
    auto entries = parse_new(bytes, new_at, cache.generator);
    if (!entries) return entries.error();
    cache.entries = std::move(*entries);
    return cache;
  }
  cache.format = LdCacheFormat::kOld;
  // Old format: string offsets count from the end of the entry array.
  size_t base = entries_end;
  for (uint32_t i = 0; i < nlibs; ++i) {
    size_t e = kOldHeaderSize + size_t{i} * kOldEntrySize;
    auto entry = entry_at(bytes, e, base);
    if (!entry) return entry.error();
    cache.entries.push_back(std::move(*entry));
  }
  return cache;
}

Result<LdCache> read_ld_so_cache(const FileSystem& fs, const std::string& path) {
  auto bytes = fs.read_file(path, 64 << 20);
  if (!bytes) return bytes.error();
  auto cache = parse_ld_so_cache(*bytes);
  if (!cache) {
    Error e = cache.error();
    e.path = path;
    return e;
  }
  return cache;
}

bool ld_cache_flags_match(int32_t flags, bool is_64bit, uint16_t machine) {
  using namespace ldcache_flags;
  switch (machine) {
    case kElfMachineX86_64: return flags == (kElfLibc6 | (is_64bit ? kX8664Lib64 : kX8664LibX32));
    case kElfMachineI386: return flags == kElf || flags == kElfLibc6;
    case kElfMachineAarch64: return flags == (kElfLibc6 | kAarch64Lib64);
    case kElfMachinePpc64: return flags == (kElfLibc6 | kPowerPcLib64);
    case kElfMachineS390: return is_64bit ? flags == (kElfLibc6 | kS390Lib64) : flags == kElfLibc6;
    case kElfMachineArm: return flags == (kElfLibc6 | kArmLibHf) || flags == (kElfLibc6 | kArmLibSf);
    case kElfMachineRiscv: return flags == (kElfLibc6 | kRiscvDouble) || flags == kElfLibc6;
    default: return (flags & kTypeMask) == kElfLibc6;
  }
}

LdCacheHit ld_cache_lookup(const LdCache& cache, std::string_view name, bool is_64bit, uint16_t machine,
                           const std::vector<std::string>& supported_hwcaps) {
  LdCacheHit hit;
  size_t best_rank = supported_hwcaps.size() + 1;  // lower is better; plain entry ranks last
  for (const LdCacheEntry& entry : cache.entries) {
    if (entry.name != name) continue;
    if (!ld_cache_flags_match(entry.flags, is_64bit, machine)) {
      hit.skipped.emplace_back(&entry, "built for " + entry.describe_flags() + ", not this program's ELF class/machine");
      continue;
    }
    if (entry.legacy_hwcap()) {
      hit.skipped.emplace_back(&entry, "legacy hwcap subdirectory entry (not modelled; glibc >= 2.37 ignores them)");
      continue;
    }
    size_t rank = supported_hwcaps.size();
    if (!entry.hwcap_subdir.empty()) {
      rank = supported_hwcaps.size() + 2;
      for (size_t i = 0; i < supported_hwcaps.size(); ++i) {
        if (supported_hwcaps[i] == entry.hwcap_subdir) rank = i;
      }
      if (rank > supported_hwcaps.size()) {
        hit.skipped.emplace_back(&entry, "in glibc-hwcaps/" + entry.hwcap_subdir + ", which this CPU is not known to support");
        continue;
      }
    }
    if (rank < best_rank) {
      if (hit.entry) hit.skipped.emplace_back(hit.entry, "a later cache entry for a better glibc-hwcaps level wins");
      hit.entry = &entry;
      best_rank = rank;
    } else {
      hit.skipped.emplace_back(&entry, "an earlier cache entry with the same name wins");
    }
  }
  return hit;
}

Result<std::shared_ptr<const LdCache>> read_ld_so_cache_shared(const FileSystem& fs, const std::string& path) {
  auto bytes = fs.read_file(path, 64 << 20);
  if (!bytes) return bytes.error();
  // Keyed by the content itself (its size, then the bytes compared: cheaper than hashing them), so
  // two filesystems (a test's in-memory one, the real one) or a changed file never share an entry.
  // A handful of entries.
  static std::mutex mu;
  static std::multimap<size_t, std::pair<std::string, std::shared_ptr<const LdCache>>> parsed;
  size_t key = bytes->size();
  {
    std::lock_guard<std::mutex> lock(mu);
    auto [first, last] = parsed.equal_range(key);
    for (auto it = first; it != last; ++it) {
      if (it->second.first == *bytes) return it->second.second;
    }
  }
  auto cache = parse_ld_so_cache(*bytes);
  if (!cache) {
    Error e = cache.error();
    e.path = path;
    return e;
  }
  auto shared = std::make_shared<const LdCache>(std::move(*cache));
  std::lock_guard<std::mutex> lock(mu);
  if (parsed.size() >= 8) parsed.clear();
  parsed.emplace(key, std::make_pair(std::move(*bytes), shared));
  return shared;
}

}  // namespace cudnnup
