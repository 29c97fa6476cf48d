// shell/user_shell.h: which shell printed commands are written for. Pure logic: the ancestor
// process names are given here as platform/process_tree.h would give them.
#include "shell/user_shell.h"

#include <gtest/gtest.h>

namespace cudnnup {
namespace {

Environment shell_linux_env(std::map<std::string, std::string> vars = {}) {
  Environment env;
  env.vars = std::move(vars);
  return env;
}

Environment shell_windows_env(std::map<std::string, std::string> vars = {}) {
  Environment env;
  env.os = OsKind::kWindows;
  env.vars = std::move(vars);
  return env;
}

UserShell chosen(const std::string& option, const Environment& env, const std::vector<std::string>& ancestors) {
  auto s = choose_user_shell(option, env, ancestors);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return s.ok() ? *s : UserShell{};
}

TEST(UserShell, ProgramNamesOfShells) {
  EXPECT_EQ(shell_of_program("bash"), Shell::kBash);
  EXPECT_EQ(shell_of_program("-bash"), Shell::kBash) << "a login shell";
  EXPECT_EQ(shell_of_program("/usr/bin/zsh"), Shell::kZsh);
  EXPECT_EQ(shell_of_program("fish"), Shell::kFish);
  EXPECT_EQ(shell_of_program("dash"), Shell::kBash) << "POSIX quoting is bash's";
  EXPECT_EQ(shell_of_program("pwsh"), Shell::kPwsh) << "PowerShell on Linux";
  EXPECT_EQ(shell_of_program("PowerShell.exe"), Shell::kPwsh) << "Windows PowerShell 5";
  EXPECT_EQ(shell_of_program("pwsh.exe"), Shell::kPwsh);
  EXPECT_EQ(shell_of_program("CMD.EXE"), Shell::kCmd);
  EXPECT_EQ(shell_of_program("C:\\Program Files\\Git\\usr\\bin\\bash.exe"), Shell::kBash) << "Git Bash";
  for (const char* other : {"sudo", "python3", "python.exe", "make", "tcsh", "WindowsTerminal.exe", "explorer.exe", ""}) {
    EXPECT_FALSE(shell_of_program(other)) << other;
  }
}

TEST(UserShell, TheNearestShellAmongTheParentsWins) {
  EXPECT_EQ(chosen("", shell_linux_env({{"SHELL", "/bin/bash"}}), {"sudo", "fish", "sshd"}).shell, Shell::kFish)
      << "sudo cudnnup from fish, with bash as login shell";
  UserShell s = chosen("", shell_windows_env(), {"python.exe", "pwsh.exe", "WindowsTerminal.exe"});
  EXPECT_EQ(s.shell, Shell::kPwsh);
  EXPECT_EQ(s.source, "parent process pwsh.exe");
  EXPECT_EQ(chosen("", shell_windows_env({{"MSYSTEM", "MINGW64"}}), {"cmd.exe", "bash.exe"}).shell, Shell::kCmd)
      << "cmd started from Git Bash: cmd is where the user types";
  EXPECT_EQ(chosen("", shell_windows_env(), {"bash.exe", "mintty.exe"}).shell, Shell::kBash) << "Git Bash itself";
}

TEST(UserShell, WithoutAShellParentTheEnvironmentThenTheSystemDecide) {
  EXPECT_EQ(chosen("", shell_linux_env({{"SHELL", "/usr/bin/zsh"}}), {"python3"}).shell, Shell::kZsh);
  EXPECT_EQ(chosen("", shell_linux_env({{"SHELL", "/usr/bin/zsh"}}), {}).source, "$SHELL");
  UserShell fallback = chosen("", shell_linux_env({{"SHELL", "/bin/tcsh"}}), {});
  EXPECT_EQ(fallback.shell, Shell::kBash) << "a shell cudnnup does not write for";
  EXPECT_TRUE(fallback.guessed());
  EXPECT_EQ(chosen("", shell_windows_env({{"MSYSTEM", "MINGW64"}}), {"python.exe"}).source, "MSYSTEM");
  EXPECT_EQ(chosen("", shell_windows_env({{"SHELL", "/usr/bin/bash"}}), {}).shell, Shell::kBash) << "Cygwin";
  UserShell windows = chosen("", shell_windows_env(), {"explorer.exe"});
  EXPECT_EQ(windows.shell, Shell::kCmd) << "only Windows shells on Windows unless a POSIX one shows";
  EXPECT_TRUE(windows.guessed());
  EXPECT_EQ(chosen("", shell_windows_env({{"PSMODULEPATH", "C:\\x"}}), {}).shell, Shell::kCmd)
      << "PSModulePath is set for every process on Windows: it says nothing";
}

TEST(UserShell, WhatTheUserNamesWinsAndANameCudnnupCannotWriteForIsAnError) {
  Environment env = shell_linux_env({{kShellOverrideVar, "pwsh"}, {"SHELL", "/bin/bash"}});
  EXPECT_EQ(chosen("", env, {"bash"}).shell, Shell::kPwsh);
  EXPECT_EQ(chosen("", env, {"bash"}).source, "CUDNNUP_SHELL");
  EXPECT_EQ(chosen("fish", env, {"bash"}).shell, Shell::kFish) << "--shell over CUDNNUP_SHELL";
  EXPECT_EQ(chosen("powershell", shell_windows_env(), {}).shell, Shell::kPwsh);
  EXPECT_EQ(chosen("bash", shell_windows_env(), {"cmd.exe"}).shell, Shell::kBash) << "asked for: allowed on Windows too";
  auto bad = choose_user_shell("", shell_linux_env({{kShellOverrideVar, "tcsh"}}), {"bash"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kUsage);
  EXPECT_NE(bad.error().message.find("CUDNNUP_SHELL=tcsh"), std::string::npos) << bad.error().message;
  EXPECT_EQ(chosen("", shell_linux_env({{kShellOverrideVar, ""}}), {"zsh"}).shell, Shell::kZsh) << "empty is unset";
}

TEST(UserShell, TheReportSaysForWhichShellAndWhy) {
  EXPECT_EQ(describe_user_shell({Shell::kFish, "parent process fish"}),
            "Commands are written for fish: the shell cudnnup was started from (fish); --shell SHELL or CUDNNUP_SHELL "
            "writes them for another.");
  EXPECT_EQ(describe_user_shell({Shell::kCmd, "--shell"}), "Commands are written for cmd (--shell).");
  EXPECT_NE(describe_user_shell({Shell::kCmd, "default"}).find("no shell was seen"), std::string::npos);
}

}  // namespace
}  // namespace cudnnup
