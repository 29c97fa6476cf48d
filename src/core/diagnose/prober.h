// The doctor's window onto libraries it must load to ask (cuDNN's version functions, the
// driver). The app implements it with child processes (app/child_prober.h); tests may use a fake.
#pragma once

#include <string>
#include <vector>

#include "base/model.h"

namespace cudnnup {

class Prober {
 public:
  virtual ~Prober() = default;
  // Loads the cuDNN shim at `library_path` and asks cudnnGetVersion & co.
  virtual LibraryProbe probe_cudnn(const std::string& library_path) = 0;
  // Several at once; implementations may run them in parallel. Results in input order.
  virtual std::vector<LibraryProbe> probe_cudnn_all(const std::vector<std::string>& library_paths) {
    std::vector<LibraryProbe> out;
    for (const auto& p : library_paths) out.push_back(probe_cudnn(p));
    return out;
  }
  // Asks NVML and the CUDA driver API (either path may be empty) for the driver and GPUs.
  virtual DriverInfo probe_driver(const std::string& libcuda_path, const std::string& nvml_path) = 0;
};

}  // namespace cudnnup
