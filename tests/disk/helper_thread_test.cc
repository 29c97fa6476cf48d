// platform/helper_thread.h with real threads: posted work runs in order on one long-lived thread
// that is not the caller's; on Linux a new thread is moved off the caller's CPU, and the helper
// may then run anywhere again.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <mutex>
#include <vector>

#include "platform/helper_thread.h"

#ifdef __linux__
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#endif

namespace cudnnup {
namespace {

// A number no other thread of this process ever had (thread ids are reused after a thread ends).
int thread_serial() {
  static std::atomic<int> next{0};
  thread_local int mine = ++next;
  return mine;
}

TEST(HelperThread, RunsPostedWorkInOrderOnOneThreadBesideTheCaller) {
  std::mutex mu;
  std::vector<int> order, ran_on;
  std::promise<void> last;
  for (int i = 0; i < 20; ++i) {
    run_beside([&, i] {
      std::lock_guard lock(mu);
      order.push_back(i);
      ran_on.push_back(thread_serial());
      if (i == 19) last.set_value();
    });
  }
  last.get_future().wait();
  std::lock_guard lock(mu);
  ASSERT_EQ(order.size(), 20u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(order[i], i) << "in the order posted";
  for (int serial : ran_on) {
    EXPECT_EQ(serial, ran_on.front()) << "one helper thread, reused";
    EXPECT_NE(serial, thread_serial()) << "never the caller's thread";
  }
  // A later post reaches the same thread: it lives on between posts.
  std::promise<int> again;
  run_beside([&again] { again.set_value(thread_serial()); });
  EXPECT_EQ(again.get_future().get(), ran_on.front());
}

#ifdef __linux__
TEST(HelperThread, ANewThreadIsKeptOffTheCallersCpu) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  std::promise<void> go;
  std::shared_future<void> started = go.get_future().share();
  std::thread t([started] { started.wait(); });  // inherits the caller's set
  // Pin the caller for the check, so that "the caller's CPU" cannot change under it. Nothing may
  // return early while `t` runs (a joinable thread's destructor ends the process).
  const int here = sched_getcpu();
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(here, &one);
  const int pinned = pthread_setaffinity_np(pthread_self(), sizeof one, &one);
  keep_off_this_cpu(t);
  cpu_set_t got;
  CPU_ZERO(&got);
  const int read = pthread_getaffinity_np(t.native_handle(), sizeof got, &got);
  go.set_value();
  t.join();
  ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof allowed, &allowed), 0);
  ASSERT_EQ(pinned, 0);
  ASSERT_EQ(read, 0);
  if (CPU_COUNT(&allowed) > 1) {
    EXPECT_FALSE(CPU_ISSET(here, &got)) << "the caller's CPU " << here << " is taken out";
    EXPECT_EQ(CPU_COUNT(&got), CPU_COUNT(&allowed) - 1) << "every other allowed CPU stays";
  } else {
    EXPECT_EQ(CPU_COUNT(&got), 1) << "with one CPU allowed the thread keeps it";
  }
}

// Once it runs, the helper may use every CPU the process may: it must not wait for one busy CPU
// while another is idle.
TEST(HelperThread, TheHelperRunsWhereverTheProcessMay) {
  cpu_set_t process;
  CPU_ZERO(&process);
  ASSERT_EQ(sched_getaffinity(getpid(), sizeof process, &process), 0);
  std::promise<cpu_set_t> seen;
  run_beside([&seen] {
    cpu_set_t mine;
    CPU_ZERO(&mine);
    sched_getaffinity(0, sizeof mine, &mine);
    seen.set_value(mine);
  });
  cpu_set_t helper = seen.get_future().get();
  EXPECT_TRUE(CPU_EQUAL(&helper, &process)) << CPU_COUNT(&helper) << " CPUs against the process's " << CPU_COUNT(&process);
}
#endif

}  // namespace
}  // namespace cudnnup
