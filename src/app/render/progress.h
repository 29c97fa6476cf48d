// Progress of long work on a terminal: one line on stderr ("unpacking  212.0 MiB of 510.0 MiB
// 41%  180.3 MiB/s  ETA 2s"), redrawn by a ticker several times a second whether or not the
// work reports anything, and cleared at the end. Nothing at all when stderr is not a terminal or
// with -q / --json (app/commands/install_services.h decides).
//
// Split for tests: progress_line() is a pure function of the state and the time;
// ProgressDisplay keeps the state and draws through an injected clock and sink; ProgressTicker
// calls it at a fixed interval through an injected wait. No test depends on real time.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/progress.h"

namespace cudnnup {

struct ProgressState {
  std::string phase;
  uint64_t total = 0;   // 0: unknown
  uint64_t done = 0;
  uint64_t base = 0;     // the count when the phase began (a resumed download starts past 0)
  bool counted = false;  // the phase has a byte count
  double started = 0;    // clock time the phase began
};

// One line for people; `now` on the same clock as `started`.
std::string progress_line(const ProgressState& s, double now);

class ProgressDisplay : public Progress {
 public:
  using Clock = std::function<double()>;                     // seconds, monotonic
  using Sink = std::function<void(const std::string& line)>;  // replaces the line shown ("" clears it)
  ProgressDisplay(Clock clock, Sink sink) : clock_(std::move(clock)), sink_(std::move(sink)) {}

  void begin_phase(const std::string& name, uint64_t total, std::function<uint64_t()> done) override;
  void end_phase() override;
  void tick();    // draws the current state
  void finish();  // clears the line; later ticks draw nothing

 private:
  std::mutex mutex_;
  Clock clock_;
  Sink sink_;
  ProgressState state_;
  std::function<uint64_t()> done_;
  bool active_ = false;
  bool finished_ = false;
};

// Calls `tick` every kInterval until `wait` says stop (returns false). The interval keeps the
// line at least twice a second fresh.
class ProgressTicker {
 public:
  static constexpr double kInterval = 0.2;  // seconds
  using Wait = std::function<bool(double seconds)>;
  static void run(const Wait& wait, const std::function<void()>& tick) {
    while (wait(kInterval)) tick();
  }
};

// The real thing: stderr, the steady clock, a ticker thread.
class TerminalProgress {
 public:
  TerminalProgress();
  ~TerminalProgress();  // stops the ticker and clears the line
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;
  Progress* get() { return &display_; }

 private:
  ProgressDisplay display_;
  std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::thread ticker_;
};

}  // namespace cudnnup
