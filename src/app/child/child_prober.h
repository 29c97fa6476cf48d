// Prober that loads libraries in child processes (tasks probe-cudnn and probe-driver of
// `cudnnup __child`, app/child/child_runner.h): a library that crashes
// or hangs while loading becomes a finding, never a crash of cudnnup.
#pragma once

#include "diagnose/prober.h"

namespace cudnnup {

class ChildProber final : public Prober {
 public:
  explicit ChildProber(int timeout_ms = 15000) : timeout_ms_(timeout_ms) {}
  LibraryProbe probe_cudnn(const std::string& library_path) override;
  // One child per library, up to kParallel at a time: with 200 Python environments the probes
  // dominate doctor's run time, and each child mostly waits on the dynamic loader.
  std::vector<LibraryProbe> probe_cudnn_all(const std::vector<std::string>& library_paths) override;
  static constexpr size_t kParallel = 8;
  DriverInfo probe_driver(const std::string& libcuda_path, const std::string& nvml_path) override;

 private:
  int timeout_ms_;
};

}  // namespace cudnnup
