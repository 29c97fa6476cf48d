// A minimal 64-bit little-endian ELF shared object as bytes, for tests on the in-memory
// filesystem: the header, one PT_LOAD over the whole file, a PT_DYNAMIC with the chosen
// SONAME, NEEDED and RUNPATH/RPATH strings, and no sections. binfmt/elf.h reads it like a real
// library; nothing can load it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cudnnup::testing {

struct ElfSpec {
  std::string soname;
  std::vector<std::string> needed;
  std::string runpath;          // DT_RUNPATH when not empty
  std::string rpath;            // DT_RPATH when not empty
  uint16_t machine = 62;        // EM_X86_64
  uint16_t type = 3;            // ET_DYN
};

std::string elf_bytes(const ElfSpec& spec);

// A shared object whose only dynamic string is its SONAME.
inline std::string elf_library(const std::string& soname) { return elf_bytes(ElfSpec{soname, {}, {}, {}}); }

}  // namespace cudnnup::testing
