// A Prober for tests: answers from tables filled by the test instead of loading anything, and
// records what it was asked. A library it was not told about fails to load, as a missing file would.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "diagnose/prober.h"

namespace cudnnup::testing {

class FakeProber final : public Prober {
 public:
  // What probing the shim at `library_path` answers.
  void set_cudnn(const std::string& library_path, LibraryProbe probe);
  // A probe that loaded and reports these numbers (cudnnGetVersion / cudnnGetCudartVersion encoding).
  void set_cudnn_loaded(const std::string& library_path, long long version_number, long long cudart_number);
  void set_driver(DriverInfo driver) { driver_ = std::move(driver); }

  LibraryProbe probe_cudnn(const ProbeRequest& request) override;
  // Recorded when started (doctor starts some probes early); answered when asked for.
  std::function<std::vector<LibraryProbe>()> start_cudnn_probes(const std::vector<ProbeRequest>& requests) override;
  DriverInfo probe_driver(const std::string& libcuda_path, const std::string& nvml_path) override;

  std::vector<ProbeRequest> cudnn_requests;     // in the order asked
  std::vector<std::vector<ProbeRequest>> cudnn_starts;  // each start_cudnn_probes call, in order
  std::vector<std::string> driver_requests;     // "libcuda|nvml"

 private:
  std::map<std::string, LibraryProbe> cudnn_;
  DriverInfo driver_;
};

}  // namespace cudnnup::testing
