#include "install/cuda_choice.h"

namespace cudnnup {

std::optional<CudaChoice> default_cuda_major(const std::vector<Toolkit>& toolkits, const std::string& driver_version,
                                             bool windows, const Rules& rules) {
  for (const auto& tk : toolkits) {
    if (!tk.version.known()) continue;
    std::string via = tk.found_via.empty() ? std::string() : " (found through " + tk.found_via.front() + ")";
    return CudaChoice{tk.version.major(), "the CUDA " + tk.version.truncated(2).str() + " toolkit at " + tk.root + via};
  }
  auto driver = Version::parse(driver_version);
  if (!driver) return std::nullopt;
  const MajorDriverMinimum* best = nullptr;
  for (const auto& row : rules.major_driver_minimums) {
    const Version& minimum = windows ? row.windows_driver : row.linux_driver;
    if (!minimum.known() || *driver < minimum) continue;
    if (!best || row.cuda_major > best->cuda_major) best = &row;
  }
  if (!best) return std::nullopt;
  return CudaChoice{best->cuda_major, "the NVIDIA driver " + driver_version + ", which runs CUDA " + std::to_string(best->cuda_major) +
                                          " builds (no CUDA toolkit found)"};
}

}  // namespace cudnnup
