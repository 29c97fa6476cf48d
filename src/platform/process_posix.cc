#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

Result<ProcessResult> run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  if (argv.empty()) return make_error(ErrorCode::kInternal, "run_process: empty command");
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return make_error(ErrorCode::kIo, "pipe failed");
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return make_error(ErrorCode::kIo, "pipe failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  if (options.capture_stderr) posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  if (!options.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, options.cwd.c_str());  // glibc >= 2.29
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Own process group, so a timeout can kill anything the child started too.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);

  std::vector<std::string> args = argv;
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
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    return make_error(ErrorCode::kNotFound, "cannot start " + argv[0] + ": " + strerror(rc), argv[0]);
  }

  ProcessResult result;
  int64_t deadline = now_ms() + options.timeout_ms;
  struct pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    int64_t left = deadline - now_ms();
    if (left <= 0) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
      break;
    }
    int n = poll(fds, 2, int(std::min<int64_t>(left, INT_MAX)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      std::string& sink = i == 0 ? result.out : result.err;
      if (sink.size() < options.max_output_bytes) sink.append(buf, size_t(got));
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  int status = 0;
  while (true) {
    if (!result.timed_out) {
      // The pipes closed; the child should be exiting. Keep honouring the deadline.
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) break;
      if (w < 0 && errno != EINTR) break;
      if (now_ms() > deadline) {
        result.timed_out = true;
        kill(-pid, SIGKILL);
        continue;
      }
      struct timespec ts = {0, 1000000};
      nanosleep(&ts, nullptr);
      continue;
    }
    if (waitpid(pid, &status, 0) == pid || errno != EINTR) break;
  }
  if (!result.timed_out) {
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  }
  return result;
}

Error exec_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
  std::vector<std::string> args = argv;
  auto c_args = c_strings(args);
  auto envs = env_strings(env);
  auto c_env = c_strings(envs);
  execvpe(args[0].c_str(), c_args.data(), c_env.data());
  return make_error(ErrorCode::kNotFound, "cannot run " + argv[0] + ": " + strerror(errno), argv[0]);
}

std::string self_executable_path() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "cudnnup";
  return std::string(buf, size_t(n));
}

}  // namespace cudnnup
