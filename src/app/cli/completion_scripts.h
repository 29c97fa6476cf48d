// Shell completion scripts generated from the command line's definition (cli_model.h):
// `cudnnup completions bash|zsh|fish|powershell`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/cli/cli_model.h"

namespace cudnnup {

enum class CompletionShell { kBash, kZsh, kFish, kPowerShell };

std::vector<std::string> completion_shell_names();  // bash, zsh, fish, powershell
std::optional<CompletionShell> parse_completion_shell(const std::string& name);

// `program` is the command name the script completes ("cudnnup").
std::string completion_script(const CommandSpec& cli, CompletionShell shell, const std::string& program);

}  // namespace cudnnup
