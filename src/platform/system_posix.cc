#include <limits.h>
#include <unistd.h>

#include "platform/system.h"

extern char** environ;

namespace cudnnup {

OsKind host_os() { return OsKind::kLinux; }

Environment current_environment() {
  Environment env;
  env.os = OsKind::kLinux;
  for (char** e = environ; e && *e; ++e) {
    std::string entry(*e);
    size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    env.vars[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  if (auto home = env.get("HOME")) env.home = *home;
  char buf[PATH_MAX];
  if (getcwd(buf, sizeof buf)) env.cwd = buf;
  env.effective_uid = static_cast<long long>(::geteuid());
  return env;
}

bool stdout_is_terminal() { return isatty(STDOUT_FILENO) == 1; }
bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

void prepare_console() {}

std::vector<std::string> command_line_arguments(int argc, char** argv) { return {argv, argv + argc}; }

std::string host_name() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return {};
  return buf;  // POSIX leaves truncation unterminated; the zeroed last byte ends it
}

}  // namespace cudnnup
