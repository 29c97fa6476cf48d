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
  std::string spec;  // a version spec or "system"
  bool local = false;
  bool unset = false;
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
                    std::string(version ? "cuDNN " + *version + " lacks files"
                                              : "without a global default version (none, or system), `current` is gone and so are files") +
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
    // Back to `system` is, for the links, back to no `current` at all.
    std::optional<std::string> back = last->from && *last->from != kSystemSelection ? last->from : std::nullopt;
    if (auto s = check_linked_toolkits(ctx, store, back, force); !s) return report_error(ctx, s.error());
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

// What `use` is asked to select: a store version, `system`, or nothing (--unset).
struct UseTarget {
  std::string kind;                  // "change" (a version), "system", "unset": the JSON kind
  std::optional<StoreVersionId> id;  // kind "change"
  std::string spec;                  // kind "change": as typed
  // What state.json's global default or the pin file will hold: the id (global) or the spec (pin
  // file), "system", or nullopt (none).
  std::optional<std::string> recorded(bool local) const {
    if (kind == "unset") return std::nullopt;
    if (kind == "system") return std::string(kSystemSelection);
    return local ? spec : id->id;
  }
};

// The outcome of one change, for both scopes.
struct UseOutcome {
  json out;
  std::string text;
  bool changed = true;
  std::string link_problem;
  SelectionSource made = SelectionSource::kGlobal;
};

Result<UseOutcome> use_local(AppContext& ctx, StoreSnapshot& store, const UseTarget& target) {
  UseOutcome r;
  r.made = SelectionSource::kPinFile;
  std::string pin = paths::join(ctx.env.cwd, kPinFileName);
  std::string shown = shown_path(ctx, pin);
  std::optional<std::string> want = target.recorded(/*local=*/true);
  Result<std::optional<std::string>> existing = std::optional<std::string>();
  if (ctx.fs->exists(pin)) {
    if (!ctx.fs->is_file(pin)) {
      return make_error(ErrorCode::kUsage, shown + " is not a regular file; move it away by hand", pin);
    }
    existing = pin_file_spec(*ctx.fs, pin);  // unreadable or malformed: replaced (or removed) on purpose
  }
  r.changed = !existing || *existing != want;
  if (r.changed) {
    if (auto s = set_pin_file(*ctx.fs, store.layout, store.state, pin, want, utc_now_iso()); !s) return s.error();
  }
  r.out = {{"scope", "local"}, {"pin_file", pin}};
  if (target.kind == "change") {
    r.out["spec"] = target.spec;
    r.out["version"] = target.id->id;
    r.text = r.changed ? "Wrote " + shown + " (" + target.spec + "): cuDNN " + target.id->id + " is selected in this directory and below.\n"
                       : shown + " already says " + target.spec + " (cuDNN " + target.id->id + "); nothing changed.\n";
  } else if (target.kind == "system") {
    r.text = r.changed ? "Wrote " + shown + " (system): this directory and below use this machine's own cuDNN copies, no "
                         "cudnnup version.\n"
                       : shown + " already says system; nothing changed.\n";
  } else {
    r.text = r.changed ? "Removed " + shown + ".\n" : "There is no " + shown + "; nothing changed.\n";
  }
  return r;
}

Result<UseOutcome> use_global(AppContext& ctx, StoreSnapshot& store, const UseTarget& target, bool force) {
  UseOutcome r;
  std::optional<std::string> want = target.recorded(/*local=*/false);
  std::optional<std::string> want_link = target.id ? std::optional<std::string>(target.id->id) : std::nullopt;
  if (auto s = check_linked_toolkits(ctx, store, want_link, force); !s) return s.error();
  std::optional<std::string> previous = store.state.global;
  auto changed = choose_global_default(*ctx.fs, store.layout, store.state, want, utc_now_iso(), &r.link_problem);
  if (!changed) return changed.error();
  r.changed = *changed;
  r.out = {{"scope", "global"}, {"previous", previous ? json(*previous) : json(nullptr)}, {"current_link", store.layout.current_link()}};
  if (target.kind == "change") {
    r.out["version"] = target.id->id;
    // Where `current` could not be made the warning after this says so; the text claims no link.
    std::string link_text = r.link_problem.empty() ? " (" + shown_path(ctx, store.layout.current_link()) + " -> " +
                                                         shown_path(ctx, store.layout.version_dir(target.id->id)) + ")"
                                                   : "";
    r.text = r.changed ? "cuDNN " + target.id->id + " is now the global default" + link_text + ".\n"
                       : "cuDNN " + target.id->id + " is already the global default; nothing changed.\n";
  } else if (target.kind == "system") {
    r.text = r.changed ? "The global default is now system: no cudnnup version, programs load this machine's own cuDNN copies.\n"
                       : "The global default is already system; nothing changed.\n";
  } else {
    r.text = r.changed ? "Removed the global default (it was " + previous.value_or("none") + "); outside pinned directories no "
                         "version is selected.\n"
                       : "There is no global default; nothing changed.\n";
  }
  return r;
}

// The target of `use SPEC` / `use --unset`, checked against what is installed.
Result<UseTarget> use_target(const UseOptions& opt, const std::vector<StoreVersionId>& installed) {
  if (opt.unset) return UseTarget{"unset", std::nullopt, {}};
  if (is_system_selection(opt.spec)) return UseTarget{"system", std::nullopt, {}};
  auto spec = VersionSpec::parse(opt.spec);
  if (!spec) return spec.error();
  auto id = resolve_spec(*spec, installed);
  if (!id) return id.error();
  return UseTarget{"change", *id, spec->text};
}

