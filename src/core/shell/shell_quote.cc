#include "shell/shell_quote.h"

#include "base/terminal_text.h"

namespace cudnnup {
namespace {

Error refused(Shell shell, std::string_view value, const std::string& why) {
  return make_error(ErrorCode::kUsage,
                    "cannot write '" + terminal_safe(value) + "' as " + shell_name(shell) + " code: it contains " + why +
                        "; rename the directory (or remove it from the variable) and try again",
                    std::string(value));
}

// PowerShell reads the typographic single quotes as quotes too (U+2018..U+201B).
bool pwsh_quote_at(std::string_view s, size_t i) {
  return s[i] == '\'' || (i + 2 < s.size() && s[i] == '\xe2' && s[i + 1] == '\x80' && s[i + 2] >= '\x98' && s[i + 2] <= '\x9b');
}

}  // namespace

Result<std::string> shell_quote(Shell shell, std::string_view value) {
  for (char c : value) {
    if (c == '\n' || c == '\r') return refused(shell, value, "a line break");
    if (c == '\0') return refused(shell, value, "a NUL byte");
  }
  std::string out;
  switch (shell) {
    case Shell::kBash:
    case Shell::kZsh:
      // Inside '...' nothing is special but the closing quote: ' is written '\''.
      out = "'";
      for (char c : value) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      return out + "'";
    case Shell::kFish:
      // Inside '...' fish reads \' and \\ as escapes and nothing else.
      out = "'";
      for (char c : value) {
        if (c == '\'' || c == '\\') out += '\\';
        out += c;
      }
      return out + "'";
    case Shell::kPwsh:
      // Inside '...' a quote is written twice; every kind of single quote counts as one.
      out = "'";
      for (size_t i = 0; i < value.size(); ++i) {
        if (pwsh_quote_at(value, i)) {
          size_t n = value[i] == '\'' ? 1 : 3;
          out.append(value.substr(i, n));
          out.append(value.substr(i, n));
          i += n - 1;
        } else {
          out += value[i];
        }
      }
      return out + "'";
    case Shell::kCmd:
      for (char c : value) {
        if (c == '"' || c == '%' || c == '!') return refused(shell, value, std::string("'") + c + "', which cmd cannot quote");
        if (static_cast<unsigned char>(c) < 0x20) return refused(shell, value, "a control character");
      }
      return std::string(value);
  }
  return std::string(value);
}

Result<std::string> cmd_argument(std::string_view value) {
  for (char c : value) {
    if (c == '\n' || c == '\r') return refused(Shell::kCmd, value, "a line break");
    if (c == '"') return refused(Shell::kCmd, value, "'\"', which cmd cannot quote");
    if (static_cast<unsigned char>(c) < 0x20) return refused(Shell::kCmd, value, "a control character");
  }
  if (value.empty()) return std::string("\"\"");
  std::string out, run;
  // A run without % in quotes; CommandLineToArgvW reads backslashes before a quote as escapes.
  auto flush = [&] {
    if (run.empty()) return;
    size_t last = run.find_last_not_of('\\');
    size_t trailing = last == std::string::npos ? run.size() : run.size() - last - 1;
    out += "\"" + run + std::string(trailing, '\\') + "\"";
    run.clear();
  };
  for (char c : value) {
    if (c == '%') {
      flush();
      out += '%';
    } else {
      run += c;
    }
  }
  flush();
  return out;
}

namespace {

Status check_variable_name(std::string_view name) {
  for (char c : name) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return make_error(ErrorCode::kInternal, "not a variable name: " + terminal_safe(name));
  }
  return ok_status();
}

}  // namespace

Result<std::string> shell_set_variable(Shell shell, std::string_view name, const std::string& value) {
  if (auto s = check_variable_name(name); !s) return s.error();
  auto q = shell_quote(shell, value);
  if (!q) return q.error();
  std::string n(name);
  switch (shell) {
    case Shell::kBash:
    case Shell::kZsh: return n + "=" + *q + ";\n";
    case Shell::kFish: return "set -g " + n + " " + *q + ";\n";
    case Shell::kPwsh: return "$global:" + n + " = " + *q + "\n";
    case Shell::kCmd: return "set \"" + n + "=" + *q + "\"\n";
  }
  return std::string();
}

Result<std::string> shell_assign(Shell shell, std::string_view name, const std::optional<std::string>& value) {
  if (auto s = check_variable_name(name); !s) return s.error();
  std::string n(name);
  if (!value) {
    switch (shell) {
      case Shell::kBash:
      case Shell::kZsh: return "unset " + n + ";\n";
      case Shell::kFish: return "set -e " + n + ";\n";
      case Shell::kPwsh: return "Remove-Item Env:" + n + " -ErrorAction SilentlyContinue\n";
      case Shell::kCmd: return "set " + n + "=\n";
    }
  }
  auto q = shell_quote(shell, *value);
  if (!q) return q.error();
  switch (shell) {
    case Shell::kBash:
    case Shell::kZsh: return "export " + n + "=" + *q + ";\n";
    case Shell::kFish: return "set -gx " + n + " " + *q + ";\n";
    case Shell::kPwsh: return "$env:" + n + " = " + *q + "\n";
    case Shell::kCmd: return "set \"" + n + "=" + *q + "\"\n";
  }
  return std::string();
}

std::string shell_comment(Shell shell, std::string_view fixed, std::string_view foreign) {
  if (shell == Shell::kCmd) {
    // cmd expands %VAR% and reads ^ even in a REM line: machine text appears only when it is
    // plain (letters, digits, space and . _ + - : / \ ( ) = ,), else not at all.
    bool plain = true;
    for (char c : foreign) {
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                std::string_view(" ._+-:/\\()=,").find(c) != std::string_view::npos;
      plain = plain && ok;
    }
    return "REM " + terminal_safe(fixed) + (plain ? std::string(foreign) : std::string("(a path not shown)")) + "\n";
  }
  std::string text = terminal_safe(fixed);
  if (!foreign.empty()) text += terminal_safe(foreign);
  return "# " + text + "\n";
}

}  // namespace cudnnup
