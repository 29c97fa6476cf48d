#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <climits>

#include "platform/process.h"

extern char** environ;

namespace cudnnup {
namespace {

int64_t now_ms() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::vector<std::string> env_strings(const std::map<std::string, std::string>& env) {
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

}  // namespace

std::string ProcessResult::describe_failure() const {
  if (timed_out) return "did not finish in time and was stopped";
  if (signal != 0) {
    const char* name = strsignal(signal);
    return "crashed (killed by signal " + std::to_string(signal) + (name ? std::string(", ") + name : "") + ")";
  }
  return "exited with code " + std::to_string(exit_code);
}

// A pipe whose ends close themselves; both ends are close-on-exec, so only the fds dup2'ed into
// the child reach it.
// Not in the anonymous namespace: StartedProcess::State (declared in the header) holds three.
struct ChildPipe {
  int read_end = -1, write_end = -1;
  ChildPipe() = default;
  ChildPipe(const ChildPipe&) = delete;
  ChildPipe& operator=(const ChildPipe&) = delete;
  ~ChildPipe() {
    close_read();
    close_write();
  }
  bool open() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    read_end = fds[0];
    write_end = fds[1];
    // Above the standard descriptors and 3, so that dup2'ing the child's ends never overwrites
    // one of them (a parent started with stdout closed gets pipe fds 1 and 2).
    for (int* fd : {&read_end, &write_end}) {
      int high = fcntl(*fd, F_DUPFD_CLOEXEC, 10);
      if (high < 0) return false;
      close(*fd);
      *fd = high;
    }
    return true;
  }
  void close_read() {
    if (read_end >= 0) close(read_end);
    read_end = -1;
  }
  void close_write() {
    if (write_end >= 0) close(write_end);
    write_end = -1;
  }
};

namespace {

constexpr int kEventFd = 3;  // where the child finds its event channel (ProcessOptions)

// Appends to one captured stream, keeping the head or the tail within `limit`.
struct Sink {
  std::string* text = nullptr;
  size_t limit = 0;
  bool keep_tail = false;
  size_t* dropped = nullptr;
  bool* truncated = nullptr;
  void add(const char* data, size_t n) {
    if (!keep_tail) {
      size_t take = text->size() < limit ? std::min(n, limit - text->size()) : 0;
      text->append(data, take);
      if (take < n) {
        if (dropped) *dropped += n - take;
        if (truncated) *truncated = true;
      }
      return;
    }
    text->append(data, n);
    if (text->size() > 2 * limit) trim();
  }
  void trim() {
    if (text->size() <= limit) return;
    size_t cut = text->size() - limit;
    text->erase(0, cut);
    if (dropped) *dropped += cut;
  }
};

std::vector<std::string> with_channel_id(const std::vector<std::string>& argv, const std::string& placeholder) {
  std::vector<std::string> out = argv;
  if (placeholder.empty()) return out;
  for (auto& a : out) {
    for (size_t at = a.find(placeholder); at != std::string::npos; at = a.find(placeholder, at)) {
      a.replace(at, placeholder.size(), std::to_string(kEventFd));
    }
  }
  return out;
}

// Reads every pipe until all are closed or the deadline passes (then kills the process group).
void pump(pid_t pid, std::vector<std::pair<int, Sink>>& streams, int64_t deadline, ProcessResult& result) {
  std::vector<struct pollfd> fds;
  for (auto& s : streams) fds.push_back({s.first, POLLIN, 0});
  size_t open_fds = fds.size();
  char buf[65536];
  constexpr int kLateReads = 16;  // a full pipe is 64 KiB: one read, then end of file
  int late_reads = 0;
  while (open_fds > 0) {
    // Past the deadline poll only looks: a child that finished in time but was read late
    // (start_process, then other work) has every pipe ready and is not stopped.
    // What is left in the pipes then takes a few reads; a child still writing is stopped.
    int64_t left = std::max<int64_t>(0, deadline - now_ms());
    int n = poll(fds.data(), fds.size(), int(std::min<int64_t>(left, INT_MAX)));
    if (left == 0 && (n == 0 || ++late_reads > kLateReads)) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
      break;
    }
    if (n <= 0) continue;  // EINTR or a spurious wake-up
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      streams[i].second.add(buf, size_t(got));
    }
  }
  for (auto& s : streams) s.second.trim();
}

// Waits for the child, still honouring the deadline after its pipes closed.
void wait_for(pid_t pid, int64_t deadline, ProcessResult& result) {
  int status = 0;
  long pause_ns = 20000;
  while (true) {
    if (!result.timed_out) {
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) break;
      if (w < 0 && errno != EINTR) break;
      if (now_ms() > deadline) {
        result.timed_out = true;
        kill(-pid, SIGKILL);
        continue;
      }
      // Its pipes are closed, so it is exiting: poll often at first, then back off to 1 ms.
      struct timespec ts = {0, pause_ns};
      nanosleep(&ts, nullptr);
      pause_ns = std::min<long>(pause_ns * 2, 1000000);
      continue;
    }
    if (waitpid(pid, &status, 0) == pid || errno != EINTR) break;
  }
  if (!result.timed_out) {
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  }
}

}  // namespace

