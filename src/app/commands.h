// Each command lives in its own cmd_<name>.cc and adds itself to the CLI here.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "app/app_context.h"

namespace cudnnup {

// The command that was chosen sets this; main() runs it after parsing.
using CommandAction = std::function<int(AppContext&)>;

void add_doctor_command(CLI::App& app, CommandAction& action);
void add_explain_command(CLI::App& app, CommandAction& action);
void add_probe_command(CLI::App& app, CommandAction& action);  // hidden: the child side of probes
void add_which_command(CLI::App& app, CommandAction& action);

}  // namespace cudnnup
