// cudnnup: install, switch, diagnose and verify NVIDIA cuDNN.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"
#include "app/cli/terminal_stream.h"
#include "app/commands/recovery.h"
#include "base/terminal_text.h"
#include "platform/real_filesystem.h"
#include "platform/system.h"

using namespace cudnnup;

namespace {

// Anything that escapes a command is a bug in cudnnup, not bad input: input errors are values.
// Say so, ask for a report, and exit with the documented code instead of dying on a signal.
int internal_error(AppContext& ctx, const std::string& what) {
  std::fflush(stdout);
  return report_error(ctx, make_error(ErrorCode::kInternal,
                                      "internal error (" + terminal_safe(what) + "). This is a bug in cudnnup: please report it with "
                                      "the command you ran and `cudnnup --version`"));
}

int run(int argc, char** argv, AppContext& ctx) {
  prepare_console();
  CLI::App app{
      "cudnnup — install, switch, diagnose and verify NVIDIA cuDNN.\n\n"
      "Start with `cudnnup doctor`: it lists the driver, every CUDA toolkit and every cuDNN copy on\n"
      "this machine and says what is wrong and how to fix it. Exit codes: 0 ok, 1 problems found,\n"
      "2 usage or tool error, 3 no NVIDIA driver/GPU, 4 locked or conflicting (docs/exit-codes.md).",
      "cudnnup"};
  // CLI11 turns on "/option" parsing on Windows, which would read a path like "/tmp/x" or
  // "//server/share" as an option; cudnnup paths use '/' everywhere, so keep it off.
  app.allow_windows_style_options(false);
  app.require_subcommand(1);
  app.fallthrough();  // global flags (--json, --no-color, --db) may follow the command name
  app.set_version_flag("--version", std::string("cudnnup ") + CUDNNUP_VERSION);
  app.add_flag("--json", ctx.options.json, "Print machine-readable JSON (schema: docs/json-schema.md)");
  app.add_flag("--no-color", ctx.options.no_color, "Never colour the output (NO_COLOR is honoured too)");
  app.add_flag("-q,--quiet", ctx.options.quiet, "Print only problems");
  app.add_option("--db", ctx.options.db_path, "Use this rules file instead of the built-in one (data/rules.json format)");

  CommandAction action;
  add_doctor_command(app, action);
  add_explain_command(app, action);
  add_probe_command(app, action);
  add_which_command(app, action);
  add_list_command(app, action);
  add_use_command(app, action);
  add_current_command(app, action);
  add_env_command(app, action);
  add_exec_command(app, action);
  add_init_command(app, action);
  add_link_command(app, action);
  add_archive_info_command(app, action);
  add_install_command(app, action);
  add_uninstall_command(app, action);
  add_verify_command(app, action);
  add_bench_command(app, action);

  std::vector<std::string> args = command_line_arguments(argc, argv);  // UTF-8 on every OS
  std::vector<char*> arg_ptrs;
  for (auto& a : args) arg_ptrs.push_back(a.data());
  try {
    app.parse(static_cast<int>(arg_ptrs.size()), arg_ptrs.data());
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  ctx.fs = make_real_filesystem();
  ctx.env = current_environment();
  ctx.color = !ctx.options.json && !ctx.options.no_color && !ctx.env.get("NO_COLOR") && stdout_is_terminal();
  if (!action) return kExitUsage;
  const bool child = args.size() >= 2 && args[1].rfind("__", 0) == 0;
  TerminalStreams streams(/*filter_stdout=*/!ctx.options.json && !child);
  // A cudnnup killed mid-install left a journal: finish or roll it back before anything else
  // looks at the store (ARCHITECTURE: "repairs leftovers on its next start"). Probe children
  // skip this: they only load a library and must stay cheap.
  if (!child) recover_pending_transactions(ctx);
  int rc = action(ctx);
  std::fflush(stdout);
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  AppContext ctx;
  try {
    return run(argc, argv, ctx);
  } catch (const std::exception& e) {
    return internal_error(ctx, e.what());
  } catch (...) {
    return internal_error(ctx, "an exception of unknown type");
  }
}
