// A Prober that answers a copy's probe from the probe cache (diagnose/probe_cache.h) when none of
// the files the answer depended on changed, and asks the real prober (child processes) for the
// rest, remembering their clean answers. The driver is always probed: its answer is about the
// running kernel module and the GPUs' state, not about files.
#pragma once

#include <cstdint>
#include <string>

#include "diagnose/probe_cache.h"
#include "diagnose/prober.h"

namespace cudnnup {

class CachedProber final : public Prober {
 public:
  // `probed_at`: the time stamped on answers probed in this run; `started_ns`: the same time in
  // nanoseconds since 1970 (the clock files' change times use). `fresh`: reuse nothing (doctor
  // --fresh, --deep), still remember the new answers.
  CachedProber(Prober& inner, ProbeCache& cache, const FileSystem& fs, bool windows, std::string probed_at,
               int64_t started_ns, bool fresh)
      : inner_(inner), cache_(cache), fs_(fs), windows_(windows), probed_at_(std::move(probed_at)),
        started_ns_(started_ns), fresh_(fresh) {}

  LibraryProbe probe_cudnn(const ProbeRequest& request) override { return start_cudnn_probes({request})().at(0); }
  std::vector<LibraryProbe> probe_cudnn_all(const std::vector<ProbeRequest>& requests) override {
    return start_cudnn_probes(requests)();
  }
  std::function<std::vector<LibraryProbe>()> start_cudnn_probes(const std::vector<ProbeRequest>& requests) override;
  DriverInfo probe_driver(const std::string& libcuda_path, const std::string& nvml_path) override {
    return inner_.probe_driver(libcuda_path, nvml_path);
  }
  std::function<DriverInfo()> start_driver_probe(const std::string& libcuda_path, const std::string& nvml_path) override {
    return inner_.start_driver_probe(libcuda_path, nvml_path);
  }

 private:
  Prober& inner_;
  ProbeCache& cache_;
  const FileSystem& fs_;
  bool windows_;
  std::string probed_at_;
  int64_t started_ns_;
  bool fresh_;
};

}  // namespace cudnnup
