// `cudnnup use VERSION` (global default), `use --local VERSION` (pin file in this directory),
// `use --undo` (revert the last change) and `use --history` (the change log).
#include <nlohmann/json.hpp>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"
#include "app/commands/store_access.h"
#include "base/paths.h"
#include "store/use_change.h"
#include "base/json_text.h"

namespace cudnnup {
namespace {

using nlohmann::json;

struct UseOptions {
  std::string spec;
  bool local = false;
  bool undo = false;
  bool history = false;
};

json entry_json(const HistoryEntry& e) {
  json j = {{"seq", e.seq}, {"time", e.time}, {"action", e.action},
            {"from", e.from ? json(*e.from) : json(nullptr)}, {"to", e.to ? json(*e.to) : json(nullptr)}};
  if (!e.path.empty()) j["path"] = e.path;
  if (e.undoes) j["undoes"] = e.undoes;
  return j;
}

std::string describe_entry(const HistoryEntry& e) {
  auto show = [](const std::optional<std::string>& v) { return v ? *v : std::string("(none)"); };
  std::string what = e.action == "use-local" ? "pin " + e.path : e.action == "undo" ? "undo #" + std::to_string(e.undoes)
                                                                                      : std::string("global default");
  if (e.action == "undo" && !e.path.empty()) what += " (pin " + e.path + ")";
  return "#" + std::to_string(e.seq) + "  " + e.time + "  " + what + ": " + show(e.from) + " -> " + show(e.to);
}

// Environment-only mode: the default is recorded and env/exec follow it, but `current` did not move.
void print_link_problem(const std::string& problem) {
  if (problem.empty()) return;
  std::cerr << "cudnnup: warning: the `current` link was not updated (" << problem
            << "); `cudnnup env` and `cudnnup exec` use the new default, tools that read the link do not\n";
}

void print_repairs(const AppContext& ctx, const std::vector<std::string>& repairs) {
  if (ctx.options.json) return;
  for (const auto& r : repairs) std::cerr << "cudnnup: " << r << "\n";
}

// Tells the user when the change they just made is not what applies here.
std::optional<SelectionRequest> override_here(const AppContext& ctx, const StoreSnapshot& store, SelectionSource made) {
  auto request = selection_request(ctx, store);
  if (!request || request->source == made || request->source == SelectionSource::kNone) return std::nullopt;
  if (made == SelectionSource::kPinFile && request->source == SelectionSource::kGlobal) return std::nullopt;
  return *request;
}

int run_history(AppContext& ctx) {
  auto store = read_store(ctx);
  if (!store) return report_error(ctx, store.error());
  if (ctx.options.json) {
    json out = {{"schema", "cudnnup.use/1"}, {"global", store->state.global ? json(*store->state.global) : json(nullptr)}, {"history", json::array()}};
    for (const auto& e : store->state.history) out["history"].push_back(entry_json(e));
    std::cout << dump_json(out, 2) << std::endl;
    return kExitOk;
  }
  if (store->state.history.empty()) std::cout << "No changes recorded yet.\n";
  for (const auto& e : store->state.history) std::cout << describe_entry(e) << "\n";
  if (const auto* next = store->state.last_undoable()) {
    std::cout << "`cudnnup use --undo` would revert #" << next->seq << ".\n";
  }
  return kExitOk;
}

int run_undo(AppContext& ctx) {
  auto locked = lock_store(ctx);
  if (!locked) return report_error(ctx, locked.error());
  print_repairs(ctx, locked->repairs);
  StoreSnapshot& store = locked->store;
  std::string link_problem;
  auto undone = undo_last_change(*ctx.fs, store.layout, store.state, store.installed, utc_now_iso(), &link_problem);
  if (!undone) return report_error(ctx, undone.error());
  if (ctx.options.json) {
    json out = entry_json(*undone);
    out["schema"] = "cudnnup.use/1";
    out["repairs"] = locked->repairs;
    out["link_problem"] = link_problem.empty() ? json(nullptr) : json(link_problem);
    std::cout << dump_json(out, 2) << std::endl;
  } else {
    std::cout << "Reverted change #" << undone->undoes << ": " << describe_entry(*undone) << "\n";
    print_link_problem(link_problem);
  }
  return kExitOk;
}

int run_use(AppContext& ctx, const UseOptions& opt) {
  if (opt.history) return run_history(ctx);
  if (opt.undo) {
    if (!opt.spec.empty() || opt.local) {
      return report_error(ctx, make_error(ErrorCode::kUsage, "--undo takes no VERSION and no --local; it reverts the last change"));
    }
    return run_undo(ctx);
  }
  if (opt.spec.empty()) {
    return report_error(ctx, make_error(ErrorCode::kUsage,
                                        "say which version: `cudnnup use 9.19` (global), `cudnnup use --local 9.19` "
                                        "(this directory), or `cudnnup use --undo`"));
  }
  auto spec = VersionSpec::parse(opt.spec);
  if (!spec) return report_error(ctx, spec.error());

  // Check before taking the lock, so a bad or uninstalled version leaves the disk untouched
  // (taking the lock creates the store dir and its lock file); checked again under the lock.
  if (auto peek = read_store(ctx); !peek) {
    return report_error(ctx, peek.error());
  } else if (auto id = resolve_spec(*spec, peek->installed); !id) {
    return report_error(ctx, id.error());
  }
  auto locked = lock_store(ctx);
  if (!locked) return report_error(ctx, locked.error());
  print_repairs(ctx, locked->repairs);
  StoreSnapshot& store = locked->store;
  auto id = resolve_spec(*spec, store.installed);
  if (!id) return report_error(ctx, id.error());

  json out;
  std::string text;
  std::string link_problem;
  SelectionSource made;
  if (opt.local) {
    std::string pin = paths::join(ctx.env.cwd, kPinFileName);
    if (auto s = set_pin_file(*ctx.fs, store.layout, store.state, pin, spec->text, utc_now_iso()); !s) {
      return report_error(ctx, s.error());
    }
    made = SelectionSource::kPinFile;
    out = {{"scope", "local"}, {"pin_file", pin}, {"spec", spec->text}, {"version", id->id}};
    text = "Wrote " + shown_path(ctx, pin) + " (" + spec->text + "): cuDNN " + id->id +
           " is selected in this directory and below.\n";
  } else {
    std::optional<std::string> previous = store.state.global;
    if (auto s = set_global_default(*ctx.fs, store.layout, store.state, id->id, utc_now_iso(), &link_problem); !s) {
      return report_error(ctx, s.error());
    }
    made = SelectionSource::kGlobal;
    out = {{"scope", "global"}, {"version", id->id}, {"previous", previous ? json(*previous) : json(nullptr)},
           {"current_link", store.layout.current_link()}};
    text = "cuDNN " + id->id + " is now the global default (" + shown_path(ctx, store.layout.current_link()) + " -> " +
           shown_path(ctx, store.layout.version_dir(id->id)) + ").\n";
  }
  out["schema"] = "cudnnup.use/1";
  out["seq"] = store.state.history.back().seq;
  out["repairs"] = locked->repairs;
  out["link_problem"] = link_problem.empty() ? json(nullptr) : json(link_problem);
  auto over = override_here(ctx, store, made);
  out["overridden_by"] = over ? json{{"source", selection_source_name(over->source)}, {"origin", over->origin}, {"spec", over->spec}}
                              : json(nullptr);
  if (ctx.options.json) {
    std::cout << dump_json(out, 2) << std::endl;
  } else {
    std::cout << text;
    print_link_problem(link_problem);
    if (over) std::cout << "Note: here it is overridden: " << over->spec << " is " << over->describe() << ".\n";
    std::cout << "Undo with `cudnnup use --undo`.\n";
  }
  return kExitOk;
}

}  // namespace

void add_use_command(CLI::App& app, CommandAction& action) {
  static UseOptions opt;
  auto* cmd = app.add_subcommand("use", "Choose the cuDNN version: globally, or for this directory with --local");
  cmd->footer(
      "VERSION may be partial and picks the highest installed match: 9, 9.1, 9.1.0.70, +cuda12, 9.1+cuda12.\n"
      "Which version applies (first wins): `cudnnup exec --version`, $CUDNNUP_VERSION, the nearest\n"
      ".cudnn-version file from here up, the global default. See it with `cudnnup current`.\n"
      "Every change is logged: `cudnnup use --history`, and `cudnnup use --undo` reverts the last one.\n"
      "Exit codes: 0 done, 2 bad or uninstalled version, 4 store locked or changed by hand.\n"
      "Examples:\n  cudnnup use 9.19\n  cudnnup use --local 8.9+cuda12\n  cudnnup use --undo");
  cmd->add_option("VERSION", opt.spec, "Version spec (9, 9.1, 9.1.0.70, +cuda12, 9.1+cuda12)");
  cmd->add_flag("--local", opt.local, "Write ./.cudnn-version instead of the global default");
  cmd->add_flag("--undo", opt.undo, "Revert the last change (global default or pin file)");
  cmd->add_flag("--history", opt.history, "Show the change log");
  cmd->callback([&action] { action = [](AppContext& ctx) { return run_use(ctx, opt); }; });
}

}  // namespace cudnnup
