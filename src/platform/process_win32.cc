// Child processes on Windows: CreateProcessW with pipes for stdout/stderr, a job object so a
// timeout (or our own death) takes down the child and anything it started.
#include <windows.h>

#include <algorithm>
#include <cstdio>
#include <future>
#include <thread>

#include "shell/windows_command_line.h"
#include "platform/process.h"
#include "platform/win32_handle.h"
#include "platform/win32_text.h"

namespace cudnnup {
namespace {

// "K=V\0K=V\0\0" in UTF-16, the form CREATE_UNICODE_ENVIRONMENT expects.
std::wstring environment_block(const std::map<std::string, std::string>& env) {
  std::wstring block;
  for (const auto& [k, v] : env) {
    block += win32::widen(k + "=" + v);
    block.push_back(L'\0');
  }
  block.push_back(L'\0');
  return block;
}

// A job that kills every process in it when its last handle closes (so an abandoned child dies
// with us), and on TerminateJobObject.
HANDLE make_kill_job() {
  HANDLE job = CreateJobObjectW(nullptr, nullptr);
  if (!job) return nullptr;
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
  limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
  SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof limits);
  return job;
}

HANDLE inheritable_copy(HANDLE h) {
  HANDLE copy = nullptr;
  if (!h || h == INVALID_HANDLE_VALUE) return nullptr;
  if (!DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &copy, 0, TRUE, DUPLICATE_SAME_ACCESS)) {
    return nullptr;
  }
  return copy;
}

// Reads a pipe to its end, keeping the first `limit` bytes (or the last, with keep_tail).
void drain(HANDLE pipe, std::string* sink, size_t limit, bool keep_tail, size_t* dropped, bool* truncated) {
  char buf[65536];
  DWORD n = 0;
  while (ReadFile(pipe, buf, sizeof buf, &n, nullptr) && n > 0) {
    if (keep_tail) {
      sink->append(buf, n);
      if (sink->size() > 2 * limit) {
        *dropped += sink->size() - limit;
        sink->erase(0, sink->size() - limit);
      }
      continue;
    }
    size_t take = sink->size() < limit ? std::min<size_t>(n, limit - sink->size()) : 0;
    sink->append(buf, take);
    if (take < n) {
      if (dropped) *dropped += n - take;
      if (truncated) *truncated = true;
    }
  }
  if (sink->size() > limit && keep_tail) {
    *dropped += sink->size() - limit;
    sink->erase(0, sink->size() - limit);
  }
}

// argv with the event channel's placeholder replaced by the handle's value (the child inherits
// the handle: every inheritable handle is, with bInheritHandles).
std::vector<std::string> with_channel_id(const std::vector<std::string>& argv, const std::string& placeholder,
                                         HANDLE channel) {
  std::vector<std::string> out = argv;
  if (placeholder.empty()) return out;
  const std::string id = std::to_string(reinterpret_cast<uintptr_t>(channel));
  for (auto& a : out) {
    for (size_t at = a.find(placeholder); at != std::string::npos; at = a.find(placeholder, at)) {
      a.replace(at, placeholder.size(), id);
    }
  }
  return out;
}

struct Started {
  win32::OwnedHandle process;
  win32::OwnedHandle job;
};

