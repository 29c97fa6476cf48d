// The shell the user types cudnnup's printed commands into, so that every fix, undo line and hint
// is written for it (shell/fix_render.h). The first that applies:
//   1. the global option --shell SHELL;
//   2. CUDNNUP_SHELL (bash, zsh, fish, pwsh, cmd; an unknown name is a usage error, not a guess);
//   3. the nearest ancestor process that is a shell: bash/sh/dash/ksh count as bash, zsh, fish,
//      pwsh/powershell, cmd (on Windows, MSYS2/Git Bash/Cygwin's bash.exe too);
//   4. Windows: MSYSTEM (MSYS2, Git Bash) or SHELL (set by Cygwin and MSYS) means a POSIX shell;
//      Linux: $SHELL, the login shell;
//   5. bash on Linux, cmd on Windows.
// On Windows a POSIX shell is chosen only from what shows one (3, 4) or when asked (1, 2).
// PSModulePath is not looked at: Windows sets it for every process, PowerShell or not.
// The ancestors come from platform/process_tree.h; this is pure logic.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/environment.h"
#include "base/result.h"
#include "shell/shell_env.h"  // Shell

namespace cudnnup {

inline constexpr const char* kShellOverrideVar = "CUDNNUP_SHELL";

struct UserShell {
  Shell shell = Shell::kBash;
  std::string source;  // "--shell", "CUDNNUP_SHELL", "parent process pwsh.exe", "$SHELL", "MSYSTEM", "default"
  bool guessed() const { return source == "default"; }
};

// The shell a program name is ("bash", "-zsh", "/usr/bin/fish", "PowerShell.exe", "cmd.exe");
// nullopt for anything else (sudo, python3, make, tcsh).
std::optional<Shell> shell_of_program(std::string_view program);

// Steps 1 and 2: the shell the user named, nullopt when none. `option`: the value of --shell,
// empty when not given.
Result<std::optional<UserShell>> named_user_shell(const std::string& option, const Environment& env);
// Steps 3 to 5. `ancestors`: nearest first, as platform/process_tree.h gives them.
UserShell guessed_user_shell(const Environment& env, const std::vector<std::string>& ancestors);
// One sentence for the end of a report: which shell the commands above are written for, why,
// and how to ask for another.
std::string describe_user_shell(const UserShell& shell);

// All five.
Result<UserShell> choose_user_shell(const std::string& option, const Environment& env,
                                    const std::vector<std::string>& ancestors);

}  // namespace cudnnup
