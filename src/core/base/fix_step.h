// A fix step as a typed value, not as text (docs/design.md, "Fixes are argument vectors").
//
// Every step of a Finding's fix (and of an explain catalogue fix, and of an Error's) is one of: a
// cudnnup command, another program, a sudo command (each an argument vector, never a command
// line), an environment change, a line of shell code that needs the shell (a pipe, $(...), a
// glob), or a plain-language step that is not a command at all. Text for the user's shell is made
// in one place (shell/fix_render.h), with every word quoted for that shell, so a path with a
// space or a quote still gives a command that runs as printed, and the tests can parse every
// cudnnup step with the real command line (tests/unit/app/fix_commands_test.cc).
// This header is only the value and its builders (base/result.h carries steps in an Error);
// base/fix.h adds the data form.
#pragma once

#include <string>
#include <vector>

namespace cudnnup {

enum class FixKind {
  kCudnnup,   // argv[0] == "cudnnup"
  kCommand,   // argv[0] is another program (nvidia-smi, pip, ldd, mv)
  kSudo,      // argv[0] == "sudo"
  kSetEnv,    // name = value in the current shell
  kUnsetEnv,  // name removed from the current shell
  kShell,     // shell code as written, in `dialect`; not checked
  kText,      // a step for a person: "Reinstall the NVIDIA driver"
};

// The language a kShell step is written in. The renderer prints it as it is for a shell of that
// language and otherwise runs it through `sh -c` where that keeps its meaning, or says which
// shell it needs (shell/fix_render.h).
enum class ShellDialect { kPosix, kPowerShell, kCmd };

struct FixStep {
  FixKind kind = FixKind::kText;
  std::vector<std::string> argv;  // the command kinds: the whole vector, program first
  std::string name;               // kSetEnv, kUnsetEnv
  std::string value;              // kSetEnv
  std::string text;               // kText: the step; kShell: the shell code
  std::string note;               // a comment printed after the command ("# shows every candidate")
  bool eval = false;              // kCudnnup: the output is shell code for the current shell (`cudnnup env`)
  ShellDialect dialect = ShellDialect::kPosix;  // kShell

  bool is_command() const { return kind == FixKind::kCudnnup || kind == FixKind::kCommand || kind == FixKind::kSudo; }
  bool operator==(const FixStep&) const = default;
};

// The builders every producer uses. `args` of cudnnup() leave out the program name.
namespace fix {
FixStep cudnnup(std::vector<std::string> args, std::string note = {});
FixStep cudnnup_eval(std::vector<std::string> args, std::string note = {});  // eval "$(cudnnup env --shell bash)"
FixStep run(std::vector<std::string> argv, std::string note = {});
FixStep sudo(std::vector<std::string> argv, std::string note = {});  // argv without "sudo"
FixStep set_env(std::string name, std::string value, std::string note = {});
FixStep unset_env(std::string name, std::string note = {});
FixStep shell(std::string code, std::string note = {});  // POSIX shell code
FixStep shell_in(ShellDialect dialect, std::string code, std::string note = {});
FixStep step(std::string text);
}  // namespace fix

// The argument vectors of the command steps, in order (JSON "fix_commands").
std::vector<std::vector<std::string>> fix_commands(const std::vector<FixStep>& steps);

}  // namespace cudnnup
