// Prober that loads libraries in child processes (tasks probe-cudnn and probe-driver of
// `cudnnup __child`, app/child/child_runner.h): a library that crashes
// or hangs while loading becomes a finding, never a crash of cudnnup.
#pragma once

#include "app/child/child_runner.h"
#include "base/environment.h"
#include "diagnose/prober.h"

namespace cudnnup {

class ChildProber final : public Prober {
 public:
  // `env`: the user's environment; a cuDNN probe child gets the copy's loader environment made
  // from it (core/child/loader_environment.h: no LD_PRELOAD/LD_AUDIT, LD_LIBRARY_PATH = the copy's
  // directory; Windows: the copy's folder first on PATH and no current directory in the search).
  explicit ChildProber(const Environment& env, int timeout_ms = 15000) : env_(env), timeout_ms_(timeout_ms) {}
  LibraryProbe probe_cudnn(const ProbeRequest& request) override;
  // One child per library, up to kParallel at a time: with 200 Python environments the probes
  // dominate doctor's run time, and each child mostly waits on the dynamic loader. The first
  // children start before this returns, from the calling thread.
  std::vector<LibraryProbe> probe_cudnn_all(const std::vector<ProbeRequest>& requests) override;
  std::function<std::vector<LibraryProbe>()> start_cudnn_probes(const std::vector<ProbeRequest>& requests) override;
  static constexpr size_t kParallel = 8;
  DriverInfo probe_driver(const std::string& libcuda_path, const std::string& nvml_path) override;
  std::function<DriverInfo()> start_driver_probe(const std::string& libcuda_path, const std::string& nvml_path) override;

 private:
  StartedChild start_probe(const ProbeRequest& request) const;
  LibraryProbe finish_probe(const ProbeRequest& request, StartedChild&& child) const;
  const Environment& env_;
  int timeout_ms_;
};

}  // namespace cudnnup
