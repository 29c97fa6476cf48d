#include "shell/fix_render.h"

#include <string_view>

#include "base/terminal_text.h"
#include "shell/shell_quote.h"

namespace cudnnup {
namespace {

bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

bool only(std::string_view w, std::string_view extra) {
  for (char c : w) {
    if (!alnum(c) && extra.find(c) == std::string_view::npos) return false;
  }
  return !w.empty();
}

// cmd's own commands split their arguments at , ; = as well as spaces.
bool cmd_builtin(std::string_view program) {
  for (std::string_view b : {"move", "mkdir", "md", "del", "erase", "copy", "ren", "rename", "rd", "rmdir", "type", "dir"}) {
    if (program == b) return true;
  }
  return false;
}

// PowerShell reads a bare word that looks like a number as one (9.10 becomes 9.1, 07 becomes 7,
// 1kb becomes 1024), so only whole numbers and versions of three or more parts stay bare.
bool pwsh_plain_number(std::string_view w) {
  if (w.find_first_not_of("0123456789") == std::string_view::npos) return w.size() == 1 || w[0] != '0';
  size_t dots = 0;
  for (char c : w) dots += c == '.';
  return dots >= 2;
}

// A word that means the same to the shell without quotes. Kept small on purpose: quoting too
// much is harmless, too little is not.
bool plain_word(std::string_view w, Shell shell, bool cmd_internal) {
  if (w.empty()) return false;
  switch (shell) {
    case Shell::kBash:
    case Shell::kFish: return only(w, "/._+-=:,@");
    case Shell::kZsh: return w[0] != '=' && only(w, "/._+-=:,@");  // =word is zsh's command lookup
    case Shell::kCmd: return only(w, cmd_internal ? "/._+-:\\" : "/._+-=:,\\");
    case Shell::kPwsh:
      // -name.x and -name:x are split or bound as parameters by Windows PowerShell; digits may
      // be read as numbers; @ { } ( ) , ; $ ` # and quotes all mean something.
      if (w[0] == '-') return only(w, "-");
      if (w[0] >= '0' && w[0] <= '9' && !pwsh_plain_number(w)) return false;
      return only(w, "/._+-=:\\");
  }
  return false;
}

Result<std::string> word(std::string_view w, Shell shell, bool cmd_internal = false) {
  if (plain_word(w, shell, cmd_internal)) return std::string(w);
  if (shell == Shell::kCmd) return cmd_argument(w);
  return shell_quote(shell, w);
}

std::string trimmed(std::string line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == ';')) line.pop_back();
  return line;
}

// cmd at the prompt: a caret before every character it would read, so a note's text stays text
// in a REM, and a set value keeps its % and &.
std::string cmd_carets(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("^&|<>()%\"").find(c) != std::string_view::npos) out += '^';
    out += c;
  }
  return out;
}

// eval "$(cudnnup env --shell bash)" and its equivalents: the command's output run by the current
// shell. The shell is always named, so the line does not depend on env's own default.
Result<std::string> evaluated(const std::vector<std::string>& argv, Shell shell) {
  std::vector<std::string> words = argv;
  words.insert(words.end(), {"--shell", shell_name(shell)});
  auto line = render_words(words, shell);
  if (!line) return line.error();
  switch (shell) {
    case Shell::kBash:
    case Shell::kZsh: return "eval \"$(" + *line + ")\"";
    case Shell::kFish: return *line + " | source";
    case Shell::kPwsh: return *line + " | Out-String | Invoke-Expression";
    case Shell::kCmd: break;
  }
  // cmd runs each output line in this window through FOR /F (at the prompt %i, in a batch %%i).
  // Inside ('...') a quote or a special character would need its own escaping: none is needed.
  if (line->find_first_of("'\"%^&|<>()") != std::string::npos) {
    return make_error(ErrorCode::kUsage, "cmd cannot run the output of " + *line + " in the current window; run it and paste its lines");
  }
  return "for /f \"delims=\" %i in ('" + *line + "') do @%i";
}

// The environment change of a step. cmd's quoted `set "NAME=value"` cannot hold a % (it would be
// expanded); the unquoted form with carets can, and is used only then.
Result<std::string> assignment(const FixStep& s, Shell shell) {
  std::optional<std::string> value;
  if (s.kind == FixKind::kSetEnv) value = s.value;
  if (shell == Shell::kCmd && value && value->find_first_of("%!") != std::string::npos) {
    auto q = cmd_argument(*value);  // the same refusals: a quote, a line break, control characters
    if (!q) return q.error();
    auto line = shell_assign(shell, s.name, std::string("x"));  // checks the name
    if (!line) return line.error();
    return "set " + s.name + "=" + cmd_carets(*value);
  }
  auto line = shell_assign(shell, s.name, value);
  if (!line) return line.error();
  return trimmed(*line);
}

// POSIX shell code that sets or removes variables of the shell it runs in: running it through
// `sh -c` would change nothing, so another shell cannot be given it.
bool changes_the_shell(std::string_view code) {
  for (std::string_view lead : {"export ", "unset ", "eval ", "source ", ". "}) {
    if (code.starts_with(lead)) return true;
  }
  size_t name_end = code.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
  return name_end != 0 && name_end != std::string_view::npos && code[name_end] == '=';
}

const char* dialect_name(ShellDialect d) {
  switch (d) {
    case ShellDialect::kPosix: return "POSIX shell (bash)";
    case ShellDialect::kPowerShell: return "PowerShell";
    case ShellDialect::kCmd: return "cmd";
  }
  return "";
}

