#include "app/child/child_runner.h"

#include "platform/process.h"

namespace cudnnup {

namespace {

// Stands for the channel id in the request until run_process knows it.
constexpr const char* kChannelPlaceholder = "@cudnnup-event-channel@";
// What is kept of a child's stdout and stderr, each: the end of it, where a crash report is.
constexpr size_t kKeptOutput = 64 << 10;
constexpr size_t kReportedOutput = 2000;

std::string printed(const ProcessResult& r) {
  std::string out;
  if (!r.err.empty()) out += "stderr: " + output_tail(r.err, kReportedOutput);
  if (!r.out.empty()) out += std::string(out.empty() ? "" : "; ") + "stdout: " + output_tail(r.out, kReportedOutput);
  return out;
}

}  // namespace

ChildRun run_child(const std::string& task, nlohmann::json request, const ChildRunOptions& options) {
  request["protocol"] = kChildProtocol;
  request["task"] = task;
  request["events"] = kChannelPlaceholder;
  ProcessOptions po;
  po.timeout_ms = options.timeout_ms;
  po.env = options.env;
  po.event_channel_placeholder = kChannelPlaceholder;
  po.max_output_bytes = kKeptOutput;
  po.keep_output_tail = true;
  ChildRun run;
  auto result = run_process({self_executable_path(), kChildEntryPoint, request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)}, po);
  if (!result) {
    run.end.started = false;
    run.end.start_error = result.error().message;
  } else {
    run.transcript = read_child_transcript(result->events, result->events_truncated);
    run.end.exited_normally = result->exited_normally();
    run.end.timed_out = result->timed_out;
    run.end.exit_code = result->exit_code;
    run.end.how = result->describe_failure();
    run.end.printed = printed(*result);
  }
  run.problem = child_run_problem(run.transcript, run.end, options.required_stages, options.what);
  return run;
}

}  // namespace cudnnup
