// Each command lives in its own cmd_<name>.cc and adds itself to the CLI here.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "app/cli/app_context.h"

namespace cudnnup {

// The command that was chosen sets this; main() runs it after parsing.
using CommandAction = std::function<int(AppContext&)>;

void add_doctor_command(CLI::App& app, CommandAction& action);
void add_explain_command(CLI::App& app, CommandAction& action);
void add_child_command(CLI::App& app, CommandAction& action);  // hidden: __child, every child process
void add_which_command(CLI::App& app, CommandAction& action);
// Versions side by side (docs/commands/versions.md).
void add_list_command(CLI::App& app, CommandAction& action);
void add_use_command(CLI::App& app, CommandAction& action);
void add_current_command(CLI::App& app, CommandAction& action);
void add_env_command(CLI::App& app, CommandAction& action);
void add_exec_command(CLI::App& app, CommandAction& action);
void add_init_command(CLI::App& app, CommandAction& action);
void add_link_command(CLI::App& app, CommandAction& action);
void add_archive_info_command(CLI::App& app, CommandAction& action);
void add_install_command(CLI::App& app, CommandAction& action);
void add_uninstall_command(CLI::App& app, CommandAction& action);
void add_cache_command(CLI::App& app, CommandAction& action);        // cache clean
void add_completions_command(CLI::App& app, CommandAction& action);  // reads the whole CLI (cli_model.h)
void add_verify_command(CLI::App& app, CommandAction& action);
// cudnn.lock: write it, compare the machine with it (docs/commands/lock.md, check.md).
void add_lock_command(CLI::App& app, CommandAction& action);
void add_check_command(CLI::App& app, CommandAction& action);
void add_bench_command(CLI::App& app, CommandAction& action);
void add_fleet_command(CLI::App& app, CommandAction& action);  // many hosts' doctor reports

}  // namespace cudnnup
