#include "shell/user_shell.h"

#include "base/paths.h"
#include "base/strings.h"

namespace cudnnup {

std::optional<Shell> shell_of_program(std::string_view program) {
  std::string name = ascii_lower(paths::basename(program));
  if (name.ends_with(".exe")) name.resize(name.size() - 4);
  if (name.starts_with("-")) name.erase(0, 1);  // a login shell's argv[0]
  for (std::string_view posix : {"bash", "sh", "dash", "ash", "ksh", "mksh", "ksh93", "yash", "busybox"}) {
    if (name == posix) return Shell::kBash;  // all read '...' and "$(...)" as bash does
  }
  if (name == "zsh") return Shell::kZsh;
  if (name == "fish") return Shell::kFish;
  if (name == "pwsh" || name == "powershell" || name == "powershell_ise") return Shell::kPwsh;
  if (name == "cmd") return Shell::kCmd;
  return std::nullopt;
}

Result<std::optional<UserShell>> named_user_shell(const std::string& option, const Environment& env) {
  if (!option.empty()) {
    auto s = parse_shell(option);
    if (!s) return make_error(ErrorCode::kUsage, "--shell " + option + ": unknown shell; use one of bash, zsh, fish, pwsh, cmd");
    return std::optional<UserShell>(UserShell{*s, "--shell"});
  }
  if (auto named = env.get(kShellOverrideVar); named && !named->empty()) {
    auto s = parse_shell(*named);
    if (!s) {
      return make_error(ErrorCode::kUsage, std::string(kShellOverrideVar) + "=" + *named +
                                               " is not a shell cudnnup writes commands for; set it to bash, zsh, fish, "
                                               "pwsh or cmd, or unset it");
    }
    return std::optional<UserShell>(UserShell{*s, kShellOverrideVar});
  }
  return std::optional<UserShell>();
}

UserShell guessed_user_shell(const Environment& env, const std::vector<std::string>& ancestors) {
  for (const auto& program : ancestors) {
    if (auto s = shell_of_program(program)) return UserShell{*s, "parent process " + program};
  }
  if (env.windows()) {
    if (auto msys = env.get("MSYSTEM"); msys && !msys->empty()) return UserShell{Shell::kBash, "MSYSTEM"};
    if (auto sh = env.get("SHELL"); sh && !sh->empty()) return UserShell{shell_of_program(*sh).value_or(Shell::kBash), "$SHELL"};
    return UserShell{Shell::kCmd, "default"};
  }
  if (auto sh = env.get("SHELL"); sh && !sh->empty()) {
    if (auto s = shell_of_program(*sh)) return UserShell{*s, "$SHELL"};
  }
  return UserShell{Shell::kBash, "default"};
}

std::string describe_user_shell(const UserShell& shell) {
  std::string name = shell_name(shell.shell);
  if (shell.source == "--shell" || shell.source == kShellOverrideVar) return "Commands are written for " + name + " (" + shell.source + ").";
  std::string why = shell.source == "default" ? "no shell was seen among the programs that started cudnnup"
                    : shell.source == "$SHELL" ? "your login shell ($SHELL)"
                    : shell.source == "MSYSTEM" ? "MSYS2 or Git Bash (MSYSTEM is set)"
                                                : "the shell cudnnup was started from (" + shell.source.substr(shell.source.find_last_of(' ') + 1) + ")";
  return "Commands are written for " + name + ": " + why + "; --shell SHELL or CUDNNUP_SHELL writes them for another.";
}

Result<UserShell> choose_user_shell(const std::string& option, const Environment& env,
                                    const std::vector<std::string>& ancestors) {
  auto named = named_user_shell(option, env);
  if (!named) return named.error();
  if (*named) return **named;
  return guessed_user_shell(env, ancestors);
}

}  // namespace cudnnup