// Shell code in its own language as it is; POSIX code in fish or PowerShell as it is when it is
// a plain pipeline of words (lsmod | grep nvidia reads the same there), else through `sh -c`
// when that keeps its meaning; anything else is an error naming the shell it needs.
Result<std::string> shell_code(const FixStep& s, Shell shell) {
  bool posix = shell == Shell::kBash || shell == Shell::kZsh;
  if ((s.dialect == ShellDialect::kPosix && posix) || (s.dialect == ShellDialect::kPowerShell && shell == Shell::kPwsh) ||
      (s.dialect == ShellDialect::kCmd && shell == Shell::kCmd)) {
    return s.text;
  }
  if (s.dialect == ShellDialect::kPosix && (shell == Shell::kFish || shell == Shell::kPwsh)) {
    if (only(s.text, " /._+-:|")) return s.text;
    if (!changes_the_shell(s.text)) {
      auto code = shell_quote(shell, s.text);
      if (code) return "sh -c " + *code;
    }
  }
  return make_error(ErrorCode::kUsage, std::string("it is ") + dialect_name(s.dialect) + " code, for that shell only: " + s.text);
}

// The file commands fixes use, in the words of a shell that lacks them: PowerShell's mkdir (a
// function on every OS) has no -p; cmd's move and del are no programs in a POSIX shell on Windows.
// The argument vector of the step (JSON "fix_commands") stays as it is.
std::vector<std::string> in_shell_words(std::vector<std::string> argv, Shell shell) {
  if (argv.empty()) return argv;
  bool posix = shell == Shell::kBash || shell == Shell::kZsh || shell == Shell::kFish;
  if (shell == Shell::kPwsh && argv.size() == 3 && argv[0] == "mkdir" && argv[1] == "-p") {
    return {"New-Item", "-ItemType", "Directory", "-Force", "-Path", argv[2]};
  }
  if (posix && argv[0] == "move") argv[0] = "mv";
  if (posix && argv[0] == "del") argv[0] = "rm";
  return argv;
}

// PowerShell runs a quoted program name only through the call operator: & 'C:\x y\nvcc.exe'.
Result<std::string> command(const std::vector<std::string>& given, Shell shell) {
  std::vector<std::string> argv = in_shell_words(given, shell);
  auto line = render_words(argv, shell);
  if (!line) return line.error();
  if (shell == Shell::kPwsh && !argv.empty() && !plain_word(argv[0], shell, false)) return "& " + *line;
  return line;
}

Result<std::string> body(const FixStep& s, Shell shell) {
  switch (s.kind) {
    case FixKind::kCudnnup:
    case FixKind::kCommand:
    case FixKind::kSudo: return s.eval ? evaluated(s.argv, shell) : command(s.argv, shell);
    case FixKind::kSetEnv:
    case FixKind::kUnsetEnv: return assignment(s, shell);
    case FixKind::kShell: return shell_code(s, shell);
    case FixKind::kText: return s.text;
  }
  return s.text;
}

// A note after the command. zsh reads # as a comment only with INTERACTIVE_COMMENTS, which an
// interactive zsh does not set by default, so there the note is the argument of `:`.
Result<std::string> with_note(const std::string& line, const std::string& note, Shell shell) {
  switch (shell) {
    case Shell::kCmd: return line + "   & REM " + cmd_carets(terminal_safe(note));
    case Shell::kZsh: {
      auto q = shell_quote(shell, terminal_safe(note));
      if (!q) return q.error();
      return line + "; : " + *q;
    }
    default: return line + "   " + trimmed(shell_comment(shell, note));
  }
}

}  // namespace

Shell default_fix_shell(bool windows) { return windows ? Shell::kCmd : Shell::kBash; }

Result<std::string> render_words(const std::vector<std::string>& argv, Shell shell) {
  std::string out;
  bool internal = shell == Shell::kCmd && !argv.empty() && cmd_builtin(argv[0]);
  for (const auto& w : argv) {
    auto q = word(w, shell, internal);
    if (!q) return q.error();
    out += (out.empty() ? "" : " ") + *q;
  }
  return out;
}

Result<std::string> render_fix_step(const FixStep& step, Shell shell) {
  auto line = body(step, shell);
  if (!line) return line.error();
  if (step.note.empty() || step.kind == FixKind::kText) return *line;
  return with_note(*line, step.note, shell);
}

std::vector<std::string> render_fix(const std::vector<FixStep>& steps, Shell shell) {
  std::vector<std::string> out;
  for (const auto& s : steps) {
    auto line = render_fix_step(s, shell);
    if (line) {
      out.push_back(*line);
    } else if (s.kind == FixKind::kSetEnv || s.kind == FixKind::kUnsetEnv) {
      out.push_back("Edit " + s.name + " by hand (" + line.error().message + ")");
    } else {
      out.push_back("(a step that cannot be written as " + std::string(shell_name(shell)) + " code: " + line.error().message + ")");
    }
  }
  return out;
}

std::string render_command_or_sentence(const std::vector<std::string>& argv, Shell shell) {
  auto line = render_fix_step(fix::run(argv), shell);
  if (line) return *line;
  return "(a command that cannot be written as " + std::string(shell_name(shell)) + " code: " + line.error().message + ")";
}

}  // namespace cudnnup
