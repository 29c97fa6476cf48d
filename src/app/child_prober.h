// Prober that loads libraries in child processes (`cudnnup __probe ...`): a library that crashes
// or hangs while loading becomes a finding, never a crash of cudnnup.
#pragma once

#include "core/prober.h"

namespace cudnnup {

class ChildProber final : public Prober {
 public:
  explicit ChildProber(int timeout_ms = 15000) : timeout_ms_(timeout_ms) {}
  LibraryProbe probe_cudnn(const std::string& library_path) override;
  DriverInfo probe_driver(const std::string& libcuda_path, const std::string& nvml_path) override;

 private:
  int timeout_ms_;
};

}  // namespace cudnnup
