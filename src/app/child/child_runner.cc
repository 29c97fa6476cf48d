#include "app/child/child_runner.h"

#include "base/json_text.h"
#include "platform/process.h"
#include "platform/real_filesystem.h"

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

std::string child_program(const FileSystem& fs, const std::string& self) {
  const size_t slash = self.find_last_of("/\\");
  if (slash == std::string::npos) return self;
  const std::string lean = self.substr(0, slash + 1) + kLeanChildName;
  return fs.is_file(lean) ? lean : self;
}

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
  // dump_json: a non-UTF-8 path travels escaped, and the child reads back its bytes.
  const std::string program = child_program(*make_real_filesystem(), self_executable_path());
  auto result = run_process({program, kChildEntryPoint, dump_json(request)}, po);
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
