// The PE reader's verdict on one DLL, phrased like CudnnLibrary::problems, for discovery on
// Windows (core/discovery.cc's inspect_file reads ELF files; this is its DLL counterpart).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/filesystem.h"
#include "binfmt/pe.h"

namespace cudnnup {

struct DllInspection {
  std::vector<std::string> problems;  // "empty file (0 bytes)...", "built for x86, not x64...", "truncated: ..."
  std::optional<PeVersion> file_version;  // VERSIONINFO, when the DLL has one
  std::vector<std::string> imports;       // DLL names of the import table
  std::vector<std::string> delay_imports; // DLL names of the delay-load table (loaded on first use)
  std::string description;                // VERSIONINFO FileDescription
};

DllInspection inspect_dll(const FileSystem& fs, const std::string& path, uint16_t expected_machine = kPeMachineX64);

}  // namespace cudnnup
