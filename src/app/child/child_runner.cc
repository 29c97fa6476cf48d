#include "app/child/child_runner.h"

#include "base/json_text.h"
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
  const std::string dir = slash == 0 ? self.substr(0, 1) : self.substr(0, slash);
  const std::string lean = self.substr(0, slash + 1) + kLeanChildName;
  // Run only what is as trustworthy as cudnnup itself (docs/security.md): the file itself (not a
  // link), writable by no one else, with cudnnup's own owner, in a folder no one else may write
  // to. A cudnnup run from a shared folder (/tmp) would otherwise start whatever another user put
  // beside it; there the fallback runs instead.
  auto lean_info = fs.lstat(lean);
  auto self_info = fs.stat(self);
  auto dir_info = fs.stat(dir);
  if (!lean_info || lean_info->type != FileType::kRegular || lean_info->others_may_write) return self;
  if (!self_info || lean_info->other_owner != self_info->other_owner) return self;
  if (!dir_info || dir_info->others_may_write) return self;
  return lean;
}

StartedChild start_child(const std::string& task, nlohmann::json request, const ChildRunOptions& options) {
  request["protocol"] = kChildProtocol;
  request["task"] = task;
  request["events"] = kChannelPlaceholder;
  ProcessOptions po;
  po.timeout_ms = options.timeout_ms;
  po.env = options.env;
  po.event_channel_placeholder = kChannelPlaceholder;
  po.max_output_bytes = kKeptOutput;
  po.keep_output_tail = true;
  // dump_json: a non-UTF-8 path travels escaped, and the child reads back its bytes.
  const std::string program = child_program(*make_real_filesystem(), self_executable_path());
  return {start_process({program, kChildEntryPoint, dump_json(request)}, po), options};
}

ChildRun finish_child(StartedChild&& child) {
  ChildRun run;
  auto result = finish_process(std::move(child.process));
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
  run.problem = child_run_problem(run.transcript, run.end, child.options.required_stages, child.options.what);
  return run;
}

ChildRun run_child(const std::string& task, nlohmann::json request, const ChildRunOptions& options) {
  return finish_child(start_child(task, std::move(request), options));
}

}  // namespace cudnnup
