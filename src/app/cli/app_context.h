// What every command gets: global options, the machine (filesystem, environment) and output.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/cli/output_format.h"
#include "base/environment.h"
#include "base/filesystem.h"
#include "base/result.h"
#include "shell/user_shell.h"

namespace cudnnup {

struct GlobalOptions {
  OutputFormat format = OutputFormat::kText;  // --format (cli_definition.cc)
  bool json = false;                          // format == kJson: set with it, once, after parsing
  ColorChoice color = ColorChoice::kAuto;     // --color, --no-color
  bool quiet = false;
  std::string db_path;  // --db FILE overrides the embedded rules
  std::string shell;    // --shell SHELL: the shell printed commands are written for ("" = choose)
};

struct AppContext {
  GlobalOptions options;
  std::unique_ptr<FileSystem> fs;
  Environment env;
  bool color = false;   // decided once (use_color): --color, NO_COLOR, TERM, a terminal, not JSON
  std::string command;  // the command that runs ("doctor", "cache clean"), for error documents
  // The shell the user named (--shell, CUDNNUP_SHELL), checked at start; else guessed from the
  // parent processes the first time a command is printed (fix_shell()).
  std::optional<UserShell> named_shell;
  mutable std::optional<UserShell> guessed_shell;
};

// The shell every command cudnnup prints is written for (shell/user_shell.h): the one the user
// named, else the one it was started from.
const UserShell& user_shell(const AppContext& ctx);
inline Shell fix_shell(const AppContext& ctx) { return user_shell(ctx).shell; }

// Prints an error the same way for every command (text on stderr, or the JSON error document
// `cudnnup.error/1` on stdout) and returns kExitUsage or the code that fits the error. The
// error's fix steps follow its message, written for the user's shell (JSON: "fix",
// "fix_commands", "fix_steps").
int report_error(const AppContext& ctx, const Error& error);

// The same with a chosen exit code (exec: 126, 127), "did you mean" words, and notes: choices made
// for the user before the failure (install's assumed --cuda). Text mode has printed the notes
// already when they were made, so only the JSON document carries them.
int report_error(const AppContext& ctx, const Error& error, int exit_code,
                 const std::vector<std::string>& suggestions = {}, const std::vector<std::string>& notes = {});

// The exit code that fits an error: 4 for a conflict, else 2.
int exit_code_for(const Error& error);

}  // namespace cudnnup