// Starts argv suspended, puts it in a kill-on-close job, then lets it run.
Result<Started> start(const std::vector<std::string>& argv, const std::map<std::string, std::string>* env,
                      STARTUPINFOW& si, const std::string& cwd = {}) {
  // CreateProcessW finds the program from the first word of the command line; give it a
  // Windows-style path (it also searches PATH and adds ".exe" for a bare name).
  std::vector<std::string> args = argv;
  std::replace(args[0].begin(), args[0].end(), '/', '\\');
  std::wstring command_line = win32::widen(windows_command_line(args));
  std::wstring env_block;
  if (env) env_block = environment_block(*env);
  PROCESS_INFORMATION pi{};
  DWORD flags = CREATE_UNICODE_ENVIRONMENT | CREATE_SUSPENDED;
  std::wstring directory = cwd.empty() ? std::wstring() : win32::widen(cwd);
  if (!CreateProcessW(nullptr, command_line.data(), nullptr, nullptr, TRUE, flags,
                      env ? env_block.data() : nullptr, cwd.empty() ? nullptr : directory.c_str(), &si, &pi)) {
    DWORD err = GetLastError();
    return win32::make_win32_error("cannot start", argv[0], err);
  }
  Started s;
  s.process.reset(pi.hProcess);
  s.job.reset(make_kill_job());
  // Assigning can fail where we already run inside a job that forbids nesting (Windows 7);
  // the timeout then falls back to TerminateProcess on the child alone.
  if (s.job.valid() && !AssignProcessToJobObject(s.job.get(), pi.hProcess)) s.job.reset();
  ResumeThread(pi.hThread);
  CloseHandle(pi.hThread);
  return s;
}

}  // namespace

std::string ProcessResult::describe_failure() const {
  if (timed_out) return "did not finish in time and was stopped";
  uint32_t code = static_cast<uint32_t>(exit_code);
  if (code >= 0xC0000000u) {
    // NTSTATUS codes: the process died from an exception, Windows' version of a signal.
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%08X", static_cast<unsigned>(code));
    std::string name;
    switch (code) {
      case 0xC0000005u: name = ", access violation"; break;
      case 0xC0000135u: name = ", a DLL it needs was not found"; break;
      case 0xC0000139u: name = ", an entry point in a DLL was not found"; break;
      case 0xC000007Bu: name = ", a DLL is not a valid image for this machine"; break;
      case 0xC00000FDu: name = ", stack overflow"; break;
      case 0xC0000409u: name = ", stack buffer overrun / fail-fast"; break;
      default: break;
    }
    return "crashed (exception " + std::string(hex) + name + ")";
  }
  return "exited with code " + std::to_string(exit_code);
}

Result<ProcessResult> run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  if (argv.empty()) return make_error(ErrorCode::kInternal, "run_process: empty command");
  SECURITY_ATTRIBUTES sa{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  const bool channel = !options.event_channel_placeholder.empty();
  win32::OwnedHandle out_read, out_write, err_read, err_write, ev_read, ev_write;
  if (!CreatePipe(out_read.out(), out_write.out(), &sa, 0) || !CreatePipe(err_read.out(), err_write.out(), &sa, 0) ||
      (channel && !CreatePipe(ev_read.out(), ev_write.out(), &sa, 0))) {
    return win32::make_win32_error("cannot create a pipe", "", GetLastError());
  }
  // Our ends must not leak into the child, or the pipes never report end of file.
  SetHandleInformation(out_read.get(), HANDLE_FLAG_INHERIT, 0);
  SetHandleInformation(err_read.get(), HANDLE_FLAG_INHERIT, 0);
  if (channel) SetHandleInformation(ev_read.get(), HANDLE_FLAG_INHERIT, 0);
  win32::OwnedHandle null_in(CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa, OPEN_EXISTING, 0, nullptr));
  win32::OwnedHandle our_stderr;
  if (!options.capture_stderr) our_stderr.reset(inheritable_copy(GetStdHandle(STD_ERROR_HANDLE)));

  STARTUPINFOW si{};
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdInput = null_in.get();
  si.hStdOutput = out_write.get();
  si.hStdError = options.capture_stderr ? err_write.get() : our_stderr.get();
  auto started = start(with_channel_id(argv, options.event_channel_placeholder, ev_write.get()),
                       options.env ? &*options.env : nullptr, si, options.cwd);
  // Close our copies of the write ends: only the child holds them now.
  out_write.reset();
  err_write.reset();
  ev_write.reset();
  null_in.reset();
  our_stderr.reset();
  if (!started) return started.error();

  ProcessResult result;
  const size_t limit = options.max_output_bytes;
  const bool tail = options.keep_output_tail;
  std::thread out_reader(drain, out_read.get(), &result.out, limit, tail, &result.out_dropped, nullptr);
  std::thread err_reader(drain, err_read.get(), &result.err, limit, tail, &result.err_dropped, nullptr);
  std::thread ev_reader;
  if (channel) {
    ev_reader = std::thread(drain, ev_read.get(), &result.events, options.max_event_bytes, false, nullptr,
                            &result.events_truncated);
  }
  DWORD wait = WaitForSingleObject(started->process.get(), DWORD(std::max(0, options.timeout_ms)));
  if (wait != WAIT_OBJECT_0) result.timed_out = true;
  // Stop the child (on timeout) and anything it left running that still holds our pipes, so the
  // readers see end of file. Probes start no processes of their own.
  if (started->job.valid()) {
    TerminateJobObject(started->job.get(), 1);
  } else if (result.timed_out) {
    TerminateProcess(started->process.get(), 1);
  }
  WaitForSingleObject(started->process.get(), INFINITE);
  out_reader.join();
  err_reader.join();
  if (ev_reader.joinable()) ev_reader.join();
  if (!result.timed_out) {
    DWORD code = 0;
    GetExitCodeProcess(started->process.get(), &code);
    result.exit_code = static_cast<int>(code);
  }
  return result;
}

