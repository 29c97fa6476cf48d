// `cudnnup env --shell SHELL`: shell code that makes the selected version the one programs load
// and build against. `eval "$(cudnnup env --shell bash)"`.
#include <nlohmann/json.hpp>
#include <iostream>

#include "app/cli/commands.h"
#include "app/commands/env_persist.h"
#include "app/cli/exit_codes.h"
#include "app/cli/help_words.h"
#include "app/cli/terminal_stream.h"
#include "app/commands/store_access.h"
#include "shell/shell_env.h"
#include "shell/shell_quote.h"
#include "base/json_text.h"

namespace cudnnup {
namespace {

using nlohmann::json;

struct EnvOptions {
  std::string shell;
  std::string version;
  bool hook = false;     // called by the `cudnnup init` hook: no selection is not an error
  std::string previous;  // with --hook: the version the hook applied last ("" for none)
  bool persist = false;
  bool unpersist = false;
  bool dry_run = false;
  std::string dir;       // with --persist: this folder instead of the selected version's
};

// The hook's one line on stderr per change of what applies, unless CUDNNUP_HOOK_QUIET or -q.
void announce(const AppContext& ctx, const std::string& line) {
  auto quiet = ctx.env.get(kHookQuietVar);
  if (ctx.options.quiet || (quiet && !quiet->empty() && *quiet != "0")) return;
  std::cerr << "cudnnup: " << line << std::endl;
}

// The bash, zsh and fish hooks save and restore the variables themselves (cmd_init.cc) and keep
// the version they applied in a shell variable; PowerShell's hook only applies.
bool hook_tracks_versions(Shell shell) { return shell == Shell::kBash || shell == Shell::kZsh || shell == Shell::kFish; }

// `system` applies (no store version): the store's directories taken out of the variables.
int print_system_env(AppContext& ctx, const StoreSnapshot& store, const SelectionRequest& request, Shell shell) {
  EnvPlan plan = system_environment_for(ctx, store);
  if (ctx.options.json) {
    json vars = json::object();
    for (const auto& c : plan.changes) vars[c.name] = c.value ? json(*c.value) : json(nullptr);
    json out = {{"schema", "cudnnup.env/1"}, {"kind", "system"}, {"version", nullptr},
                {"source", selection_source_name(request.source)}, {"origin", request.origin},
                {"variables", vars}, {"removed", plan.removed}, {"notes", plan.notes}};
    std::cout << dump_json(out, 2) << std::endl;
    return kExitOk;
  }
  RenderOptions render;
  render.header = "cuDNN system: this machine's own copies, no cudnnup version ";
  render.header_detail = "(" + request.describe() + ")";
  auto code = render_environment(plan, shell, render);
  if (!code) return report_error(ctx, code.error());
  write_raw_stdout(*code);
  return kExitOk;
}

// `env --hook`: assignments only (no comments), led for the tracking hooks by the applied
// version in _CUDNNUP_ACTIVE; nothing at all when no store version applies, which tells those
// hooks to put the user's own values back. One line on stderr when what applies changed.
int print_hook_env(AppContext& ctx, const StoreSnapshot& store, const SelectionRequest& request, Shell shell,
                   const std::string& previous) {
  if (request.source == SelectionSource::kNone || request.system()) {
    if (!previous.empty()) {
      announce(ctx, std::string("cuDNN back to this machine's own copies") +
                        (request.system() ? " (system, " + request.short_origin() + ")" : ""));
    }
    return kExitOk;
  }
  auto selection = resolve_request(request, store.installed, store.layout);
  if (!selection) return report_error(ctx, selection.error());
  EnvPlan plan = environment_for(ctx, store, *selection);
  RenderOptions render;
  render.comments = false;
  auto code = render_environment(plan, shell, render);
  if (!code) return report_error(ctx, code.error());
  std::string text = *code;
  if (hook_tracks_versions(shell)) {
    auto marker = shell_set_variable(shell, kHookActiveVar, selection->id.id);
    if (!marker) return report_error(ctx, marker.error());
    text = *marker + text;
  }
  write_raw_stdout(text);
  if (hook_tracks_versions(shell) && previous != selection->id.id) {
    announce(ctx, "cuDNN " + selection->id.id + " (" + request.short_origin() + ")");
  }
  return kExitOk;
}

int run_env(AppContext& ctx, const EnvOptions& opt) {
  if (opt.persist || opt.unpersist) {
    PersistOptions p{opt.persist, opt.unpersist, opt.dry_run, std::nullopt, std::nullopt};
    if (!opt.version.empty()) p.version = opt.version;
    if (!opt.dir.empty()) p.dir = opt.dir;
    return run_env_persist(ctx, p);
  }
  if (opt.dry_run) return report_error(ctx, make_error(ErrorCode::kUsage, "--dry-run goes with --persist or --unpersist"));
  if (!opt.dir.empty()) return report_error(ctx, make_error(ErrorCode::kUsage, "--dir goes with --persist"));
  if (!opt.previous.empty() && !opt.hook) return report_error(ctx, make_error(ErrorCode::kUsage, "--previous goes with --hook"));
  // Its own --shell, else a shell the user named (cudnnup --shell, CUDNNUP_SHELL), else the OS's
  // usual one: never a guess from the parent processes, so scripts that read it get what they got.
  std::string fallback = ctx.named_shell ? shell_name(ctx.named_shell->shell) : ctx.env.windows() ? "pwsh" : "bash";
  std::string shell_text = opt.shell.empty() ? fallback : opt.shell;
  auto shell = parse_shell(shell_text);
  if (!shell) {
    return report_error(ctx, make_error(ErrorCode::kUsage, "unknown shell '" + shell_text +
                                                               "'; use one of bash, zsh, fish, pwsh, cmd"));
  }
  auto store = read_store(ctx);
  if (!store) return report_error(ctx, store.error());
  std::optional<std::string> command_line;
  if (!opt.version.empty()) command_line = opt.version;
  auto request = selection_request(ctx, *store, command_line);
  if (!request) return report_error(ctx, request.error());
  if (opt.hook && !ctx.options.json) return print_hook_env(ctx, *store, *request, *shell, opt.previous);
  if (request->system()) return print_system_env(ctx, *store, *request, *shell);
  auto selection = resolve_request(*request, store->installed, store->layout);
  if (!selection) return report_error(ctx, selection.error());
  EnvPlan plan = environment_for(ctx, *store, *selection);
  if (ctx.options.json) {
    json vars = json::object();
    for (const auto& c : plan.changes) vars[c.name] = c.value ? json(*c.value) : json(nullptr);
    json out = {{"schema", "cudnnup.env/1"},
                {"kind", "version"},
                {"version", selection->id.id},
                {"source", selection_source_name(selection->request.source)},
                {"origin", selection->request.origin},
                {"variables", vars},
                {"removed", plan.removed},
                {"notes", plan.notes}};
    std::cout << dump_json(out, 2) << std::endl;
    return kExitOk;
  }
  // Shell code is written byte for byte (the terminal filter would change what a value holds):
  // its safety is the escaper's (shell/shell_quote.h).
  RenderOptions render;
  render.header = "cuDNN ";
  render.header_detail = selection->id.id + " (" + selection->request.describe() + ")";
  auto code = render_environment(plan, *shell, render);
  if (!code) return report_error(ctx, code.error());
  write_raw_stdout(*code);
  return kExitOk;
}

}  // namespace

void add_env_command(CLI::App& app, CommandAction& action) {
  static EnvOptions opt;
  auto* cmd = app.add_subcommand("env", "Print shell code that puts the selected cuDNN first and hides other copies");
  cmd->footer(
      "Sets " + help_words().env_variables + " with the selected\n"
      "version's dirs first, drops dirs that hold only other cuDNN copies (other store versions,\n"
      "anything with libcudnn files and nothing else), and sets CUDNN_PATH and CUDNN_HOME.\n"
      "Dirs that hold another cuDNN next to other libraries (a CUDA toolkit's lib64) are kept after\n"
      "the selected dir, with a comment saying so.\n"
      "Under system (`cudnnup use system`) it takes only the store's dirs out and unsets CUDNN_PATH and\n"
      "CUDNN_HOME where they name a store version; the `cudnnup init` hook instead puts back the values\n"
      "it saved. Under --hook one line on stderr says what applies when it changed, unless\n"
      "CUDNNUP_HOOK_QUIET=1.\n"
      "--persist (Windows): puts the selected version's bin dir first in your user PATH in the registry\n"
      "(HKCU\\Environment\\Path, REG_EXPAND_SZ; every other entry kept as written, an earlier cudnnup\n"
      "entry replaced, no 1024-character cut as with setx), then tells Windows (WM_SETTINGCHANGE).\n"
      "Programs already running keep their old PATH. --unpersist takes cudnnup's entries out again;\n"
      "--dry-run shows the old and new value and writes nothing. --persist --dir DIR puts DIR (a cuDNN bin\n"
      "folder outside the store, such as a CUDA toolkit's bin) first instead, leaving cudnnup's entries\n"
      "as they are; --unpersist does not remove it. On Linux use `cudnnup init` instead.\n"
      "Exit codes: 0 printed / written; 2 nothing selected, not installed, unreadable pin file, bad shell,\n"
      "--persist off Windows, registry error.\n"
      "Examples:\n"
      "  eval \"$(cudnnup env --shell bash)\"\n"
      "  eval \"$(cudnnup env --shell bash --version system)\"\n"
      "  cudnnup env --shell fish | source\n"
      "  cudnnup env --shell pwsh | Out-String | Invoke-Expression\n"
      "  cudnnup env --shell cmd > %TEMP%\\cudnn.cmd && %TEMP%\\cudnn.cmd\n"
      "  for /f \"delims=\" %i in ('cudnnup env --shell cmd') do @%i\n"
      "  cudnnup env --persist --dry-run\n"
      "  cudnnup env --persist --dir \"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bin\"\n"
      "  cudnnup env --unpersist");
  cmd->add_option("--shell", opt.shell,
                  "bash, zsh, fish, pwsh or cmd (default: the one named by cudnnup --shell or CUDNNUP_SHELL, else "
                  "bash; pwsh on Windows)")
      ->check(CLI::IsMember(std::vector<std::string>{"bash", "zsh", "fish", "pwsh", "cmd"}));
  cmd->add_option("--version", opt.version, "Use this version spec instead of the selection");
  cmd->add_flag("--hook", opt.hook,
                "For the `cudnnup init` hook: no comments; nothing at all (exit 0) when no version or system applies");
  cmd->add_option("--previous", opt.previous,
                  "With --hook: the version the hook applied last; one line on stderr when that changes");
  cmd->add_flag("--persist", opt.persist,
                "Windows: put the selected version's bin dir in your user PATH (registry) for every new program");
  cmd->add_flag("--unpersist", opt.unpersist, "Windows: remove cudnnup's entries from your user PATH (registry)");
  cmd->add_flag("--dry-run", opt.dry_run, "With --persist/--unpersist: show the old and new PATH, write nothing");
  cmd->add_option("--dir", opt.dir,
                  "With --persist (Windows): put this folder (a cuDNN bin folder outside the store) first instead")
      ->type_name("DIR");
  cmd->callback([&action] { action = [](AppContext& ctx) { return run_env(ctx, opt); }; });
}

}  // namespace cudnnup
