// The NVIDIA driver's user-space libraries (the CUDA driver API and NVML) and where driver
// packages install them: the one list doctor and verify search.
#pragma once

#include <string>
#include <vector>

#include "base/environment.h"

namespace cudnnup {

struct DriverLibraryNames {
  std::string cuda;  // libcuda.so.1 / nvcuda.dll
  std::string nvml;  // libnvidia-ml.so.1 / nvml.dll
};
DriverLibraryNames driver_library_names(bool windows);

// Where to look, in order. Linux: LD_LIBRARY_PATH, then `loader_dirs` (the ld.so.cache's
// directories, when the caller read them), then where driver packages put them: containers with
// the driver mounted (/usr/local/nvidia/lib64), Debian/Ubuntu (/usr/lib/<triplet>), Jetson
// (/usr/lib/<triplet>/nvidia), RHEL/Fedora/SUSE (/usr/lib64), Arch (/usr/lib), WSL2
// (/usr/lib/wsl/lib). Windows: %SYSTEMROOT%\System32.
std::vector<std::string> driver_library_dirs(const Environment& env, const std::vector<std::string>& loader_dirs = {});

}  // namespace cudnnup
