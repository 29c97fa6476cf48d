// Prober that loads libraries in child processes (`cudnnup __probe ...`): a library that crashes
// or hangs while loading becomes a finding, never a crash of cudnnup.
#pragma once

#include <map>
#include <string>

#include "base/environment.h"
#include "diagnose/prober.h"

namespace cudnnup {

// The variables of a cuDNN probe child: the user's, less every LD_* variable (LD_PRELOAD,
// LD_AUDIT, ...), with LD_LIBRARY_PATH = the copy's directory so the shim's by-name loads find
// that copy's sub-libraries first. On Windows the variables stay; the child restricts its search.
std::map<std::string, std::string> isolated_probe_environment(const Environment& env, const std::string& lib_dir);

class ChildProber final : public Prober {
 public:
  // `env`: the user's environment; a cuDNN probe child gets it without any LD_* variable and with
  // LD_LIBRARY_PATH set to the copy's directory (isolated_probe_environment).
  explicit ChildProber(const Environment& env, int timeout_ms = 15000) : env_(env), timeout_ms_(timeout_ms) {}
  LibraryProbe probe_cudnn(const ProbeRequest& request) override;
  // One child per library, up to kParallel at a time: with 200 Python environments the probes
  // dominate doctor's run time, and each child mostly waits on the dynamic loader.
  std::vector<LibraryProbe> probe_cudnn_all(const std::vector<ProbeRequest>& requests) override;
  static constexpr size_t kParallel = 8;
  DriverInfo probe_driver(const std::string& libcuda_path, const std::string& nvml_path) override;

 private:
  const Environment& env_;
  int timeout_ms_;
};

}  // namespace cudnnup
