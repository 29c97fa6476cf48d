// After staging, every library the archive brought is read back from the stage and parsed in full
// by the binary-format readers (binfmt/elf.h, binfmt/pe.h): a partial write or a full disk shows
// as a wrong size or a truncated file here, and a library name on something that is no shared
// library of this platform (a text file called libcudnn.so.9, an executable, a PE on Linux) is
// refused before anything public changes.
#pragma once

#include <string>

#include "base/filesystem.h"
#include "install/archive_scan.h"

namespace cudnnup {

// `windows`: the libraries must be PE DLLs (else ELF shared objects).
Status verify_staged_libraries(const FileSystem& fs, const std::string& stage, const ScanResult& scan, bool windows);

}  // namespace cudnnup
