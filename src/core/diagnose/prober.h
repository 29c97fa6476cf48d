// The doctor's window onto libraries it must load to ask (cuDNN's version functions, the
// driver). The app implements it with child processes (app/child_prober.h); tests may use a fake.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/model.h"

namespace cudnnup {

// One copy to probe: its shim, and the directory its own sub-libraries are in.
struct ProbeRequest {
  std::string library_path;  // the shim (libcudnn.so.9, cudnn64_9.dll)
  std::string lib_dir;       // the copy's canonical library directory
};

class Prober {
 public:
  virtual ~Prober() = default;
  // Loads the cuDNN shim in isolation from the user's loader environment (only the copy's own
  // directory to search) and asks cudnnGetVersion & co; reports every cuDNN file it mapped.
  virtual LibraryProbe probe_cudnn(const ProbeRequest& request) = 0;
  // Several at once; implementations may run them in parallel. Results in input order.
  virtual std::vector<LibraryProbe> probe_cudnn_all(const std::vector<ProbeRequest>& requests) {
    std::vector<LibraryProbe> out;
    for (const auto& r : requests) out.push_back(probe_cudnn(r));
    return out;
  }
  // Starts the probes of `requests` now and returns what waits for their answers (call it once),
  // so the caller can work while children load libraries. Default: nothing starts early.
  virtual std::function<std::vector<LibraryProbe>()> start_cudnn_probes(const std::vector<ProbeRequest>& requests) {
    return [this, requests] { return probe_cudnn_all(requests); };
  }
  // Asks NVML and the CUDA driver API (either path may be empty) for the driver and GPUs.
  virtual DriverInfo probe_driver(const std::string& libcuda_path, const std::string& nvml_path) = 0;
  // probe_driver started now, answered by the returned function (call it once). Default: nothing
  // starts early.
  virtual std::function<DriverInfo()> start_driver_probe(const std::string& libcuda_path, const std::string& nvml_path) {
    return [this, libcuda_path, nvml_path] { return probe_driver(libcuda_path, nvml_path); };
  }
};

}  // namespace cudnnup
