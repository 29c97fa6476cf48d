// The programs this process was started from, for guessing the user's shell (shell/user_shell.h).
#pragma once

#include <string>
#include <vector>

namespace cudnnup {

// The program names of this process's parent, grandparent, ... (at most `depth` of them), nearest
// first, as the OS names them: "bash", "fish", "sudo" on Linux (/proc/PID/comm), "pwsh.exe",
// "cmd.exe", "bash.exe" on Windows (the process snapshot's image name). Empty where the OS does
// not say (no /proc, a parent that has exited). Names only: nothing is started or opened for
// writing, and a failure just ends the list.
std::vector<std::string> ancestor_program_names(int depth);

}  // namespace cudnnup
