// Probes started before doctor's scan is complete. A probe child (exec, the dynamic loader, cuDNN's
// own start-up) takes longer than the rest of the discovery, so the copies doctor can see early
// (the ld.so.cache's directories, LD_LIBRARY_PATH, the toolkits, the first copies the scan finds)
// start theirs at once and run while doctor works on. The scan's complete list still decides what
// is probed: an early answer is used only for exactly the request the list makes, and one the list
// does not make is stopped unread.
#pragma once

#include <functional>
#include <vector>

#include "base/filesystem.h"
#include "diagnose/prober.h"

namespace cudnnup {

class EarlyProbes {
 public:
  EarlyProbes(Prober& prober, size_t limit) : prober_(prober), limit_(limit) {}

  // Starts the probe of each copy's shim (doctor's shim_to_probe), up to the limit in all.
  void start_for(const std::vector<CudnnCopy>& copies);
  // Starts the probe of each shim a directory lists under its SONAME name (libcudnn.so.9,
  // cudnn64_9.dll), before the directory is scanned: the scan inspects every cuDNN file first,
  // and the probe child is the longest single part of doctor's run. When the scan later finds
  // that shim unusable, its request is not made and the answer is dropped unread.
  void start_in_dir(const FileSystem& fs, const std::string& dir, bool windows);
  void start(const ProbeRequest& request);

  // Whether `request` was started early and not yet taken.
  bool has(const ProbeRequest& request) const;
  // Its answer (waits for the child); only for a request has() is true of.
  LibraryProbe take(const ProbeRequest& request);

  size_t started() const { return started_.size(); }

 private:
  struct Started {
    ProbeRequest request;
    std::function<std::vector<LibraryProbe>()> answer;  // empty once taken
  };
  Prober& prober_;
  size_t limit_;
  std::vector<Started> started_;
};

// The cuDNN file doctor loads to probe a copy: its shim, under the SONAME name when it has one;
// empty when the copy has no loadable shim.
std::string shim_to_probe(const CudnnCopy& copy);

}  // namespace cudnnup
