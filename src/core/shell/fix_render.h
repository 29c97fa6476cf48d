// The one renderer of fix steps (base/fix_step.h) as text for a shell: each word of a command
// quoted only when it needs it, through shell/shell_quote.h; environment changes through
// shell_assign; notes as comments that cannot end early. Every command cudnnup prints for the
// user to run (doctor's, verify's and explain's fixes, an error's fix, "Undo with:" lines) is
// made here, for the user's shell (shell/user_shell.h), as text and in JSON's "fix" arrays.
//
// Per shell: bash/zsh '...' ('\'' for a quote), zsh notes as `: 'note'` (an interactive zsh
// reads # as a word); fish '...' with \' and \\; PowerShell '...' with '' (a quoted program
// through the call operator &, numbers and -words quoted so they reach the program as written);
// cmd "..." with each % outside the quotes behind a caret (shell/shell_quote.h cmd_argument).
// A cudnnup command whose output is shell code (`env`): eval "$(...)", `| source`,
// `| Out-String | Invoke-Expression`, and cmd's `for /f "delims=" %i in ('...') do @%i`.
// Shell code of another language runs through `sh -c` where that keeps its meaning, else the
// step is an error that says which shell it needs.
#pragma once

#include <string>
#include <vector>

#include "base/fix.h"
#include "base/result.h"
#include "shell/shell_env.h"  // Shell

namespace cudnnup {

// The usual shell of an OS, for text written for that OS rather than for this user (explain's
// per-OS fix lists in JSON): bash on Linux, cmd on Windows. The user's own shell is
// shell/user_shell.h's choice.
Shell default_fix_shell(bool windows);

// One step as one line; kUsage error when a word cannot be written for this shell (a line break
// in a path, a '%' for cmd) or the shell cannot do what the step needs.
Result<std::string> render_fix_step(const FixStep& step, Shell shell);

// Every step, in order; a step that cannot be written becomes a sentence saying why.
std::vector<std::string> render_fix(const std::vector<FixStep>& steps, Shell shell);

// A command's words for this shell, quoted where needed (no note): "cudnnup which --for torch".
Result<std::string> render_words(const std::vector<std::string>& argv, Shell shell);

// A command (program first) as one line for this shell, or, when a word cannot be written for it,
// a sentence in parentheses saying so: for commands that sit inside a message ("Undo with: ...").
std::string render_command_or_sentence(const std::vector<std::string>& argv, Shell shell);

}  // namespace cudnnup
