// The progress line (app/render/progress.h) on an injected clock: what it says, and that it is
// redrawn at least twice a second whether or not the work reports. No test waits for real time.
#include "app/render/progress.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

namespace cudnnup {
namespace {

constexpr uint64_t kMiB = 1 << 20;

TEST(ProgressLine, SaysPhaseBytesShareRateAndTimeLeft) {
  ProgressState s{"unpacking", 500 * kMiB, 200 * kMiB, 0, true, 10.0};
  // 200 MiB in 2 s: 100 MiB/s, 300 MiB to go: 3 s.
  EXPECT_EQ(progress_line(s, 12.0), "unpacking  200.0 MiB of 500.0 MiB  40%  100.0 MiB/s  ETA 3s");
  s.done = 500 * kMiB;
  EXPECT_EQ(progress_line(s, 15.0), "unpacking  500.0 MiB of 500.0 MiB  100%  100.0 MiB/s  ETA 0s");
}

TEST(ProgressLine, ARateOnlyOnceThereIsOneAndTheCountSinceThePhaseBegan) {
  ProgressState fresh{"downloading x.tar.xz", 900 * kMiB, 0, 0, true, 5.0};
  EXPECT_EQ(progress_line(fresh, 5.05), "downloading x.tar.xz  0 B of 900.0 MiB  0%");
  // A resumed download: 600 MiB were there before; 150 MiB came in 3 s.
  ProgressState resumed{"downloading x.tar.xz", 900 * kMiB, 750 * kMiB, 600 * kMiB, true, 0.0};
  EXPECT_EQ(progress_line(resumed, 3.0), "downloading x.tar.xz  750.0 MiB of 900.0 MiB  83%  50.0 MiB/s  ETA 3s");
  ProgressState unknown_total{"downloading", 0, 3 * kMiB, 0, true, 0.0};
  EXPECT_EQ(progress_line(unknown_total, 1.0), "downloading  3.0 MiB  3.0 MiB/s");
  ProgressState waiting{"writing to disk", 0, 0, 0, false, 0.0};
  EXPECT_EQ(progress_line(waiting, 125.0), "writing to disk  2m05s");
}

struct FakeTerminal {
  double now = 0;
  std::vector<std::string> lines;
  ProgressDisplay display{[this] { return now; }, [this](const std::string& l) { lines.push_back(l); }};
};

TEST(ProgressDisplay, DrawsTheCountAsTheWorkerLeavesItAndClearsAtTheEnd) {
  FakeTerminal t;
  t.display.tick();
  EXPECT_TRUE(t.lines.empty()) << "nothing before the first phase";
  std::atomic<uint64_t> done{0};
  t.display.begin_phase("unpacking", 100 * kMiB, [&] { return done.load(); });
  t.now = 1;
  done = 50 * kMiB;
  t.display.tick();
  ASSERT_EQ(t.lines.size(), 1u);
  EXPECT_EQ(t.lines.back(), "unpacking  50.0 MiB of 100.0 MiB  50%  50.0 MiB/s  ETA 1s");
  t.display.end_phase();
  done = 99 * kMiB;  // the worker's counter is not read after end_phase
  t.display.tick();
  EXPECT_EQ(t.lines.back(), "unpacking  50.0 MiB of 100.0 MiB  50%  50.0 MiB/s  ETA 1s");
  t.display.begin_phase("writing to disk", 0, {});
  t.now = 4;
  t.display.tick();
  EXPECT_EQ(t.lines.back(), "writing to disk  3s");
  t.display.finish();
  EXPECT_EQ(t.lines.back(), "") << "cleared";
  t.display.tick();
  EXPECT_EQ(t.lines.back(), "");
}

// The ticker waits kInterval between draws: at least two draws in every second of (fake) time,
// even while the work reports nothing (a syncfs that takes seconds).
TEST(ProgressTicker, RedrawsAtLeastTwiceASecond) {
  FakeTerminal t;
  t.display.begin_phase("writing to disk", 0, {});
  std::vector<double> drawn_at;
  ProgressTicker::run(
      [&](double seconds) {
        t.now += seconds;
        return t.now < 10.0;
      },
      [&] {
        t.display.tick();
        drawn_at.push_back(t.now);
      });
  ASSERT_GE(drawn_at.size(), 20u);
  double last = 0;
  for (double at : drawn_at) {
    EXPECT_LE(at - last, 0.5);
    last = at;
  }
  EXPECT_EQ(t.lines.size(), drawn_at.size());
}

}  // namespace
}  // namespace cudnnup
