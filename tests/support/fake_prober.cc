#include "support/fake_prober.h"

namespace cudnnup::testing {

void FakeProber::set_cudnn(const std::string& library_path, LibraryProbe probe) {
  probe.attempted = true;
  cudnn_[library_path] = std::move(probe);
}

void FakeProber::set_cudnn_loaded(const std::string& library_path, long long version_number, long long cudart_number) {
  LibraryProbe p;
  p.loaded = true;
  p.version_number = version_number;
  p.version = decode_cudnn_version_number(version_number);
  p.cudart_version = decode_cuda_version_number(cudart_number);
  set_cudnn(library_path, p);
}

LibraryProbe FakeProber::probe_cudnn(const ProbeRequest& request) {
  const std::string& library_path = request.library_path;
  cudnn_requests.push_back(request);
  auto it = cudnn_.find(library_path);
  if (it != cudnn_.end()) return it->second;
  LibraryProbe p;
  p.attempted = true;
  p.failure = library_path + ": cannot open shared object file: No such file or directory";
  return p;
}

std::function<std::vector<LibraryProbe>()> FakeProber::start_cudnn_probes(const std::vector<ProbeRequest>& requests) {
  cudnn_starts.push_back(requests);
  return Prober::start_cudnn_probes(requests);
}

DriverInfo FakeProber::probe_driver(const std::string& libcuda_path, const std::string& nvml_path) {
  driver_requests.push_back(libcuda_path + "|" + nvml_path);
  return driver_;
}

}  // namespace cudnnup::testing
