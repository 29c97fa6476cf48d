#include "support/ld_cache_writer.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace cudnnup::testing {
namespace {

template <typename T>
void put_le(std::string& out, size_t at, T value) {
  if (out.size() < at + sizeof(T)) out.resize(at + sizeof(T), '\0');
  std::memcpy(out.data() + at, &value, sizeof(T));
}

// A string table; offsets are relative to the start of the table.
struct Strings {
  std::string bytes;
  std::map<std::string, uint32_t> offsets;
  uint32_t add(const std::string& s) {
    auto it = offsets.find(s);
    if (it != offsets.end()) return it->second;
    uint32_t at = static_cast<uint32_t>(bytes.size());
    bytes += s;
    bytes.push_back('\0');
    offsets[s] = at;
    return at;
  }
};

// The new-format block with its string table appended; offsets are relative to its start
// plus `string_bias` (the compat layout hides the block inside the old string table).
std::string make_new_block(const std::vector<CacheRecord>& records, const std::string& generator) {
  std::vector<std::string> subdirs;
  for (const auto& r : records) {
    if (!r.hwcap_subdir.empty() && std::find(subdirs.begin(), subdirs.end(), r.hwcap_subdir) == subdirs.end()) {
      subdirs.push_back(r.hwcap_subdir);
    }
  }
  size_t entries_end = 48 + records.size() * 24;
  // Extension block right after the entries: magic, count, 2 sections, then hwcap index table.
  size_t ext_at = (entries_end + 7) / 8 * 8;
  size_t sections = 2;
  size_t hwcap_table_at = ext_at + 8 + sections * 16;
  size_t generator_at = hwcap_table_at + subdirs.size() * 4;
  size_t strings_at = generator_at + generator.size();
  Strings strings;
  std::string out(48, '\0');
  std::memcpy(out.data(), "glibc-ld.so.cache1.1", 20);
  put_le<uint32_t>(out, 20, static_cast<uint32_t>(records.size()));
  put_le<uint8_t>(out, 28, 2);  // little endian
  put_le<uint32_t>(out, 32, static_cast<uint32_t>(ext_at));
  for (size_t i = 0; i < records.size(); ++i) {
    size_t e = 48 + i * 24;
    const CacheRecord& r = records[i];
    put_le<int32_t>(out, e, r.flags);
    put_le<uint32_t>(out, e + 4, static_cast<uint32_t>(strings_at + strings.add(r.name)));
    put_le<uint32_t>(out, e + 8, static_cast<uint32_t>(strings_at + strings.add(r.path)));
    put_le<uint32_t>(out, e + 12, 0);
    uint64_t hwcap = 0;
    if (!r.hwcap_subdir.empty()) {
      size_t index = std::find(subdirs.begin(), subdirs.end(), r.hwcap_subdir) - subdirs.begin();
      hwcap = (uint64_t{1} << 62) | index;
    }
    put_le<uint64_t>(out, e + 16, hwcap);
  }
  put_le<uint32_t>(out, ext_at, 0xEAA42174u);
  put_le<uint32_t>(out, ext_at + 4, static_cast<uint32_t>(sections));
  put_le<uint32_t>(out, ext_at + 8, 0);  // generator
  put_le<uint32_t>(out, ext_at + 8 + 8, static_cast<uint32_t>(generator_at));
  put_le<uint32_t>(out, ext_at + 8 + 12, static_cast<uint32_t>(generator.size()));
  put_le<uint32_t>(out, ext_at + 24, 1);  // glibc-hwcaps
  put_le<uint32_t>(out, ext_at + 24 + 8, static_cast<uint32_t>(hwcap_table_at));
  put_le<uint32_t>(out, ext_at + 24 + 12, static_cast<uint32_t>(subdirs.size() * 4));
  for (size_t k = 0; k < subdirs.size(); ++k) {
    put_le<uint32_t>(out, hwcap_table_at + k * 4, static_cast<uint32_t>(strings_at + strings.add(subdirs[k])));
  }
  out.resize(generator_at, '\0');
  out += generator;
  out += strings.bytes;
  put_le<uint32_t>(out, 24, static_cast<uint32_t>(strings.bytes.size()));
  return out;
}

}  // namespace

std::string make_ld_cache(const std::vector<CacheRecord>& records, CacheLayout layout, const std::string& generator) {
  if (layout == CacheLayout::kNew) return make_new_block(records, generator);
  // Old header + entries. Old string offsets count from the end of the old entry array.
  size_t old_entries_end = 16 + records.size() * 12;
  std::string out(old_entries_end, '\0');
  std::memcpy(out.data(), "ld.so-1.7.0", 11);
  put_le<uint32_t>(out, 12, static_cast<uint32_t>(records.size()));
  std::string hidden;  // compat: the new block, placed at the aligned end of the old entries
  size_t pad = 0;
  if (layout == CacheLayout::kCompat) {
    pad = (old_entries_end + 7) / 8 * 8 - old_entries_end;
    hidden = std::string(pad, '\0') + make_new_block(records, generator);
  }
  Strings strings;
  for (size_t i = 0; i < records.size(); ++i) {
    size_t e = 16 + i * 12;
    put_le<int32_t>(out, e, records[i].flags);
    put_le<uint32_t>(out, e + 4, static_cast<uint32_t>(hidden.size() + strings.add(records[i].name)));
    put_le<uint32_t>(out, e + 8, static_cast<uint32_t>(hidden.size() + strings.add(records[i].path)));
  }
  out += hidden;
  out += strings.bytes;
  return out;
}

}  // namespace cudnnup::testing
