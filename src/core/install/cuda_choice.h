// Which CUDA build of cuDNN `cudnnup install VERSION` fetches when --cuda is not given: the CUDA
// major of the toolkit this machine's environment points to first, else the highest CUDA major
// the NVIDIA driver runs. Always said out loud (stderr, even with -q; `request.cuda_note` in
// JSON), so a wrong guess is seen and corrected.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/model.h"
#include "base/version.h"
#include "facts/rules.h"

namespace cudnnup {

struct CudaChoice {
  int major = 0;
  std::string why;  // "the CUDA 13.0 toolkit at /usr/local/cuda-13.0 (found through CUDA_HOME)"
};

// `toolkits` in find_toolkits' order (CUDA_HOME, CUDA_PATH, nvcc on PATH, /usr/local/cuda, ...):
// the first of known version decides. Without one, `driver_version` (the kernel module's, as it
// prints it: "580.65.06"; "" when unknown) picks the highest CUDA major whose minor-version-compatibility minimum it meets
// (rules: driver_minimums_minor_compat). nullopt when neither tells.
std::optional<CudaChoice> default_cuda_major(const std::vector<Toolkit>& toolkits, const std::string& driver_version,
                                             bool windows, const Rules& rules);

}  // namespace cudnnup
