#include "support/elf_builder.h"

#include <cstring>

namespace cudnnup::testing {
namespace {

template <typename T>
void put(std::string& bytes, size_t offset, T value) {
  if (bytes.size() < offset + sizeof(T)) bytes.resize(offset + sizeof(T), '\0');
  std::memcpy(&bytes[offset], &value, sizeof(T));
}

}  // namespace

std::string elf_bytes(const ElfSpec& spec) {
  constexpr size_t kHeader = 64, kPhdr = 56, kDyn = 16;
  constexpr int64_t kDtNeeded = 1, kDtStrtab = 5, kDtStrsz = 10, kDtSoname = 14, kDtRpath = 15, kDtRunpath = 29;
  // The string table: a leading NUL, then each string.
  std::string strtab(1, '\0');
  std::vector<std::pair<int64_t, uint64_t>> tags;
  auto add_string = [&](int64_t tag, const std::string& s) {
    tags.emplace_back(tag, strtab.size());
    strtab += s;
    strtab.push_back('\0');
  };
  for (const auto& n : spec.needed) add_string(kDtNeeded, n);
  if (!spec.soname.empty()) add_string(kDtSoname, spec.soname);
  if (!spec.rpath.empty()) add_string(kDtRpath, spec.rpath);
  if (!spec.runpath.empty()) add_string(kDtRunpath, spec.runpath);
  const size_t dyn_offset = kHeader + 2 * kPhdr;
  const size_t dyn_size = (tags.size() + 3) * kDyn;  // + STRTAB, STRSZ, NULL
  const size_t str_offset = dyn_offset + dyn_size;
  const size_t file_size = str_offset + strtab.size();

  std::string b(file_size, '\0');
  b.replace(0, 4, "\x7f" "ELF");
  b[4] = 2;  // ELFCLASS64
  b[5] = 1;  // little-endian
  b[6] = 1;  // EV_CURRENT
  put<uint16_t>(b, 16, spec.type);
  put<uint16_t>(b, 18, spec.machine);
  put<uint32_t>(b, 20, 1);
  put<uint64_t>(b, 32, kHeader);  // e_phoff
  put<uint64_t>(b, 40, 0);        // e_shoff: no sections
  put<uint16_t>(b, 52, kHeader);
  put<uint16_t>(b, 54, kPhdr);
  put<uint16_t>(b, 56, 2);
  put<uint16_t>(b, 58, 64);
  put<uint16_t>(b, 60, 0);
  // PT_LOAD: the whole file at address 0, so a virtual address equals its file offset.
  size_t ph = kHeader;
  put<uint32_t>(b, ph, 1);
  put<uint64_t>(b, ph + 8, 0);
  put<uint64_t>(b, ph + 16, 0);
  put<uint64_t>(b, ph + 32, file_size);
  put<uint64_t>(b, ph + 40, file_size);
  // PT_DYNAMIC.
  ph += kPhdr;
  put<uint32_t>(b, ph, 2);
  put<uint64_t>(b, ph + 8, dyn_offset);
  put<uint64_t>(b, ph + 16, dyn_offset);
  put<uint64_t>(b, ph + 32, dyn_size);
  put<uint64_t>(b, ph + 40, dyn_size);
  size_t d = dyn_offset;
  for (const auto& [tag, value] : tags) {
    put<int64_t>(b, d, tag);
    put<uint64_t>(b, d + 8, value);
    d += kDyn;
  }
  put<int64_t>(b, d, kDtStrtab);
  put<uint64_t>(b, d + 8, str_offset);
  put<int64_t>(b, d + kDyn, kDtStrsz);
  put<uint64_t>(b, d + kDyn + 8, strtab.size());
  b.replace(str_offset, strtab.size(), strtab);
  return b;
}

}  // namespace cudnnup::testing
