// The one renderer of fix steps (base/fix.h) as text for a shell: each word of a command quoted
// only when it needs it, through shell/shell_quote.h; environment changes through shell_assign;
// notes as comments that cannot end early. doctor, verify and explain print fixes through it,
// as text and in JSON's "fix" arrays.
#pragma once

#include <string>
#include <vector>

#include "base/fix.h"
#include "base/result.h"
#include "shell/shell_env.h"  // Shell

namespace cudnnup {

// The shell fixes are written for when the user did not name one: bash on Linux; cmd on Windows
// (the catalogue's Windows steps are cmd lines). The user's own shell is not detected yet.
Shell default_fix_shell(bool windows);

// One step as one line; kUsage error when a word cannot be written for this shell (a line break
// in a path, a '%' for cmd) or the shell cannot do what the step needs.
Result<std::string> render_fix_step(const FixStep& step, Shell shell);

// Every step, in order; a step that cannot be written becomes a sentence saying why.
std::vector<std::string> render_fix(const std::vector<FixStep>& steps, Shell shell);

// A command's words for this shell, quoted where needed (no note): "cudnnup which --for torch".
Result<std::string> render_words(const std::vector<std::string>& argv, Shell shell);

}  // namespace cudnnup
