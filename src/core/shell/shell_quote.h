// One escaper per shell: every piece of foreign text (a path, a version name, an environment
// value) that cudnnup prints as shell code goes through shell_quote, and every comment through
// shell_comment. What a shell cannot hold safely is refused, not printed:
//  * a line break (\n, \r) in a value, for every shell: the hooks eval the output line by line
//    and a refused path is better than a command run because of a directory name;
//  * NUL (no shell variable can hold it);
//  * cmd: '"', '%' and '!' (cmd expands %VAR% and !VAR! even inside quotes and cannot escape a
//    quote inside "set "NAME=value"") and other control characters.
// Comments never carry a line break either: shell_comment prints the text with control
// characters escaped (base/terminal_text.h); cmd comments show machine text only when it is
// plain (no % ^ & | < > " !), since cmd reads those even in a REM line.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "shell/shell_env.h"  // Shell

namespace cudnnup {

// A value as one word of shell code: 'a b' (bash, zsh), 'a\'b' (fish), 'a''b' (PowerShell),
// "a b" (cmd, inside set "NAME=..."; the caller writes the surrounding quotes: see shell_assign).
// kUsage error naming the text when the shell cannot hold it.
Result<std::string> shell_quote(Shell shell, std::string_view value);

// One argument of a command typed at cmd's prompt (or run by `cmd /c`), as the program gets it
// back through CommandLineToArgvW: in double quotes, where cmd reads & | < > ^ ( ) ' and spaces
// as text, with each % outside them: "C:\a&b\\"%"PATH"%"\it's". cmd expands %NAME% only
// for a defined NAME (at the prompt an undefined one stays as typed), and the name between two
// of these % always holds a quote, which no variable's name does; so nothing is expanded and
// no caret is needed. Backslashes before a closing quote are doubled for CommandLineToArgvW.
// ! is text unless delayed expansion is on (cmd /V:ON). Refused: '"' (no Windows path holds one;
// cmd cannot quote it), line breaks and other control characters.
Result<std::string> cmd_argument(std::string_view value);

// A whole line that sets (value) or unsets (nullopt) an environment variable.
// `name` must be a plain variable name (letters, digits, '_'), which cudnnup's own names are.
Result<std::string> shell_assign(Shell shell, std::string_view name, const std::optional<std::string>& value);

// A whole line that sets a shell variable of this shell only, not exported: `NAME='value';`
// (bash, zsh), `set -g NAME 'value';` (fish), `$global:NAME = 'value'` (PowerShell), and for cmd,
// which has no other kind, `set "NAME=value"`. `name` as for shell_assign.
Result<std::string> shell_set_variable(Shell shell, std::string_view name, const std::string& value);

// A comment line: "# text" ("REM text" for cmd), with the text made inert. `fixed` is cudnnup's
// own wording, `foreign` the machine text that follows it.
std::string shell_comment(Shell shell, std::string_view fixed, std::string_view foreign = {});

}  // namespace cudnnup
