// The child-process protocol's rules (core/child/protocol.h): a run counts only when the child
// finished cleanly and said so; every other ending is a problem that names where it stopped.
#include "child/protocol.h"

#include <gtest/gtest.h>

namespace cudnnup {
namespace {

ChildProcessEnd clean_exit() {
  ChildProcessEnd e;
  e.exited_normally = true;
  e.exit_code = 0;
  e.how = "exited with code 0";
  return e;
}

const char* kComplete =
    "{\"event\":\"start\",\"stage\":\"library\"}\n"
    "{\"event\":\"note\",\"text\":\"loading /c/libcudnn_ops.so.9\"}\n"
    "{\"event\":\"modules\",\"when\":\"after loading\",\"files\":[\"/c/libcudnn.so.9\"]}\n"
    "{\"event\":\"end\",\"stage\":\"library\",\"result\":{\"status\":\"pass\"}}\n"
    "{\"event\":\"start\",\"stage\":\"versions\"}\n"
    "{\"event\":\"end\",\"stage\":\"versions\",\"result\":{\"status\":\"pass\"}}\n"
    "{\"event\":\"result\",\"result\":{\"device_count\":1}}\n"
    "{\"event\":\"done\"}\n";

TEST(ChildProtocol, ACompleteRunHasNoProblem) {
  ChildTranscript t = read_child_transcript(kComplete);
  EXPECT_TRUE(t.done);
  EXPECT_TRUE(t.damage.empty());
  EXPECT_EQ(t.ended, (std::vector<std::string>{"library", "versions"}));
  ASSERT_NE(t.stage_result("library"), nullptr);
  EXPECT_EQ(t.stage_result("library")->value("status", ""), "pass");
  ASSERT_NE(t.result(), nullptr);
  EXPECT_EQ(t.result()->value("device_count", 0), 1);
  ASSERT_EQ(t.module_snapshots().size(), 1u);
  EXPECT_EQ(t.module_snapshots()[0].second, std::vector<std::string>{"/c/libcudnn.so.9"});
  EXPECT_FALSE(child_run_problem(t, clean_exit(), {"library", "versions"}, "the verify process"));
}

TEST(ChildProtocol, ExitZeroBeforeDoneIsAProblemNamingTheOpenStage) {
  // A sub-library's initialiser called _exit(0) while the library stage was loading it.
  std::string cut = "{\"event\":\"start\",\"stage\":\"library\"}\n"
                    "{\"event\":\"note\",\"text\":\"loading /c/libcudnn_ops.so.9\"}\n";
  ChildProcessEnd end = clean_exit();
  end.printed = "stdout: hello from ops";
  auto p = child_run_problem(read_child_transcript(cut), end, {"library"}, "the verify process");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->stage, "library");
  EXPECT_FALSE(p->crashed);
  EXPECT_NE(p->summary.find("exited with code 0 while stage library was still running"), std::string::npos) << p->summary;
  EXPECT_NE(p->summary.find("loading /c/libcudnn_ops.so.9"), std::string::npos);
  bool printed = false;
  for (const auto& e : p->evidence) printed = printed || e.find("hello from ops") != std::string::npos;
  EXPECT_TRUE(printed);
}

TEST(ChildProtocol, EveryOtherWayOfEndingIsAProblem) {
  std::string no_done = std::string(kComplete).substr(0, std::string(kComplete).rfind("{\"event\":\"done\"}"));
  auto p = child_run_problem(read_child_transcript(no_done), clean_exit(), {}, "the child");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->stage, "versions");
  EXPECT_NE(p->summary.find("before it finished after stage versions"), std::string::npos) << p->summary;

  // A required stage never reported, though the child said it was done.
  auto missing = child_run_problem(read_child_transcript(kComplete), clean_exit(), {"library", "versions", "driver"},
                                   "the verify process");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->stage, "driver");

  // Killed by a signal: a crash, in the stage that was open.
  ChildProcessEnd killed;
  killed.exited_normally = false;
  killed.how = "crashed (killed by signal 11, Segmentation fault)";
  auto crash = child_run_problem(read_child_transcript("{\"event\":\"start\",\"stage\":\"conv.fwd.fp32.nchw\"}\n"),
                                 killed, {}, "the verify process");
  ASSERT_TRUE(crash);
  EXPECT_TRUE(crash->crashed);
  EXPECT_EQ(crash->stage, "conv.fwd.fp32.nchw");
  EXPECT_NE(crash->summary.find("signal 11"), std::string::npos);

  // A non-zero exit code is not a clean end either.
  ChildProcessEnd exit1 = clean_exit();
  exit1.exit_code = 1;
  exit1.how = "exited with code 1";
  EXPECT_TRUE(child_run_problem(read_child_transcript(kComplete), exit1, {}, "the child"));

  // Could not be started.
  ChildProcessEnd not_started;
  not_started.started = false;
  not_started.start_error = "cannot start /x: No such file";
  auto ns = child_run_problem(ChildTranscript{}, not_started, {}, "the child");
  ASSERT_TRUE(ns);
  EXPECT_NE(ns->summary.find("could not be started"), std::string::npos);
}

TEST(ChildProtocol, DamagedChannelsAreNotTrusted) {
  std::string text = kComplete;
  // A cut-off last line, garbage, an end without a start, events after done, a truncated channel.
  for (const std::string& bad : {std::string(kComplete) + "{\"event\":\"no",
                                 std::string("not json\n") + kComplete,
                                 std::string("{\"event\":\"end\",\"stage\":\"x\",\"result\":{}}\n") + kComplete,
                                 std::string(kComplete) + "{\"event\":\"start\",\"stage\":\"late\"}\n"}) {
    ChildTranscript t = read_child_transcript(bad);
    EXPECT_FALSE(t.damage.empty()) << bad;
    EXPECT_TRUE(child_run_problem(t, clean_exit(), {}, "the child")) << bad;
  }
  ChildTranscript truncated = read_child_transcript(kComplete, /*truncated=*/true);
  EXPECT_TRUE(child_run_problem(truncated, clean_exit(), {}, "the child"));
  // A stage that started twice, or ended without a result object.
  EXPECT_FALSE(read_child_transcript("{\"event\":\"start\",\"stage\":\"a\"}\n{\"event\":\"start\",\"stage\":\"a\"}\n")
                   .damage.empty());
  EXPECT_FALSE(read_child_transcript("{\"event\":\"start\",\"stage\":\"a\"}\n{\"event\":\"end\",\"stage\":\"a\"}\n")
                   .damage.empty());
}

TEST(ChildProtocol, OutputTailKeepsTheEnd) {
  EXPECT_EQ(output_tail("short", 100), "short");
  std::string long_text(1000, 'a');
  long_text += "\nthe crash message";
  std::string tail = output_tail(long_text, 40);
  EXPECT_LE(tail.size(), 43u);
  EXPECT_NE(tail.find("the crash message"), std::string::npos);
}

}  // namespace
}  // namespace cudnnup
