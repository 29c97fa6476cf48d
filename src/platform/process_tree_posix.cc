// Linux: /proc/PID/stat gives the parent's PID, /proc/PID/comm its program name. Elsewhere (no
// /proc) the list is empty and the user's shell is taken from $SHELL.
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "platform/process_tree.h"

namespace cudnnup {
namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The parent PID from /proc/PID/stat: "PID (comm) STATE PPID ...", where comm may itself hold
// spaces and parentheses, so the fields are counted from the last ')'.
long parent_of(long pid) {
  std::string stat = read_first_line("/proc/" + std::to_string(pid) + "/stat");
  auto close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(stat.substr(close + 1));
  std::string state;
  long ppid = 0;
  fields >> state >> ppid;
  return fields ? ppid : 0;
}

}  // namespace

std::vector<std::string> ancestor_program_names(int depth) {
  std::vector<std::string> out;
  long pid = static_cast<long>(getppid());
  // PID 1 is looked at too: in a container the shell may be it (docker run -it IMAGE bash).
  for (int i = 0; i < depth && pid > 0; ++i) {
    std::string name = read_first_line("/proc/" + std::to_string(pid) + "/comm");
    if (name.empty()) break;
    out.push_back(name);
    if (pid == 1) break;
    pid = parent_of(pid);
  }
  return out;
}

}  // namespace cudnnup