// Windows: the child's pipes are drained by threads (small pipe buffers), so the started child is
// simply run_process on another thread; finish_process waits for it.
struct StartedProcess::State {
  std::future<Result<ProcessResult>> result;
};

StartedProcess::StartedProcess(std::unique_ptr<State> state) : state_(std::move(state)) {}
StartedProcess::StartedProcess(StartedProcess&&) noexcept = default;
StartedProcess& StartedProcess::operator=(StartedProcess&&) noexcept = default;
StartedProcess::~StartedProcess() = default;  // the future waits for run_process, whose timeout ends it

StartedProcess start_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  auto state = std::make_unique<StartedProcess::State>();
  state->result = std::async(std::launch::async, [argv, options] { return run_process(argv, options); });
  return StartedProcess(std::move(state));
}

Result<ProcessResult> finish_process(StartedProcess&& process) {
  std::unique_ptr<StartedProcess::State> state = std::move(process.state_);
  return state->result.get();
}

Error exec_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
  if (argv.empty()) return make_error(ErrorCode::kInternal, "exec_process: empty command");
  // Windows has no exec: run the child on our console and leave with its exit code. Ctrl-C goes
  // to every process on the console; we ignore it and let the child decide.
  SetConsoleCtrlHandler(nullptr, TRUE);
  win32::OwnedHandle in(inheritable_copy(GetStdHandle(STD_INPUT_HANDLE)));
  win32::OwnedHandle out(inheritable_copy(GetStdHandle(STD_OUTPUT_HANDLE)));
  win32::OwnedHandle err(inheritable_copy(GetStdHandle(STD_ERROR_HANDLE)));
  STARTUPINFOW si{};
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdInput = in.get();
  si.hStdOutput = out.get();
  si.hStdError = err.get();
  std::fflush(stdout);
  std::fflush(stderr);
  auto started = start(argv, &env, si);
  if (!started) return started.error();
  in.reset();
  out.reset();
  err.reset();
  WaitForSingleObject(started->process.get(), INFINITE);
  DWORD code = 1;
  GetExitCodeProcess(started->process.get(), &code);
  ExitProcess(code);
}

std::string self_executable_path() {
  std::wstring buf(MAX_PATH, L'\0');
  while (true) {
    DWORD n = GetModuleFileNameW(nullptr, buf.data(), DWORD(buf.size()));
    if (n == 0) return "cudnnup.exe";
    if (n < buf.size()) {
      buf.resize(n);
      return win32::from_win_path(buf);
    }
    buf.resize(buf.size() * 2);
  }
}

}  // namespace cudnnup
