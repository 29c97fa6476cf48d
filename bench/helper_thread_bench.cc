// How long a new thread waits before it first runs while the thread that started it stays busy:
// a plain std::thread against one moved off the starter's CPU (platform/helper_thread.h's
// keep_off_this_cpu). docs/benchmarks.md quotes it.
//
// Usage: build/bench/helper_thread_bench [RUNS]     (default 31; prints medians in microseconds)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "platform/helper_thread.h"

namespace {

using Clock = std::chrono::steady_clock;

// One start: the starter keeps computing for 3 ms (as doctor does after it posts its side work),
// then joins; the answer is when the new thread first ran, from just before it was created.
double start_latency_us(bool keep_off) {
  std::atomic<long long> first_ran_ns{-1};
  const auto created = Clock::now();
  std::thread t([&] { first_ran_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - created).count(); });
  if (keep_off) cudnnup::keep_off_this_cpu(t);
  for (auto until = Clock::now() + std::chrono::milliseconds(3); Clock::now() < until;) {
  }
  t.join();
  return first_ran_ns.load() / 1000.0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 31;
  std::vector<double> plain, kept_off;
  for (int i = 0; i < runs; ++i) {  // interleaved, so both see the same load
    plain.push_back(start_latency_us(false));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    kept_off.push_back(start_latency_us(true));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::printf("new thread's first run, starter busy for 3 ms (median of %d):\n", runs);
  std::printf("  std::thread:                     %8.1f us\n", median(plain));
  std::printf("  std::thread + keep_off_this_cpu: %8.1f us\n", median(kept_off));
  return 0;
}