// A started child: its pid, our ends of its pipes, and the deadline, until finish_process.
struct StartedProcess::State {
  Result<pid_t> pid = pid_t(0);  // or why it could not be started
  ChildPipe out, err, events;
  bool channel = false;
  int64_t deadline = 0;
  ProcessOptions options;
};

StartedProcess::StartedProcess(std::unique_ptr<State> state) : state_(std::move(state)) {}
StartedProcess::StartedProcess(StartedProcess&&) noexcept = default;
StartedProcess& StartedProcess::operator=(StartedProcess&&) noexcept = default;
StartedProcess::~StartedProcess() {
  if (!state_ || !state_->pid) return;
  kill(-*state_->pid, SIGKILL);
  int status = 0;
  while (waitpid(*state_->pid, &status, 0) < 0 && errno == EINTR) {
  }
}

StartedProcess start_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  auto state = std::make_unique<StartedProcess::State>();
  StartedProcess::State& st = *state;
  st.options = options;
  st.channel = !options.event_channel_placeholder.empty();
  if (argv.empty()) {
    st.pid = make_error(ErrorCode::kInternal, "run_process: empty command");
    return StartedProcess(std::move(state));
  }
  if (!st.out.open() || !st.err.open() || (st.channel && !st.events.open())) {
    st.pid = make_error(ErrorCode::kIo, "pipe failed");
    return StartedProcess(std::move(state));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, st.out.write_end, 1);
  if (options.capture_stderr) posix_spawn_file_actions_adddup2(&actions, st.err.write_end, 2);
  if (st.channel) posix_spawn_file_actions_adddup2(&actions, st.events.write_end, kEventFd);
  if (!options.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, options.cwd.c_str());  // glibc >= 2.29
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Own process group, so a timeout can kill anything the child started too.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);

  std::vector<std::string> args = with_channel_id(argv, options.event_channel_placeholder);
  auto c_args = c_strings(args);
  std::vector<std::string> envs;
  std::vector<char*> c_env;
  char** env_ptr = environ;
  if (options.env) {
    envs = env_strings(*options.env);
    c_env = c_strings(envs);
    env_ptr = c_env.data();
  }
  pid_t pid = 0;
  int rc = argv[0].find('/') != std::string::npos
               ? posix_spawn(&pid, argv[0].c_str(), &actions, &attr, c_args.data(), env_ptr)
               : posix_spawnp(&pid, argv[0].c_str(), &actions, &attr, c_args.data(), env_ptr);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  st.out.close_write();
  st.err.close_write();
  st.events.close_write();
  if (rc != 0) {
    st.pid = make_error(ErrorCode::kNotFound, "cannot start " + argv[0] + ": " + strerror(rc), argv[0]);
  } else {
    st.pid = pid;
  }
  st.deadline = now_ms() + options.timeout_ms;
  return StartedProcess(std::move(state));
}

Result<ProcessResult> finish_process(StartedProcess&& process) {
  std::unique_ptr<StartedProcess::State> state = std::move(process.state_);
  StartedProcess::State& st = *state;
  if (!st.pid) return st.pid.error();
  const pid_t pid = *st.pid;
  st.pid = make_error(ErrorCode::kInternal, "finished");  // reaped below: nothing left to kill
  const ProcessOptions& options = st.options;
  ProcessResult result;
  std::vector<std::pair<int, Sink>> streams;
  streams.push_back({st.out.read_end, Sink{&result.out, options.max_output_bytes, options.keep_output_tail, &result.out_dropped}});
  streams.push_back({st.err.read_end, Sink{&result.err, options.max_output_bytes, options.keep_output_tail, &result.err_dropped}});
  if (st.channel) {
    streams.push_back({st.events.read_end, Sink{&result.events, options.max_event_bytes, false, nullptr,
                                                 &result.events_truncated}});
  }
  pump(pid, streams, st.deadline, result);
  wait_for(pid, st.deadline, result);
  return result;
}

Result<ProcessResult> run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  return finish_process(start_process(argv, options));
}

Error exec_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
  std::vector<std::string> args = argv;
  auto c_args = c_strings(args);
  auto envs = env_strings(env);
  auto c_env = c_strings(envs);
  execvpe(args[0].c_str(), c_args.data(), c_env.data());
  // As a shell tells them apart (exit 127 and 126): not there, or there but not runnable.
  int err = errno;
  ErrorCode code = err == ENOENT || err == ENOTDIR ? ErrorCode::kNotFound : ErrorCode::kPermission;
  return make_error(code, "cannot run " + argv[0] + ": " + strerror(err), argv[0]);
}

std::string self_executable_path() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "cudnnup";
  return std::string(buf, size_t(n));
}

}  // namespace cudnnup
