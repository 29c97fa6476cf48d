// Progress of long work (download, unpack, hashing, syncing), reported by the code doing it and
// shown by the app (app/render/progress.h: one line on a terminal's stderr, nothing otherwise).
//
// The worker only names the phase and says where to read the count: `done` is called by the
// display from its own thread, several times a second, so it must be cheap and thread-safe (an
// atomic load). Nothing is drawn from the worker's thread, so a hot loop pays one atomic store.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace cudnnup {

class Progress {
 public:
  virtual ~Progress() = default;
  // total 0: unknown (the display shows bytes and rate, no percentage or ETA); done empty: no
  // count at all (the display shows the time spent, e.g. while waiting for the disk).
  virtual void begin_phase(const std::string& name, uint64_t total, std::function<uint64_t()> done) = 0;
  // After this, `done` is not called again.
  virtual void end_phase() = 0;
};

// A phase for the length of a scope. Progress may be nullptr (nothing shown).
class ProgressPhase {
 public:
  ProgressPhase(Progress* p, const std::string& name, uint64_t total, std::function<uint64_t()> done) : p_(p) {
    if (p_) p_->begin_phase(name, total, std::move(done));
  }
  ~ProgressPhase() {
    if (p_) p_->end_phase();
  }
  ProgressPhase(const ProgressPhase&) = delete;
  ProgressPhase& operator=(const ProgressPhase&) = delete;

 private:
  Progress* p_;
};

}  // namespace cudnnup
