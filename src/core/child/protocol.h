// The one protocol between cudnnup and the child processes that load NVIDIA libraries (probe,
// verify, bench). The parent starts `cudnnup __child REQUEST`, REQUEST being one JSON object:
//
//   {"protocol": "cudnnup.child/1", "task": "verify", "events": "3", ...task fields...}
//
// The child reports through a channel of its own ("events": a file descriptor on POSIX, a pipe
// handle on Windows; "-" means stdout, for people and scripts), one JSON object per line:
//
//   {"event": "start", "stage": ID}               a stage begins
//   {"event": "note", "text": "loading /x/y.so"}  what it is about to do (a crash is pinned on it)
//   {"event": "end", "stage": ID, "result": {}}   the stage's result
//   {"event": "modules", "when": W, "files": []}  every file mapped into the process at that point
//   {"event": "result", "result": {}}             the task's answer
//   {"event": "done"}                             the last line of every complete run
//
// Whatever libraries print goes to stdout/stderr, which the parent keeps apart (only their tail,
// for the report), so it can neither flood nor forge the events. A run counts only when the
// process exited normally with code 0, the channel is intact, `done` came last and every stage
// that started also ended; anything else is a problem that names the last stage, what the child
// was doing and what it printed. docs/design.md, "Child processes".
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnup {

inline constexpr const char* kChildProtocol = "cudnnup.child/1";
inline constexpr const char* kChildEntryPoint = "__child";

// The events of one run, in order, read back from the channel's bytes.
struct ChildTranscript {
  std::vector<nlohmann::json> events;           // every well-formed event object
  std::vector<std::string> started;             // stage ids in the order they started
  std::vector<std::string> ended;               // stage ids in the order they ended
  std::vector<std::string> open_stages;         // started and never ended
  std::string last_note;                        // the last "note" text
  bool done = false;                            // "done" arrived, and nothing after it
  std::vector<std::string> damage;              // why the stream cannot be trusted (bad lines, ...)

  // The result object of stage `id`'s end event, or null when it never ended.
  const nlohmann::json* stage_result(const std::string& id) const;
  // The task's answer: the last "result" event's object, or null.
  const nlohmann::json* result() const;
  // Every "modules" event: {when, files}.
  std::vector<std::pair<std::string, std::vector<std::string>>> module_snapshots() const;
};

// `truncated`: the channel carried more than the parent keeps.
ChildTranscript read_child_transcript(std::string_view channel_bytes, bool truncated = false);

// How the process itself ended, as the parent saw it.
struct ChildProcessEnd {
  bool started = true;           // false: the process could not be started at all
  std::string start_error;       // why not
  bool exited_normally = false;  // not killed by a signal/exception, not stopped at the deadline
  bool timed_out = false;
  int exit_code = -1;
  std::string how;               // "crashed (killed by signal 11, ...)", "exited with code 0"
  std::string printed;           // the tail of what it wrote on stdout/stderr
};

// Why a run cannot be trusted. `stage` is where it went wrong: the open stage, else the last stage
// that started, else empty (before any stage).
struct ChildProblem {
  std::string stage;
  std::string summary;                 // one line for a person
  std::vector<std::string> evidence;   // how it ended, what it was doing, what it printed
  bool crashed = false;                // killed, hung or exited non-zero (not just incomplete)
};

// Nothing when the run is complete: exit 0, an intact channel, `done` last, every started stage
// ended and every stage in `required_stages` reported. `what` names the child in the summary
// ("the verify process").
std::optional<ChildProblem> child_run_problem(const ChildTranscript& transcript, const ChildProcessEnd& end,
                                              const std::vector<std::string>& required_stages,
                                              const std::string& what);

// The last `max_bytes` of `text` (cut at a line start where one is near), for reports.
std::string output_tail(const std::string& text, size_t max_bytes);

}  // namespace cudnnup