int run_use(AppContext& ctx, const UseOptions& opt) {
  if (opt.history) return run_history(ctx);
  if (opt.undo) {
    if (!opt.spec.empty() || opt.local || opt.unset) {
      return report_error(ctx, make_error(ErrorCode::kUsage, "--undo takes no VERSION, --local or --unset; it reverts the last change"));
    }
    return run_undo(ctx, opt.force);
  }
  if (opt.unset && !opt.spec.empty()) {
    return report_error(ctx, make_error(ErrorCode::kUsage, "--unset takes no VERSION: `cudnnup use --unset` removes the global "
                                                           "default, `cudnnup use --local --unset` this directory's pin file"));
  }
  if (opt.spec.empty() && !opt.unset) {
    return report_error(ctx, make_error(ErrorCode::kUsage,
                                        "say which version: `cudnnup use 9.19` (global), `cudnnup use --local 9.19` "
                                        "(this directory), `cudnnup use system` (this machine's own copies), "
                                        "`cudnnup use --unset`, or `cudnnup use --undo`"));
  }
  // Check before taking the lock, so a bad or uninstalled version leaves the disk untouched
  // (taking the lock creates the store dir and its lock file); checked again under the lock.
  if (auto peek = read_store(ctx); !peek) {
    return report_error(ctx, peek.error());
  } else if (auto t = use_target(opt, peek->installed); !t) {
    return report_error(ctx, t.error());
  }
  auto locked = lock_store(ctx);
  if (!locked) return report_error(ctx, locked.error());
  StoreSnapshot& store = locked->store;
  auto target = use_target(opt, store.installed);
  if (!target) {
    print_repairs(ctx, locked->repairs);
    return report_error(ctx, target.error());
  }
  auto done = opt.local ? use_local(ctx, store, *target) : use_global(ctx, store, *target, opt.force);
  // The start's failed attempt at `current` and this command's are one problem: said once.
  if (done && !done->link_problem.empty()) {
    std::erase_if(locked->repairs, [&](const std::string& r) { return r.starts_with("could not point " + store.layout.current_link()); });
  }
  print_repairs(ctx, locked->repairs);
  if (!done) return report_error(ctx, done.error());

  // Asking for what is already so changes nothing and adds no history entry (nothing to undo).
  json& out = done->out;
  out["schema"] = "cudnnup.use/1";
  out["kind"] = target->kind;
  out["changed"] = done->changed;
  out["seq"] = done->changed ? json(store.state.history.back().seq) : json(nullptr);
  out["repairs"] = locked->repairs;
  out["link_problem"] = done->link_problem.empty() ? json(nullptr) : json(done->link_problem);
  auto over = override_here(ctx, store, done->made);
  out["overridden_by"] = over ? json{{"source", selection_source_name(over->source)}, {"origin", over->origin}, {"spec", over->spec}}
                              : json(nullptr);
  if (ctx.options.json) {
    std::cout << dump_json(out, 2) << std::endl;
    return kExitOk;
  }
  if (!ctx.options.quiet) std::cout << done->text;
  print_link_problem(done->link_problem);
  if (over && !ctx.options.quiet) std::cout << "Note: here it is overridden: " << over->spec << " is " << over->describe() << ".\n";
  if (done->changed && !ctx.options.quiet) std::cout << "Undo with `cudnnup use --undo`.\n";
  return kExitOk;
}

}  // namespace

void add_use_command(CLI::App& app, CommandAction& action) {
  static UseOptions opt;
  auto* cmd = app.add_subcommand("use", "Choose the cuDNN version: globally, or for this directory with --local");
  cmd->footer(
      "VERSION may be partial and picks the highest installed match: 9, 9.1, 9.1.0.70, +cuda12, 9.1+cuda12.\n"
      "`system` means no cudnnup version: programs load this machine's own cuDNN copies (the shell hook\n"
      "puts your own LD_LIBRARY_PATH and the rest back). --unset removes the global default, or with\n"
      "--local this directory's .cudnn-version.\n"
      "Which version applies (first wins): `cudnnup exec --version`, $CUDNNUP_VERSION, the nearest\n"
      ".cudnn-version file from here up, the global default. See it with `cudnnup current`.\n"
      "Every change is logged: `cudnnup use --history`, and `cudnnup use --undo` reverts the last one;\n"
      "asking for what is already so changes nothing and logs nothing.\n"
      "Toolkits linked with `cudnnup link` follow the switch; one that would be left with dangling links\n"
      "is refused (exit 4) unless --force.\n"
      "Exit codes: 0 done, 2 bad or uninstalled version, 4 store locked, changed by hand, or links would dangle.\n"
      "Examples:\n  cudnnup use 9.19\n  cudnnup use --local 8.9+cuda12\n  cudnnup use system\n  cudnnup use --local system\n"
      "  cudnnup use --unset\n  cudnnup use --local --unset\n  cudnnup use --undo");
  cmd->add_option("VERSION", opt.spec, "Version spec (9, 9.1, 9.1.0.70, +cuda12, 9.1+cuda12), or system");
  cmd->add_flag("--local", opt.local, "Write ./.cudnn-version instead of the global default");
  cmd->add_flag("--unset", opt.unset, "Remove the global default (with --local: ./.cudnn-version)");
  cmd->add_flag("--undo", opt.undo, "Revert the last change (global default or pin file)");
  cmd->add_flag("--history", opt.history, "Show the change log");
  cmd->add_flag("--force", opt.force, "Switch even when links of a linked toolkit (`cudnnup link`) would dangle");
  cmd->callback([&action] { action = [](AppContext& ctx) { return run_use(ctx, opt); }; });
}

}  // namespace cudnnup
