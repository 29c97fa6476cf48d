// Reads what cudnnup needs from an ELF shared object without loading it: class, machine,
// SONAME, NEEDED, RPATH/RUNPATH, and whether the file is whole (a truncated copy is the classic
// result of a failed unzip or a full disk).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "facts/machines.h"  // elf_machine_name, host_machine

namespace cudnnup {

// Reads up to n bytes at offset; a shorter answer means end of file.
using RangeReader = std::function<Result<std::string>(uint64_t offset, size_t n)>;

struct ElfInfo {
  bool is_64bit = false;
  uint16_t machine = 0;  // e_machine (facts/machines.h)
  uint16_t type = 0;     // ET_DYN = 3
  std::string soname;
  std::vector<std::string> needed;
  std::vector<std::string> rpath;    // DT_RPATH, split on ':'
  std::vector<std::string> runpath;  // DT_RUNPATH, split on ':'
  bool has_runpath_tag = false;      // DT_RUNPATH present (even if empty) disables DT_RPATH
  std::string interpreter;           // PT_INTERP of an executable: "/lib64/ld-linux-x86-64.so.2"
  std::vector<std::string> problems;  // truncation and inconsistencies, for people
  // Why ld.so cannot map the file although its ELF header is fine (program headers missing or
  // cut off, no loadable segment, a type other than ET_DYN/ET_EXEC): glibc then fails the load
  // instead of searching on. Empty when it can be mapped.
  std::string unmappable;
};


// Fails with kCorrupt when the bytes are not an ELF file at all; an ELF file that is damaged
// parses with entries in `problems`.
Result<ElfInfo> parse_elf(const RangeReader& read, uint64_t file_size);

// Where a named section's bytes lie in the file (".rodata"), from the section table; nullopt when
// the file has no such section or its tables do not read cleanly (the caller then reads more).
struct ElfSection {
  uint64_t offset = 0, size = 0;
};
std::optional<ElfSection> find_elf_section(const RangeReader& read, uint64_t file_size, std::string_view name);

}  // namespace cudnnup
