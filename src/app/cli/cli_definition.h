// The whole command line in one place: the program, its global options (accepted before or
// after the command and shown in every command's --help), and every command. main() parses
// with it; `cudnnup completions` and the tests read it back (cli_model.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "app/cli/app_context.h"
#include "app/cli/commands.h"

namespace cudnnup {

// The global options as parsed, before they are checked and turned into GlobalOptions.
struct GlobalArgs {
  std::string format;  // --format; "" when not given
  bool json = false;   // --json, the alias of --format json
  std::string color;   // --color; "" when not given
  bool no_color = false;
  bool quiet = false;
  std::string db_path;
  std::string shell;     // --shell; "" when not given
  bool version = false;  // --version
};

// The program's description, shown by `cudnnup --help`.
extern const char* const kProgramHelp;

// Adds the global options, then the commands, then the global options again to every command
// added (so `cudnnup doctor --json` works and `cudnnup doctor --help` lists them). Given the
// command line's words (without the program), only the command they name is added: the command
// line cannot reach another, and the other twenty were half of a start that only parses. Without
// words (completions, tests), or when the words name no command or `completions`, every command
// is added.
void define_cli(CLI::App& app, GlobalArgs& args, CommandAction& action, const std::vector<std::string>* words = nullptr);

// Every top-level command's name, in `cudnnup --help` order (the hidden __child among them).
std::vector<std::string> command_names();

// The top-level command the words name: the first that is neither an option nor the value of a
// global option given before it ("--format json doctor" names doctor); "" when there is none.
// Which global options take a value is read from `app`, which holds them.
std::string named_command(const std::vector<std::string>& words, const CLI::App& app);

// Checks the global options (a --format that is not offered by `command`, --json with another
// --format, --no-color with --color always) and returns what every command reads.
Result<GlobalOptions> resolve_global_options(const GlobalArgs& args, const CLI::App* command);

// The command that was chosen, as its path ("doctor", "cache clean"), or nullptr / "".
const CLI::App* chosen_command(const CLI::App& app);
std::string command_path(const CLI::App* command);

}  // namespace cudnnup
