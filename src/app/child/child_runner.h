// The parent side of the child-process protocol (core/child/protocol.h): starts
// `cudnnup __child REQUEST` with its own event channel, one timeout, and turns however it ended
// into a transcript and, when the run cannot be trusted, a problem that says why.
#pragma once

#include <nlohmann/json.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "child/protocol.h"

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

// `request` holds the task's fields; "protocol", "task" and "events" are filled in here.
ChildRun run_child(const std::string& task, nlohmann::json request, const ChildRunOptions& options);

}  // namespace cudnnup
