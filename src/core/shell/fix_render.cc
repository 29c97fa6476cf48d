#include "shell/fix_render.h"

#include <string_view>

#include "shell/shell_quote.h"

namespace cudnnup {
namespace {

// Characters that mean nothing to the shell anywhere in a word, so the word needs no quotes.
// Kept small on purpose: quoting too much is harmless, too little is not.
bool plain_word(std::string_view w, Shell shell) {
  if (w.empty()) return false;
  std::string_view extra = shell == Shell::kCmd ? "/._+-=:,\\" : shell == Shell::kPwsh ? "/._+-=:\\" : "/._+-=:,@";
  for (char c : w) {
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && extra.find(c) == std::string_view::npos) return false;
  }
  return true;
}

Result<std::string> word(std::string_view w, Shell shell) {
  if (plain_word(w, shell)) return std::string(w);
  auto q = shell_quote(shell, w);
  if (!q) return q.error();
  return shell == Shell::kCmd ? "\"" + *q + "\"" : *q;  // cmd's quote_shell leaves the quotes to the caller
}

std::string trimmed(std::string line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == ';')) line.pop_back();
  return line;
}

// eval "$(cudnnup env)" and its equivalents: the command's output run by the current shell.
Result<std::string> evaluated(const std::vector<std::string>& argv, Shell shell) {
  std::vector<std::string> words = argv;
  if (shell != Shell::kBash) words.insert(words.end(), {"--shell", shell_name(shell)});
  auto line = render_words(words, shell);
  if (!line) return line.error();
  switch (shell) {
    case Shell::kBash:
    case Shell::kZsh: return "eval \"$(" + *line + ")\"";
    case Shell::kFish: return *line + " | source";
    case Shell::kPwsh: return *line + " | Out-String | Invoke-Expression";
    case Shell::kCmd: break;
  }
  return make_error(ErrorCode::kUsage, "cmd cannot run the output of " + *line + " in the current window; run it and paste its lines");
}

Result<std::string> body(const FixStep& s, Shell shell) {
  switch (s.kind) {
    case FixKind::kCudnnup:
    case FixKind::kCommand:
    case FixKind::kSudo: return s.eval ? evaluated(s.argv, shell) : render_words(s.argv, shell);
    case FixKind::kSetEnv:
    case FixKind::kUnsetEnv: {
      auto line = shell_assign(shell, s.name, s.kind == FixKind::kSetEnv ? std::optional<std::string>(s.value) : std::nullopt);
      if (!line) return line.error();
      return trimmed(*line);
    }
    case FixKind::kShell:
    case FixKind::kText: return s.text;
  }
  return s.text;
}

}  // namespace

Shell default_fix_shell(bool windows) { return windows ? Shell::kCmd : Shell::kBash; }

Result<std::string> render_words(const std::vector<std::string>& argv, Shell shell) {
  std::string out;
  for (const auto& w : argv) {
    auto q = word(w, shell);
    if (!q) return q.error();
    out += (out.empty() ? "" : " ") + *q;
  }
  return out;
}

Result<std::string> render_fix_step(const FixStep& step, Shell shell) {
  auto line = body(step, shell);
  if (!line) return line.error();
  if (step.note.empty() || step.kind == FixKind::kText) return *line;
  std::string comment = trimmed(shell_comment(shell, step.note));
  return *line + (shell == Shell::kCmd ? "   & " : "   ") + comment;  // cmd's REM must start a command
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

}  // namespace cudnnup
