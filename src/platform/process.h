// Child processes. Anything that loads a user's GPU library runs in a child (a crashing or
// hanging library must become a finding, not a crash of cudnnup), so this is used a lot.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace cudnnup {

struct ProcessOptions {
  int timeout_ms = 10000;
  size_t max_output_bytes = 4 << 20;  // stdout beyond this is dropped
  // When set, the child gets exactly these variables; otherwise it inherits ours.
  std::optional<std::map<std::string, std::string>> env;
  bool capture_stderr = true;  // false: the child's stderr goes to ours
  std::string cwd;             // the child's working directory; empty: ours
  // When set, the child gets a channel of its own besides stdout/stderr (core/child/protocol.h):
  // every occurrence of this text in argv is replaced by the channel's id, which the child hands
  // to EventChannel::open (platform/event_channel.h). POSIX: file descriptor 3; Windows: an
  // inherited pipe handle. What arrives on it is ProcessResult::events.
  std::string event_channel_placeholder;
  size_t max_event_bytes = 64 << 20;  // beyond this the channel is drained and dropped
  // Keep the last max_output_bytes of stdout/stderr instead of the first (a library's chatter can
  // be long; what it printed last, before a crash, is what a report needs).
  bool keep_output_tail = false;
};

struct ProcessResult {
  int exit_code = -1;       // valid when exited normally
  int signal = 0;           // POSIX: the signal that killed it; Windows: 0
  bool timed_out = false;   // we killed it at the deadline
  std::string out;          // stdout
  std::string err;          // stderr, when captured
  std::string events;       // the event channel's bytes, when one was asked for
  bool events_truncated = false;  // the channel carried more than max_event_bytes
  size_t out_dropped = 0, err_dropped = 0;  // bytes of stdout/stderr beyond max_output_bytes
  bool exited_normally() const { return signal == 0 && !timed_out; }
  std::string describe_failure() const;  // "killed by signal 11 (SIGSEGV)", "timed out after N ms"
};

// Runs argv[0] (an absolute path, or a name looked up in PATH) and waits for it.
// Fails only when the child cannot be started at all.
Result<ProcessResult> run_process(const std::vector<std::string>& argv, const ProcessOptions& options);

// A child that start_process started and finish_process has not yet waited for. Meanwhile its
// output waits in the pipes (a child that fills one waits too), so the caller can work while the
// child runs: doctor models the loaders on its own thread while the probes load cuDNN, without a
// thread whose start the scheduler may delay. Destroyed unfinished, it kills and reaps the child.
class StartedProcess {
 public:
  struct State;
  explicit StartedProcess(std::unique_ptr<State> state);
  StartedProcess(StartedProcess&&) noexcept;
  StartedProcess& operator=(StartedProcess&&) noexcept;
  ~StartedProcess();

 private:
  friend Result<ProcessResult> finish_process(StartedProcess&& process);
  std::unique_ptr<State> state_;
};

// run_process in two halves; the timeout counts from the start. A child that could not be started
// is finish_process's error, so the halves fail exactly where run_process does.
StartedProcess start_process(const std::vector<std::string>& argv, const ProcessOptions& options);
Result<ProcessResult> finish_process(StartedProcess&& process);

// Replaces this process with argv (exec), or on Windows runs it and exits with its code.
// Returns only on failure: kNotFound when there is no such program, another code when it
// exists but cannot be run (not executable, a directory, not a program for this OS).
Error exec_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env);

// The absolute path of the running cudnnup binary, used to start probe children.
std::string self_executable_path();

}  // namespace cudnnup
