// `cudnnup current`: the selected cuDNN version here and why (like `pyenv version`).
#include <nlohmann/json.hpp>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"
#include "app/commands/store_access.h"
#include "shell/shell_env.h"
#include "base/json_text.h"

namespace cudnnup {
namespace {

using nlohmann::json;

// `system` applies: no store version, the machine's own copies.
int print_system(AppContext& ctx, const SelectionRequest& request, bool bare) {
  if (ctx.options.json) {
    json out = {{"schema", "cudnnup.current/1"}, {"kind", "system"}, {"version", nullptr}, {"spec", request.spec},
                {"source", selection_source_name(request.source)}, {"origin", request.origin}};
    std::cout << dump_json(out, 2) << std::endl;
  } else if (bare) {
    std::cout << kSystemSelection << "\n";
  } else {
    std::cout << kSystemSelection << " (" << request.describe() << ")\n  no cudnnup version: programs load this machine's own cuDNN "
              << "copies (`cudnnup which` says which)\n";
  }
  return kExitOk;
}

int run_current(AppContext& ctx, bool bare) {
  auto store = read_store(ctx);
  if (!store) return report_error(ctx, store.error());
  auto request = selection_request(ctx, *store);
  if (!request) return report_error(ctx, request.error());
  if (request->system()) return print_system(ctx, *request, bare);
  auto selection = resolve_request(*request, store->installed, store->layout);
  if (!selection) return report_error(ctx, selection.error());
  VersionDirs dirs = VersionDirs::of(selection->dir, ctx.env.windows());
  if (ctx.options.json) {
    json out = {{"schema", "cudnnup.current/1"},
                {"kind", "version"},
                {"version", selection->id.id},
                {"cudnn_version", selection->id.version.str()},
                {"cuda_major", selection->id.cuda_major},
                {"spec", selection->request.spec},
                {"source", selection_source_name(selection->request.source)},
                {"origin", selection->request.origin},
                {"dir", selection->dir},
                {"lib_dir", dirs.loader_dir()},
                {"include_dir", dirs.include}};
    std::cout << dump_json(out, 2) << std::endl;
  } else if (bare) {
    std::cout << selection->id.id << "\n";
  } else {
    std::cout << selection->id.id << " (" << selection->request.describe();
    if (selection->request.spec != selection->id.id) std::cout << ", which asks for " << selection->request.spec;
    std::cout << ")\n  " << shown_path(ctx, selection->dir) << "\n";
  }
  return kExitOk;
}

}  // namespace

void add_current_command(CLI::App& app, CommandAction& action) {
  static bool bare = false;
  auto* cmd = app.add_subcommand("current", "Show the selected cuDNN version and what selected it");
  cmd->footer(
      "Precedence, first wins: $CUDNNUP_VERSION, the nearest .cudnn-version file from the working\n"
      "directory up, the global default (`cudnnup use VERSION`). Any of them may say system: no cudnnup\n"
      "version, this machine's own copies (`cudnnup use system`); --bare then prints `system`.\n"
      "Exit codes: 0 a version (or system) is selected and installed; 2 nothing selected, the selected\n"
      "version is not installed, or a pin file cannot be read (the message names it).\n"
      "Examples:\n  cudnnup current\n  cudnnup current --bare");
  cmd->add_flag("--bare", bare, "Print only the version id (for scripts)");
  cmd->callback([&action] { action = [](AppContext& ctx) { return run_current(ctx, bare); }; });
}

}  // namespace cudnnup
