// Reads what cudnnup needs from a Windows PE file (DLL or EXE) without loading it: machine type,
// DLL flag, whether the file is whole, the DLLs it imports (load-time and delay-load), and the
// VERSIONINFO resource (what Explorer shows under Properties > Details).
// Layout: Microsoft "PE Format" (learn.microsoft.com/windows/win32/debug/pe-format) and
// "VS_VERSIONINFO" / "VS_FIXEDFILEINFO" (learn.microsoft.com/windows/win32/menurc/vs-versioninfo).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "binfmt/elf.h"  // RangeReader
#include "base/result.h"
#include "facts/machines.h"  // kPeMachine*, pe_machine_name

namespace cudnnup {


// A four-part file version as VS_FIXEDFILEINFO stores it: 9.1.0.70 is {9, 1, 0, 70}.
using PeVersion = std::array<uint16_t, 4>;
std::string pe_version_string(const PeVersion& v);

struct PeInfo {
  uint16_t machine = 0;
  bool pe32_plus = false;  // 64-bit optional header
  bool is_dll = false;
  std::vector<std::string> imports;        // DLL names of the import table, as written
  std::vector<std::string> delay_imports;  // DLL names loaded on first use
  std::optional<PeVersion> file_version;     // VS_FIXEDFILEINFO
  std::optional<PeVersion> product_version;  // VS_FIXEDFILEINFO
  std::string file_description;  // StringFileInfo, first string table; empty when absent
  std::string file_version_text;  // StringFileInfo "FileVersion", as written
  std::string product_name;       // StringFileInfo "ProductName"
  std::vector<std::string> problems;  // truncation and inconsistencies, for people
};

// "x64", "x86", "arm64", or "machine 0x1234".

// Fails with kCorrupt when the file is empty or is not a PE file at all (or its headers are cut
// off); a PE file that is damaged further in parses with entries in `problems` (a section whose
// bytes lie past the end of the file is reported as "truncated: ...").
Result<PeInfo> parse_pe(const RangeReader& read, uint64_t file_size);

}  // namespace cudnnup
