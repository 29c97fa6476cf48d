// The parent side of the child-process protocol (core/child/protocol.h): starts
// `cudnnup-child __child REQUEST` (or `cudnnup __child REQUEST`, see child_program) with its own
// event channel, one timeout, and turns however it ended into a transcript and, when the run
// cannot be trusted, a problem that says why.
#pragma once

#include <nlohmann/json.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/filesystem.h"
#include "child/protocol.h"
#include "platform/process.h"

namespace cudnnup {

struct ChildRunOptions {
  int timeout_ms = 15000;
  // The child's whole environment; unset: it inherits ours (core/child/loader_environment.h makes
  // the controlled one the verify and bench children get).
  std::optional<std::map<std::string, std::string>> env;
  std::vector<std::string> required_stages;  // each must report its result
  std::string what = "the child process";     // names it in problems: "the verify process"
};

struct ChildRun {
  ChildTranscript transcript;
  ChildProcessEnd end;
  std::optional<ChildProblem> problem;  // set when the run is not complete
  bool complete() const { return !problem; }
};

// The lean child executable, installed beside cudnnup (app/child/child_main.cc).
inline constexpr const char* kLeanChildName = "cudnnup-child";

// The program that runs a child for the cudnnup at `self`: the lean `cudnnup-child` in the same
// directory when that is a regular file that only cudnnup's own owner may write, in a folder
// others may not write to (it starts in a fraction of the time: doctor starts one per copy), else
// `self`, whose hidden `__child` command runs the same tasks. Both take the same arguments.
// (Windows builds link everything statically, start fast and ship no lean child.)
std::string child_program(const FileSystem& fs, const std::string& self);

// `request` holds the task's fields; "protocol", "task" and "events" are filled in here.
ChildRun run_child(const std::string& task, nlohmann::json request, const ChildRunOptions& options);

// run_child in two halves, for a caller with work to do while the child runs (doctor's probes).
struct StartedChild {
  StartedProcess process;
  ChildRunOptions options;
};
StartedChild start_child(const std::string& task, nlohmann::json request, const ChildRunOptions& options);
ChildRun finish_child(StartedChild&& child);

}  // namespace cudnnup
