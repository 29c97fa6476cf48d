// `cudnnup uninstall VERSION | --into CUDA_DIR`: removes a store version, or restores a toolkit
// exactly as it was before `install --into`, all or nothing.
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"

#include "app/commands/without_install.h"
#if CUDNNUP_HAVE_INSTALL
#include <chrono>
#include <nlohmann/json.hpp>
#include <random>

#include "app/commands/install_services.h"
#include "app/commands/recovery.h"
#include "app/commands/store_access.h"
#include "app/render/style.h"
#include "base/paths.h"
#include "app/commands/locks.h"
#include "facts/install_fix.h"
#include "install/uninstall.h"
#include "install/install_plan.h"
#include "store/current_link.h"
#include "store/toolkit_link.h"
#include "store/use_change.h"
#include "base/json_text.h"
#endif

namespace cudnnup {
namespace {

struct UninstallArgs {
  std::string version;
  std::string into;
  bool dry_run = false;
  bool force = false;
  bool no_wait = false;
};

#if CUDNNUP_HAVE_INSTALL
// Store mode, before anything is removed. Refuses the version selected here by CUDNNUP_VERSION or
// a pin file (that selection belongs to the project; the global default does not protect a
// version: removing it clears the default, see below), and the version `current` points at while
// toolkits linked to the store (`cudnnup link`) reach it through `current`. Returns the global
// default this removal clears, if it removes that version.
Result<std::optional<std::string>> check_store_uninstall(AppContext& ctx, const StoreLayout& store, const UninstallOptions& o,
                                                         const std::optional<LockedStore>& locked) {
  auto found = find_installed(*ctx.fs, store, o.version, ctx.env.windows());
  if (!found) return std::optional<std::string>();  // run_uninstall says why
  auto active = active_version(ctx);
  if (!active) return active.error();
  if (active->id == found->id && active->request.source != SelectionSource::kGlobal) {
    std::string where = active->request.source == SelectionSource::kPinFile
                            ? "`cudnnup use --local --unset` in " + paths::parent(active->request.origin)
                            : std::string("unset ") + kVersionEnvVar;
    return make_error(ErrorCode::kConflict, found->id + " is selected here (" + active->request.describe() +
                                                "); " + where + ", or select another version, first");
  }
  if (locked) {
    // Toolkits linked to the store (`cudnnup link`) reach it through `current`: removing what it
    // points at would leave their links dangling.
    auto current = read_current(*ctx.fs, store);
    if (current && *current == found->id) {
      auto dangling = links_that_would_dangle(*ctx.fs, store, locked->store.state, std::nullopt);
      if (!dangling.empty()) {
        std::string list;
        for (const auto& d : dangling) list += "\n  " + d;
        return make_error(ErrorCode::kConflict, found->id + " is what the store's `current` points at, and these links of toolkits "
                                                "linked to it would dangle:" + list +
                                                "\nSelect another version with `cudnnup use` first, or undo the links with "
                                                "`cudnnup link --undo --into CUDA_DIR`");
      }
    }
  }
  auto state = load_state(*ctx.fs, store);
  if (state && state->global == found->id) return std::optional<std::string>(found->id);
  return std::optional<std::string>();
}

// The removal of a version that is the global default: the default is cleared first (a logged
// change, which also removes `current`, so nothing points at the version while it goes); if the
// removal then fails, state.json and `current` are put back exactly as they were.
Result<UninstallOutcome> uninstall_global_default(AppContext& ctx, const StoreLayout& store, const UninstallOptions& o,
                                                  LockedStore& locked, const std::string& id) {
  StoreState before = locked.store.state;
  bool had_state = ctx.fs->exists(store.state_file());
  if (auto s = set_global_default(*ctx.fs, store, locked.store.state, std::nullopt, utc_now_iso()); !s) return s.error();
  auto r = run_uninstall(*ctx.fs, store, o, sha256_hasher());
  if (!r) {
    (void)restore_state(*ctx.fs, store, before, had_state);
    (void)switch_current(*ctx.fs, store, id);
  }
  return r;
}

// --dry-run of that removal: the plan, without clearing anything (run_uninstall would refuse the
// version `current` still points at).
Result<UninstallOutcome> plan_global_default_removal(AppContext& ctx, const StoreLayout& store, const UninstallOptions& o,
                                                     const std::string& id) {
  auto plan = plan_store_uninstall(*ctx.fs, store, id, o.txid);
  if (!plan) return plan.error();
  UninstallOutcome out;
  out.dry_run = true;
  out.plan = std::move(*plan);
  return out;
}

int print_uninstall_error(AppContext& ctx, const UninstallOptions& o, Error e) {
  if (e.code == ErrorCode::kPermission && o.into) {
    // Absolute: an elevated terminal starts in System32, not here.
    std::string into = paths::to_native(*o.into, o.windows);
    e.message += o.windows ? "; changing " + into + " needs administrator rights: run it elevated"
                           : "; run it as the toolkit's owner";
    std::vector<std::string> args = {"uninstall", "--into", into};
    if (o.force) args.push_back("--force");
    e = with_fix(std::move(e), elevated_cudnnup_steps(std::move(args), o.windows));
  }
  return report_error(ctx, e);
}

// `clears_global`: the global default this removal clears (or, with --dry-run, would clear).
int print_uninstall(AppContext& ctx, const UninstallOutcome& outcome, const std::optional<std::string>& clears_global) {
  const UninstallOutcome* r = &outcome;
  const std::string cleared_text =
      clears_global ? *clears_global + " was the global default; now there is none: choose one with `cudnnup use VERSION`, "
                                       "or `cudnnup use system` for this machine's own copies\n"
                    : std::string();
  if (ctx.options.json) {
    nlohmann::ordered_json out = {{"schema", "cudnnup.uninstall/1"}, {"dry_run", r->dry_run}, {"mode", r->plan.mode},
                                  {"id", r->plan.id}, {"target", r->plan.target}, {"changed_files", r->changed_files},
                                  {"changed", r->changed}, {"missing", r->missing},
                                  {"cleared_global_default", clears_global ? nlohmann::ordered_json(*clears_global) : nullptr},
                                  {"exit_code", 0}};
    nlohmann::ordered_json steps = nlohmann::ordered_json::array();
    for (const auto& s : r->plan.steps) steps.push_back({{"action", s.action}, {"path", s.path}, {"detail", s.detail}});
    out["steps"] = steps;
    std::cout << dump_json(out, 2) << std::endl;
    return kExitOk;
  }
  Style st{ctx.color};
  if (r->dry_run) {
    std::cout << st.bold("Plan") << ": uninstall " << r->plan.id << " from " << r->plan.target << "\n";
    for (const auto& s : r->plan.steps) std::cout << "  " << s.action << "  " << s.path << (s.detail.empty() ? "" : "  (" + s.detail + ")") << "\n";
    if (clears_global) std::cout << "It would clear the global default (" << *clears_global << ").\n";
    std::cout << "Nothing was changed (--dry-run).\n";
    return kExitOk;
  }
  if (r->plan.mode == "store") {
    std::cout << st.ok() << " removed " << r->plan.target << "\n" << cleared_text;
    return kExitOk;
  }
  size_t restored = 0;
  for (const auto& step : r->plan.steps) restored += step.action == "restore";
  std::cout << st.ok() << " removed cuDNN " << r->plan.manifest.cudnn_version << " from " << r->plan.target << " and put back "
            << restored << " of its own file" << (restored == 1 ? "" : "s") << " that the install had replaced or moved aside\n";
  for (const auto& c : r->changed) std::cout << "  removed although changed (--force): " << c << "\n";
  for (const auto& m : r->missing) std::cout << "  already gone: " << m << "\n";
  return kExitOk;
}

int run_uninstall_command(AppContext& ctx, const UninstallArgs& args) {
  if (args.version.empty() == args.into.empty()) {
    return report_error(ctx, make_error(ErrorCode::kUsage, "name a store version (cudnnup uninstall 9.19.0.56+cuda13) or a toolkit "
                                                           "(cudnnup uninstall --into /usr/local/cuda-13.0), not both"));
  }
  StoreLayout store = StoreLayout::for_environment(ctx.env);
  LockWait wait = args.no_wait ? LockWait::kNoWait : LockWait::kWait;
  UninstallOptions o;
  o.version = args.version;
  if (!args.into.empty()) {
    o.into = paths::is_absolute(args.into) ? paths::normalize(args.into) : paths::normalize(paths::join(ctx.env.cwd, args.into));
  }
  o.dry_run = args.dry_run;
  o.force = args.force;
  // The store's lock (when there is a store: uninstall never creates one), then the toolkit's.
  std::optional<LockedStore> locked;
  std::optional<FileLock> toolkit_lock;
  if (!args.dry_run && (ctx.fs->is_dir(store.root) || o.into)) {  // a merge's journal lives in the store
    auto l = lock_store(ctx, wait);
    if (!l) return report_error(ctx, l.error());
    locked.emplace(std::move(*l));
    for (const auto& line : locked->repairs) std::cerr << "cudnnup: " << line << std::endl;
  }
  if (!args.dry_run && o.into && ctx.fs->is_dir(*o.into)) {
    auto t = lock_toolkit(ctx, ctx.fs->canonical(*o.into).value_or(*o.into), wait);
    if (!t && t.error().code != ErrorCode::kPermission) return report_error(ctx, t.error());
    if (t) toolkit_lock.emplace(std::move(*t));  // kPermission: the uninstall fails below with the hint
  }
  std::optional<std::string> clears_global;
  if (!o.into) {
    auto checked = check_store_uninstall(ctx, store, o, locked);
    if (!checked) return report_error(ctx, checked.error());
    clears_global = *checked;
  }
  o.windows = ctx.env.windows();
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  o.txid = make_transaction_id(ns, std::to_string(std::random_device{}() % 100000));
  Result<UninstallOutcome> r = make_error(ErrorCode::kInternal, "uninstall did not run");
  if (!clears_global) r = run_uninstall(*ctx.fs, store, o, sha256_hasher());
  else if (o.dry_run) r = plan_global_default_removal(ctx, store, o, *clears_global);
  else r = uninstall_global_default(ctx, store, o, *locked, *clears_global);
  if (!r) return print_uninstall_error(ctx, o, r.error());
  return print_uninstall(ctx, *r, clears_global);
}

#endif

}  // namespace

void add_uninstall_command(CLI::App& app, CommandAction& action) {
  auto args = std::make_shared<UninstallArgs>();
  auto* cmd = app.add_subcommand("uninstall", "Remove a cuDNN version from the store, or undo an install --into a toolkit");
  cmd->add_option("version", args->version, "A store version: 9.19.0.56+cuda13, or a prefix such as 9.19 when only one matches");
  cmd->add_option("--into", args->into, "Undo `install --into` in this toolkit, restoring every file it replaced")->type_name("DIR");
  cmd->add_flag("--dry-run", args->dry_run, "Print every step; change nothing");
  cmd->add_flag("--force", args->force, "Remove files even when they changed since install (originals are still restored)");
  cmd->add_flag("--no-wait", args->no_wait, "Fail at once (exit 4) when another cudnnup holds the store lock");
  cmd->footer(
      "Removing the global default clears it (logged in `cudnnup use --history`), the last version too.\n"
      "A version selected here by CUDNNUP_VERSION or a .cudnn-version file is refused, and so is the one the\n"
      "store's `current` points at when toolkits linked with `cudnnup link` would be left with dangling links.\n\n"
      "Exit codes: 0 removed, 2 not installed / refused (nothing changed), 4 locked, files changed, selected here\n"
      "by CUDNNUP_VERSION or a pin file, or links would dangle.\n"
      "Examples:\n  cudnnup uninstall 9.19.0.56+cuda13\n  sudo cudnnup uninstall --into /usr/local/cuda-13.0");
  cmd->callback([&action, args] {
#if CUDNNUP_HAVE_INSTALL
    action = [args](AppContext& ctx) { return run_uninstall_command(ctx, *args); };
#else
    action = [](AppContext& ctx) {
      return report_error(ctx, make_error(ErrorCode::kUnsupported, std::string("uninstall is not available in this build: ") + kBuiltWithoutInstall));
    };
#endif
  });
}

}  // namespace cudnnup
