#include "support/elf_builder.h"

#include <cstring>

namespace cudnnup::testing {
namespace {

template <typename T>
void put(std::string& out, size_t at, T value) {
  if (out.size() < at + sizeof(T)) out.resize(at + sizeof(T), '\0');
  std::memcpy(&out[at], &value, sizeof(T));
}

}  // namespace

std::string build_elf(const ElfSpec& spec) {
  // Strings first, so the dynamic entries can point at them.
  std::string strtab(1, '\0');
  auto add_string = [&](const std::string& s) {
    uint64_t at = strtab.size();
    strtab += s;
    strtab += '\0';
    return at;
  };
  std::vector<std::pair<int64_t, uint64_t>> dyn;
  for (const auto& n : spec.needed) dyn.push_back({1, add_string(n)});       // DT_NEEDED
  if (!spec.soname.empty()) dyn.push_back({14, add_string(spec.soname)});   // DT_SONAME
  if (!spec.rpath.empty()) dyn.push_back({15, add_string(spec.rpath)});     // DT_RPATH
  if (!spec.runpath.empty()) dyn.push_back({29, add_string(spec.runpath)}); // DT_RUNPATH
  bool b64 = spec.is_64bit;
  size_t ehsize = b64 ? 64 : 52, phentsize = b64 ? 56 : 32, dynent = b64 ? 16 : 8;
  size_t phoff = ehsize, dynoff = phoff + 2 * phentsize;
  size_t dynsize = (dyn.size() + 3) * dynent;  // + DT_STRTAB, DT_STRSZ, DT_NULL
  size_t stroff = dynoff + dynsize;
  size_t total = stroff + strtab.size();
  dyn.push_back({5, stroff});           // DT_STRTAB (vaddr == offset: one PT_LOAD at 0)
  dyn.push_back({10, strtab.size()});   // DT_STRSZ
  dyn.push_back({0, 0});                // DT_NULL

  std::string out(total, '\0');
  std::memcpy(&out[0], "\x7f" "ELF", 4);
  out[4] = b64 ? 2 : 1;  // class
  out[5] = 1;            // little endian
  out[6] = 1;            // version
  put<uint16_t>(out, 16, spec.type);
  put<uint16_t>(out, 18, spec.machine);
  put<uint32_t>(out, 20, 1);
  if (b64) {
    put<uint64_t>(out, 32, phoff);
    put<uint16_t>(out, 52, uint16_t(ehsize));
    put<uint16_t>(out, 54, uint16_t(phentsize));
    put<uint16_t>(out, 56, 2);
  } else {
    put<uint32_t>(out, 28, uint32_t(phoff));
    put<uint16_t>(out, 40, uint16_t(ehsize));
    put<uint16_t>(out, 42, uint16_t(phentsize));
    put<uint16_t>(out, 44, 2);
  }
  auto phdr = [&](size_t i, uint32_t type, uint64_t offset, uint64_t size) {
    size_t at = phoff + i * phentsize;
    put<uint32_t>(out, at, type);
    if (b64) {
      put<uint64_t>(out, at + 8, offset);
      put<uint64_t>(out, at + 16, offset);
      put<uint64_t>(out, at + 32, size);
      put<uint64_t>(out, at + 40, size);
    } else {
      put<uint32_t>(out, at + 4, uint32_t(offset));
      put<uint32_t>(out, at + 8, uint32_t(offset));
      put<uint32_t>(out, at + 16, uint32_t(size));
      put<uint32_t>(out, at + 20, uint32_t(size));
    }
  };
  phdr(0, 1, 0, total);         // PT_LOAD
  phdr(1, 2, dynoff, dynsize);  // PT_DYNAMIC
  for (size_t i = 0; i < dyn.size(); ++i) {
    size_t at = dynoff + i * dynent;
    if (b64) {
      put<int64_t>(out, at, dyn[i].first);
      put<uint64_t>(out, at + 8, dyn[i].second);
    } else {
      put<int32_t>(out, at, int32_t(dyn[i].first));
      put<uint32_t>(out, at + 4, uint32_t(dyn[i].second));
    }
  }
  std::memcpy(&out[stroff], strtab.data(), strtab.size());
  return out;
}

}  // namespace cudnnup::testing
