#include "app/render/progress.h"

#include <chrono>
#include <cstdio>

#include "app/render/archive_render.h"  // human_bytes

namespace cudnnup {
namespace {

std::string duration_text(double seconds) {
  long s = seconds < 0 ? 0 : long(seconds + 0.5);
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%lds", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  return buf;
}

}  // namespace

std::string progress_line(const ProgressState& s, double now) {
  double elapsed = now - s.started;
  std::string line = s.phase;
  if (!s.counted) return line + "  " + duration_text(elapsed);
  uint64_t done = s.total && s.done > s.total ? s.total : s.done;
  line += "  " + human_bytes(done);
  if (s.total) {
    line += " of " + human_bytes(s.total);
    char pct[8];
    std::snprintf(pct, sizeof pct, "  %d%%", int(100.0 * double(done) / double(s.total)));
    line += pct;
  }
  // The rate over the whole phase: steadier than an instant one, and it needs no history.
  if (elapsed >= 0.2 && done > s.base) {
    double rate = double(done - s.base) / elapsed;
    line += "  " + human_bytes(uint64_t(rate)) + "/s";
    if (s.total) line += "  ETA " + duration_text(double(s.total - done) / rate);
  }
  return line;
}

void ProgressDisplay::begin_phase(const std::string& name, uint64_t total, std::function<uint64_t()> done) {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t now = done ? done() : 0;
  state_ = ProgressState{name, total, now, now, bool(done), clock_()};
  done_ = std::move(done);
  active_ = true;
}

void ProgressDisplay::end_phase() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (done_) state_.done = done_();
  done_ = nullptr;  // the worker's counter may be gone after this
}

void ProgressDisplay::tick() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!active_ || finished_) return;
  if (done_) state_.done = done_();
  sink_(progress_line(state_, clock_()));
}

void ProgressDisplay::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  finished_ = true;
  done_ = nullptr;
  if (active_) sink_("");
}

namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// "\r" + the line, padded over what the previous one left; "" clears.
void draw_on_stderr(const std::string& line) {
  static size_t shown = 0;
  std::string out = "\r" + line;
  if (line.size() < shown) out += std::string(shown - line.size(), ' ') + "\r" + line;
  if (line.empty()) out += "\r";
  shown = line.size();
  std::fputs(out.c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace

TerminalProgress::TerminalProgress() : display_(steady_seconds, draw_on_stderr) {
  ticker_ = std::thread([this] {
    ProgressTicker::run(
        [this](double seconds) {
          std::unique_lock<std::mutex> lock(mutex_);
          return !stop_cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return stop_; });
        },
        [this] { display_.tick(); });
  });
}

TerminalProgress::~TerminalProgress() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  display_.finish();
}

}  // namespace cudnnup
