// Builds small ELF shared objects in memory for the loader model's tests on the in-memory
// filesystem: a header, one PT_LOAD over the whole file, a PT_DYNAMIC with the tags asked for.
// No code, no symbols: what ld.so's search and cudnnup's reader look at, nothing more.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cudnnup::testing {

struct ElfSpec {
  bool is_64bit = true;
  uint16_t machine = 62;  // EM_X86_64
  uint16_t type = 3;      // ET_DYN
  std::string soname;
  std::vector<std::string> needed;
  std::string rpath;      // DT_RPATH, when not empty
  std::string runpath;    // DT_RUNPATH, when not empty
};

std::string build_elf(const ElfSpec& spec);

// A shared object whose only dynamic string is its SONAME.
inline std::string elf_library(const std::string& soname) {
  ElfSpec spec;
  spec.soname = soname;
  return build_elf(spec);
}

}  // namespace cudnnup::testing
