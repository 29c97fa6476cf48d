// `cudnnup use VERSION` (global default), `use --local VERSION` (pin file in this directory),
// `use --undo` (revert the last change) and `use --history` (the change log).
#include <nlohmann/json.hpp>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"
#include "app/commands/store_access.h"
#include "base/paths.h"
#include "store/current_link.h"
#include "store/toolkit_link.h"
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
  bool force = false;
};

// Toolkits linked to the store (`cudnnup link`) follow `current`: switching it to `version`
// (nullopt: no `current`) must not leave their links dangling, unless --force.
Status check_linked_toolkits(const AppContext& ctx, const StoreSnapshot& store, const std::optional<std::string>& version,
                             bool force) {
  auto dangling = links_that_would_dangle(*ctx.fs, store.layout, store.state, version);
  if (dangling.empty()) return ok_status();
  std::string list;
  for (size_t i = 0; i < dangling.size() && i < 8; ++i) list += "\n  " + dangling[i];
  if (dangling.size() > 8) list += "\n  ... and " + std::to_string(dangling.size() - 8) + " more";
  if (force) {
    std::cerr << "cudnnup: warning: these links of linked toolkits now dangle (--force):" << list << std::endl;
    return ok_status();
  }
  return make_error(ErrorCode::kConflict,
                    std::string(version ? "cuDNN " + *version + " lacks files" : "without a global default, `current` is gone and so are files") +
                        " that linked toolkits point to; these links would dangle:" + list +
                        "\nUndo the link first (`cudnnup link --undo --into CUDA_DIR`), or pass --force to switch anyway");
}

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
    json out = {{"schema", "cudnnup.use/1"}, {"kind", "history"},
                {"global", store->state.global ? json(*store->state.global) : json(nullptr)}, {"history", json::array()}};
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

int run_undo(AppContext& ctx, bool force) {
  auto locked = lock_store(ctx);
  if (!locked) return report_error(ctx, locked.error());
  print_repairs(ctx, locked->repairs);
  StoreSnapshot& store = locked->store;
  if (const HistoryEntry* last = store.state.last_undoable(); last && last->action == "use") {
    if (auto s = check_linked_toolkits(ctx, store, last->from, force); !s) return report_error(ctx, s.error());
  }
  std::string link_problem;
  auto undone = undo_last_change(*ctx.fs, store.layout, store.state, store.installed, utc_now_iso(), &link_problem);
  if (!undone) return report_error(ctx, undone.error());
  if (ctx.options.json) {
    json out = {{"schema", "cudnnup.use/1"}, {"kind", "undo"}};
    out.update(entry_json(*undone));
    out["repairs"] = locked->repairs;
    out["link_problem"] = link_problem.empty() ? json(nullptr) : json(link_problem);
    std::cout << dump_json(out, 2) << std::endl;
  } else {
    if (!ctx.options.quiet) std::cout << "Reverted change #" << undone->undoes << ": " << describe_entry(*undone) << "\n";
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
    return run_undo(ctx, opt.force);
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
  // Asking for what is already so changes nothing and adds no history entry (nothing to undo).
  bool changed = true;
  if (opt.local) {
    std::string pin = paths::join(ctx.env.cwd, kPinFileName);
    auto existing = ctx.fs->is_file(pin) ? read_pin_file(*ctx.fs, pin) : Result<std::string>(std::string());
    changed = !existing || *existing != spec->text;
    if (changed) {
      if (auto s = set_pin_file(*ctx.fs, store.layout, store.state, pin, spec->text, utc_now_iso()); !s) {
        return report_error(ctx, s.error());
      }
    }
    made = SelectionSource::kPinFile;
    out = {{"scope", "local"}, {"pin_file", pin}, {"spec", spec->text}, {"version", id->id}};
    text = changed ? "Wrote " + shown_path(ctx, pin) + " (" + spec->text + "): cuDNN " + id->id +
                         " is selected in this directory and below.\n"
                   : shown_path(ctx, pin) + " already says " + spec->text + " (cuDNN " + id->id + "); nothing changed.\n";
  } else {
    if (auto s = check_linked_toolkits(ctx, store, id->id, opt.force); !s) return report_error(ctx, s.error());
    std::optional<std::string> previous = store.state.global;
    auto link = read_current(*ctx.fs, store.layout);
    changed = previous != id->id || !link || *link != id->id;
    if (changed) {
      if (auto s = set_global_default(*ctx.fs, store.layout, store.state, id->id, utc_now_iso(), &link_problem); !s) {
        return report_error(ctx, s.error());
      }
    }
    made = SelectionSource::kGlobal;
    out = {{"scope", "global"}, {"version", id->id}, {"previous", previous ? json(*previous) : json(nullptr)},
           {"current_link", store.layout.current_link()}};
    text = changed ? "cuDNN " + id->id + " is now the global default (" + shown_path(ctx, store.layout.current_link()) +
                         " -> " + shown_path(ctx, store.layout.version_dir(id->id)) + ").\n"
                   : "cuDNN " + id->id + " is already the global default; nothing changed.\n";
  }
  out["schema"] = "cudnnup.use/1";
  out["kind"] = "change";
  out["changed"] = changed;
  out["seq"] = changed ? json(store.state.history.back().seq) : json(nullptr);
  out["repairs"] = locked->repairs;
  out["link_problem"] = link_problem.empty() ? json(nullptr) : json(link_problem);
  auto over = override_here(ctx, store, made);
  out["overridden_by"] = over ? json{{"source", selection_source_name(over->source)}, {"origin", over->origin}, {"spec", over->spec}}
                              : json(nullptr);
  if (ctx.options.json) {
    std::cout << dump_json(out, 2) << std::endl;
  } else {
    if (!ctx.options.quiet) std::cout << text;
    print_link_problem(link_problem);
    if (over) std::cout << "Note: here it is overridden: " << over->spec << " is " << over->describe() << ".\n";
    if (changed && !ctx.options.quiet) std::cout << "Undo with `cudnnup use --undo`.\n";
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
      "Toolkits linked with `cudnnup link` follow the switch; one that would be left with dangling links\n"
      "is refused (exit 4) unless --force.\n"
      "Exit codes: 0 done, 2 bad or uninstalled version, 4 store locked, changed by hand, or links would dangle.\n"
      "Examples:\n  cudnnup use 9.19\n  cudnnup use --local 8.9+cuda12\n  cudnnup use --undo");
  cmd->add_option("VERSION", opt.spec, "Version spec (9, 9.1, 9.1.0.70, +cuda12, 9.1+cuda12)");
  cmd->add_flag("--local", opt.local, "Write ./.cudnn-version instead of the global default");
  cmd->add_flag("--undo", opt.undo, "Revert the last change (global default or pin file)");
  cmd->add_flag("--history", opt.history, "Show the change log");
  cmd->add_flag("--force", opt.force, "Switch even when links of a linked toolkit (`cudnnup link`) would dangle");
  cmd->callback([&action] { action = [](AppContext& ctx) { return run_use(ctx, opt); }; });
}

}  // namespace cudnnup
