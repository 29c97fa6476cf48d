#include "diagnose/cached_prober.h"

#include <optional>

namespace cudnnup {

// Requests the cache answers are answered at once; the others start on the real prober now (in
// one batch, so it may run them in parallel) and are remembered when read.
std::function<std::vector<LibraryProbe>()> CachedProber::start_cudnn_probes(const std::vector<ProbeRequest>& requests) {
  std::vector<std::optional<LibraryProbe>> answers(requests.size());
  std::vector<ProbeRequest> missing;
  for (size_t i = 0; i < requests.size(); ++i) {
    std::optional<CachedProbe> cached = fresh_ ? std::nullopt : cache_.find(fs_, requests[i]);
    if (!cached) {
      missing.push_back(requests[i]);
      continue;
    }
    answers[i] = std::move(cached->answer);
    answers[i]->cached_from = cached->probed_at;
  }
  auto pending = inner_.start_cudnn_probes(missing);
  return [this, requests, answers = std::move(answers), missing, pending = std::move(pending)]() mutable {
    std::vector<LibraryProbe> probed = pending();
    std::vector<LibraryProbe> out;
    size_t next = 0;
    for (size_t i = 0; i < requests.size(); ++i) {
      if (answers[i]) {
        out.push_back(std::move(*answers[i]));
        continue;
      }
      LibraryProbe& p = probed.at(next++);
      cache_.remember(fs_, requests[i], p, windows_, probed_at_, started_ns_);
      out.push_back(std::move(p));
    }
    return out;
  };
}

}  // namespace cudnnup
