// cudnnup: install, switch, diagnose and verify NVIDIA cuDNN.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string_view>

#include "app/cli/cli_definition.h"
#include "app/cli/exit_codes.h"
#include "app/cli/terminal_stream.h"
#include "app/cli/usage_errors.h"
#include "app/cli/version_info.h"
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

// `cudnnup __child ...`: the hidden entry point of the child processes (app/child/cmd_child.cc).
bool is_child_entry(std::string_view first_word) { return first_word.starts_with("__"); }

int run(int argc, char** argv, AppContext& ctx) {
  prepare_console();
  CLI::App app{kProgramHelp, "cudnnup"};
  GlobalArgs global;
  CommandAction action;
  std::vector<std::string> args = command_line_arguments(argc, argv);  // UTF-8 on every OS
  std::vector<char*> arg_ptrs;
  for (auto& a : args) arg_ptrs.push_back(a.data());
  const std::vector<std::string> words(args.begin() + (args.empty() ? 0 : 1), args.end());
  define_cli(app, global, action, &words);
  try {
    app.parse(static_cast<int>(arg_ptrs.size()), arg_ptrs.data());
  } catch (const CLI::Success& e) {  // --help
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  } catch (const CLI::ParseError& e) {
    UsageProblem p = explain_parse_error(app, words, e);
    ctx.options.json = json_requested(words);  // the options were not read: a usage error in JSON mode is JSON
    ctx.command = p.command;
    return report_error(ctx, p.error, kExitUsage, p.suggestions);
  }
  const CLI::App* command = chosen_command(app);
  ctx.command = command_path(command);
  if (auto empty = empty_value(app, command)) {
    ctx.options.json = json_requested(words);
    return report_error(ctx, empty->error, kExitUsage);
  }
  auto options = resolve_global_options(global, command);
  if (!options) {
    ctx.options.json = json_requested(words);
    return report_error(ctx, options.error());
  }
  ctx.options = *options;
  ctx.fs = make_real_filesystem();
  ctx.env = current_environment();
  ctx.color = use_color(ctx.options.color, ctx.options.format, ctx.env.get("NO_COLOR"), ctx.env.get("TERM"),
                        stdout_is_terminal());
  const bool child = args.size() >= 2 && is_child_entry(args[1]);
  // Text reaches the terminal through the control-character filter; JSON, the other
  // machine-readable formats (prometheus, nfd) and the child protocol are safe by construction
  // and pass as they are: the filter's escapes would change their bytes and break their syntax.
  TerminalStreams streams(/*filter_stdout=*/ctx.options.format == OutputFormat::kText && !child);
  if (global.version) return print_version(ctx);
  // A shell the user named but cudnnup cannot write for is an error, not a guess.
  if (auto named = named_user_shell(ctx.options.shell, ctx.env); !named) {
    return report_error(ctx, named.error());
  } else {
    ctx.named_shell = *named;
  }
  if (!action) {
    UsageProblem p = missing_command(command ? *command : app);
    return report_error(ctx, p.error, kExitUsage);
  }
  // A cudnnup killed mid-change left a journal, temporary files or a half-made link: finish or
  // roll it back before anything else looks at the store (ARCHITECTURE: "repairs leftovers on
  // its next start"), so every command sees one consistent store. Probe children skip this:
  // they only load a library and must stay cheap.
  if (!child) recover_at_start(ctx);
  int rc = action(ctx);
  std::fflush(stdout);
  return rc;
}

// Ends the process without the destructors of static objects and the exit handlers. Everything
// cudnnup writes is closed, and every lock released, inside run() (the files, locks and threads
// belong to its scopes; only the helper thread, platform/helper_thread.h, outlives it, idle), so
// what is skipped is clean-up that the end of the process does anyway: mimalloc collecting every
// heap and unmapping its segments, libcurl's and OpenSSL's global clean-up, the destructors of
// tables about to vanish. That was 0.3-1 ms of a ~15 ms `doctor --json` on the build machine
// (docs/benchmarks.md, 2026-12-07, stop 40). The standard streams are flushed first; a write
// error there is ignored, as at a normal exit. Not for `cudnnup __child`: a child that loaded
// NVIDIA libraries ends as the lean cudnnup-child does, through their exit handlers, so that both
// report a library that crashes there alike.
[[noreturn]] void leave(int rc) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(rc);
}

}  // namespace

int main(int argc, char** argv) {
  AppContext ctx;
  int rc;
  try {
    rc = run(argc, argv, ctx);
  } catch (const std::exception& e) {
    rc = internal_error(ctx, e.what());
  } catch (...) {
    rc = internal_error(ctx, "an exception of unknown type");
  }
  if (argc >= 2 && is_child_entry(argv[1])) return rc;
  leave(rc);
}
