// start_process / finish_process (platform/process_posix.cc): doctor starts its probe children,
// models the loaders, and reads the children afterwards. A child that finished in time but was
// read after its deadline is not a timeout; one still running then is stopped; one never read is
// killed and reaped; a child that cannot be started is finish_process's error.
#include <gtest/gtest.h>
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "platform/process.h"

namespace cudnnup {
namespace {

using namespace std::chrono_literals;

TEST(StartedProcess, FinishedInTimeButReadLateIsNotATimeout) {
  ProcessOptions o;
  o.timeout_ms = 200;
  StartedProcess p = start_process({"/bin/sh", "-c", "echo out; echo err >&2"}, o);
  std::this_thread::sleep_for(400ms);  // the caller's own work outlasts the child's deadline
  auto r = finish_process(std::move(p));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->timed_out);
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
}

TEST(StartedProcess, StillRunningAtTheDeadlineIsStopped) {
  ProcessOptions o;
  o.timeout_ms = 200;
  StartedProcess p = start_process({"/bin/sh", "-c", "echo started; exec sleep 30"}, o);
  std::this_thread::sleep_for(300ms);
  auto begin = std::chrono::steady_clock::now();
  auto r = finish_process(std::move(p));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->timed_out);
  EXPECT_EQ(r->out, "started\n");
  EXPECT_LT(std::chrono::steady_clock::now() - begin, 10s);  // not the child's 30 s
}

TEST(StartedProcess, StillWritingPastTheDeadlineIsStopped) {
  ProcessOptions o;
  o.timeout_ms = 200;
  o.max_output_bytes = 1 << 16;
  StartedProcess p = start_process({"/bin/sh", "-c", "while :; do echo spam; done"}, o);
  std::this_thread::sleep_for(300ms);
  auto r = finish_process(std::move(p));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->timed_out);
}

TEST(StartedProcess, NeverReadIsKilledAndReaped) {
  {
    StartedProcess p = start_process({"/bin/sh", "-c", "exec sleep 30"}, {});
    std::this_thread::sleep_for(100ms);
    EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), 0);  // 0: a child of ours exists and still runs
  }
  // Destroyed unfinished: no child of ours is left, running or as a zombie.
  errno = 0;
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(StartedProcess, AProgramThatCannotStartIsFinishsError) {
  StartedProcess p = start_process({"/no/such/program"}, {});
  auto r = finish_process(std::move(p));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("/no/such/program"), std::string::npos);
}

TEST(StartedProcess, SeveralAtOnceEachKeepsItsOwnOutput) {
  std::vector<StartedProcess> running;
  for (int i = 0; i < 8; ++i) running.push_back(start_process({"/bin/sh", "-c", "echo " + std::to_string(i)}, {}));
  for (int i = 0; i < 8; ++i) {
    auto r = finish_process(std::move(running[i]));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->out, std::to_string(i) + "\n");
  }
}

}  // namespace
}  // namespace cudnnup
