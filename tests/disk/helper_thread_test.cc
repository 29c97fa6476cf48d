// platform/helper_thread.h with real threads: posted work runs in order on one long-lived thread
// that is not the caller's, and on Linux that thread is moved off the caller's CPU.
#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <vector>

#include "platform/helper_thread.h"

#ifdef __linux__
#include <pthread.h>
#include <sched.h>
#endif

namespace cudnnup {
namespace {

TEST(HelperThread, RunsPostedWorkInOrderOnOneThreadBesideTheCaller) {
  std::mutex mu;
  std::vector<int> order;
  std::vector<std::thread::id> ran_on;
  std::promise<void> last;
  for (int i = 0; i < 20; ++i) {
    run_beside([&, i] {
      std::lock_guard lock(mu);
      order.push_back(i);
      ran_on.push_back(std::this_thread::get_id());
      if (i == 19) last.set_value();
    });
  }
  last.get_future().wait();
  std::lock_guard lock(mu);
  ASSERT_EQ(order.size(), 20u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(order[i], i) << "in the order posted";
  for (const auto& id : ran_on) {
    EXPECT_EQ(id, ran_on.front()) << "one helper thread, reused";
    EXPECT_NE(id, std::this_thread::get_id()) << "never the caller's thread";
  }
  // A later post reaches the same thread: it lives on between posts.
  std::promise<std::thread::id> again;
  run_beside([&again] { again.set_value(std::this_thread::get_id()); });
  EXPECT_EQ(again.get_future().get(), ran_on.front());
}

#ifdef __linux__
TEST(HelperThread, ANewThreadIsKeptOffTheCallersCpu) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  std::promise<void> go;
  std::shared_future<void> started = go.get_future().share();
  std::thread t([started] { started.wait(); });
  // Pin the caller for the check, so that "the caller's CPU" cannot change under it.
  cpu_set_t one;
  CPU_ZERO(&one);
  const int here = sched_getcpu();
  CPU_SET(here, &one);
  ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof one, &one), 0);
  keep_off_this_cpu(t);
  cpu_set_t got;
  CPU_ZERO(&got);
  ASSERT_EQ(pthread_getaffinity_np(t.native_handle(), sizeof got, &got), 0);
  go.set_value();
  t.join();
  ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof allowed, &allowed), 0);
  if (CPU_COUNT(&allowed) > 1) {
    EXPECT_FALSE(CPU_ISSET(here, &got)) << "the caller's CPU " << here << " is taken out";
    EXPECT_EQ(CPU_COUNT(&got), CPU_COUNT(&allowed) - 1) << "every other allowed CPU stays";
  } else {
    EXPECT_EQ(CPU_COUNT(&got), 1) << "with one CPU allowed the thread keeps it";
  }
}
#endif

}  // namespace
}  // namespace cudnnup
