// `cudnnup exec [--version V] [--] COMMAND ARGS...`: runs COMMAND with the environment of
// `cudnnup env` for the selected (or given) version.
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"
#include "app/commands/store_access.h"
#include "platform/process.h"

namespace cudnnup {
namespace {

struct ExecOptions {
  std::string version;
  std::vector<std::string> command;
};

int run_exec(AppContext& ctx, const ExecOptions& opt) {
  if (opt.command.empty()) {
    return report_error(ctx, make_error(ErrorCode::kUsage, "say what to run: `cudnnup exec python train.py`"));
  }
  auto store = read_store(ctx);
  if (!store) return report_error(ctx, store.error());
  std::optional<std::string> command_line;
  if (!opt.version.empty()) command_line = opt.version;
  auto request = selection_request(ctx, *store, command_line);
  if (!request) return report_error(ctx, request.error());
  EnvPlan plan;
  if (request->system()) {
    plan = system_environment_for(ctx, *store);  // the machine's own copies: the store's dirs taken out
  } else {
    auto selection = resolve_request(*request, store->installed, store->layout);
    if (!selection) return report_error(ctx, selection.error());
    plan = environment_for(ctx, *store, *selection);
  }
  // The loader model's warnings (what a program would really load) go to stderr; the command's
  // own output stays untouched.
  for (const auto& n : plan.notes) {
    if (n.rfind("check: ", 0) == 0) std::cerr << "cudnnup: " << n << "\n";
  }
  auto vars = apply_environment(ctx.env, plan);
  std::cout.flush();
  Error error = exec_process(opt.command, vars);  // returns only when COMMAND could not start
  // Like a shell: 127 when there is no such command, 126 when it cannot be run.
  return report_error(ctx, error, error.code == ErrorCode::kNotFound ? kExitCommandNotFound : kExitCannotExecute);
}

}  // namespace

void add_exec_command(CLI::App& app, CommandAction& action) {
  static ExecOptions opt;
  auto* cmd = app.add_subcommand("exec", "Run a command with the selected cuDNN first in its library path");
  cmd->footer(
      "The command gets the environment `cudnnup env` prints. Without --version the usual selection\n"
      "applies ($CUDNNUP_VERSION, .cudnn-version, global default); `--version system` runs it on this\n"
      "machine's own copies, with the store's directories taken out. Everything from COMMAND on is the\n"
      "command's own, options included; `--` before it is optional. This is the way for scripts: the\n"
      "shell hook of `cudnnup init` acts at the prompt, not at a `cd` inside a script.\n"
      "Exit codes: the command's own; 2 when nothing is selected or the version is not installed;\n"
      "127 no such command, 126 it cannot be run (as a shell says).\n"
      "Examples:\n  cudnnup exec python train.py --epochs 3\n  cudnnup exec --version 8.9 -- ./legacy_app\n"
      "  cudnnup exec --version system -- python train.py");
  cmd->add_option("--version", opt.version, "Version spec to use instead of the selection (9.1, 8+cuda12)");
  cmd->add_option("COMMAND", opt.command, "The command and its arguments")->type_name("COMMAND");
  cmd->positionals_at_end();  // the first word of COMMAND ends cudnnup's options
  cmd->callback([&action] { action = [](AppContext& ctx) { return run_exec(ctx, opt); }; });
}

}  // namespace cudnnup
