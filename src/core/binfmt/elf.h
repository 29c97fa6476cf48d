// Reads what cudnnup needs from an ELF shared object without loading it: class, machine,
// SONAME, NEEDED, RPATH/RUNPATH, and whether the file is whole (a truncated copy is the classic
// result of a failed unzip or a full disk).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/result.h"

namespace cudnnup {

// Reads up to n bytes at offset; a shorter answer means end of file.
using RangeReader = std::function<Result<std::string>(uint64_t offset, size_t n)>;

struct ElfInfo {
  bool is_64bit = false;
  uint16_t machine = 0;  // EM_X86_64 = 62, EM_AARCH64 = 183, EM_PPC64 = 21
  uint16_t type = 0;     // ET_DYN = 3
  std::string soname;
  std::vector<std::string> needed;
  std::vector<std::string> rpath;    // DT_RPATH, split on ':'
  std::vector<std::string> runpath;  // DT_RUNPATH, split on ':'
  bool has_runpath_tag = false;      // DT_RUNPATH present (even if empty) disables DT_RPATH
  std::vector<std::string> problems;  // truncation and inconsistencies, for people
};

std::string elf_machine_name(uint16_t machine);

// The ELF machine of the CPU cudnnup was built for (the process model of `which` assumes it).
constexpr uint16_t kHostElfMachine =
#if defined(__aarch64__)
    183;
#elif defined(__powerpc64__)
    21;
#else
    62;
#endif

// Fails with kCorrupt when the bytes are not an ELF file at all; an ELF file that is damaged
// parses with entries in `problems`.
Result<ElfInfo> parse_elf(const RangeReader& read, uint64_t file_size);

}  // namespace cudnnup
