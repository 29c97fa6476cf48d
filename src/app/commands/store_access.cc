#include "app/commands/store_access.h"

#include <chrono>
#include <ctime>
#include <iostream>

#include "app/commands/recovery.h"
#include "base/paths.h"
#include "loader/which.h"
#include "loader/windows/which_windows.h"
#include "store/current_link.h"

namespace cudnnup {

Result<StoreSnapshot> read_store(const AppContext& ctx) {
  StoreSnapshot snap;
  snap.layout = StoreLayout::for_environment(ctx.env);
  // A store root that is a file, a FIFO or a device read as an empty store and said nothing.
  if (auto root = ctx.fs->stat(snap.layout.root); root && root->type != FileType::kDirectory) {
    return make_error(ErrorCode::kUsage,
                      "the store " + snap.layout.root + " is not a folder: point CUDNNUP_HOME at a folder (or unset it for ~/.cudnnup)",
                      snap.layout.root);
  }
  auto state = load_state(*ctx.fs, snap.layout);
  if (!state) return state.error();
  snap.state = std::move(*state);
  auto installed = list_installed(*ctx.fs, snap.layout);
  if (!installed) return installed.error();
  snap.installed = std::move(*installed);
  return snap;
}

Result<LockedStore> lock_store(AppContext& ctx, LockWait wait) {
  StoreLayout layout = StoreLayout::for_environment(ctx.env);
  auto lock = lock_store_root(ctx, layout, wait);
  if (!lock) return lock.error();
  auto store = read_store(ctx);
  if (!store) return store.error();
  if (auto s = check_state_trusted(store->state, store->layout); !s) return s.error();
  auto recovered = recover_with_lock_held(ctx, store->layout, store->state);
  if (!recovered) return recovered.error();
  if (!recovered->refused.empty()) {
    // A journal or record that is not ours: nothing may change until someone looks at it.
    const Error& first = recovered->refused.front();
    return make_error(first.code, first.message, first.path);
  }
  // Journal repairs may have added or removed versions.
  auto installed = list_installed(*ctx.fs, store->layout);
  if (!installed) return installed.error();
  store->installed = std::move(*installed);
  return LockedStore{std::move(*lock), std::move(*store), std::move(recovered->repaired)};
}

Result<SelectionRequest> selection_request(const AppContext& ctx, const StoreSnapshot& store,
                                           const std::optional<std::string>& command_line) {
  return find_request(*ctx.fs, ctx.env, store.state, store.layout, command_line);
}

Result<Selection> selected_version(const AppContext& ctx, const StoreSnapshot& store,
                                   const std::optional<std::string>& command_line) {
  auto request = selection_request(ctx, store, command_line);
  if (!request) return request.error();
  return resolve_request(*request, store.installed, store.layout);
}

Result<ActiveVersion> active_version(AppContext& ctx) {
  auto store = read_store(ctx);
  if (!store) return store.error();
  auto request = selection_request(ctx, *store);
  if (!request) return request.error();
  ActiveVersion out{*request, std::nullopt};
  auto selection = resolve_request(*request, store->installed, store->layout);
  if (selection) out.id = selection->id.id;
  else if (selection.error().code != ErrorCode::kNotFound) return selection.error();
  return out;
}

std::string utc_now_iso() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char buf[32] = {0};
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buf;
}

std::string shown_path(const AppContext& ctx, const std::string& path) {
  return paths::to_native(path, ctx.env.windows());
}

}  // namespace cudnnup

namespace cudnnup {

EnvPlan environment_for(const AppContext& ctx, const StoreSnapshot& store, const Selection& selection,
                        const std::vector<std::string>& other_copy_dirs) {
  EnvInputs inputs;
  inputs.version_dir = selection.dir;
  for (const auto& id : store.installed) {
    if (id.id != selection.id.id) inputs.other_version_dirs.push_back(store.layout.version_dir(id.id));
  }
  inputs.other_version_dirs.push_back(store.layout.current_link());
  inputs.other_copy_dirs = other_copy_dirs;
  EnvPlan plan = plan_environment(*ctx.fs, ctx.env, inputs);
  check_plan_with_loader(ctx, selection, plan);
  return plan;
}

EnvPlan system_environment_for(const AppContext& ctx, const StoreSnapshot& store) {
  EnvInputs inputs;
  for (const auto& id : store.installed) inputs.other_version_dirs.push_back(store.layout.version_dir(id.id));
  inputs.other_version_dirs.push_back(store.layout.current_link());
  return plan_system_environment(*ctx.fs, ctx.env, inputs);
}

void check_plan_with_loader(const AppContext& ctx, const Selection& selection, EnvPlan& plan) {
  // The same loader model as `which` and doctor: what a plain program started with the planned
  // variables loads. The plan puts the selected copy first; a preload, an already-loaded copy or
  // a mix of sub-libraries can still beat it, and then people should hear it.
  Environment after = ctx.env;
  for (const auto& c : plan.changes) {
    if (c.value) after.vars[c.name] = *c.value;
    else after.vars.erase(c.name);
  }
  std::string major = std::to_string(selection.id.version.major());
  WhichReport w;
  if (ctx.env.windows()) {
    auto r = which_windows(*ctx.fs, after, WindowsWhichTarget{}, major);
    if (!r) return;
    w = std::move(*r);
  } else {
    w = which_plain_program(*ctx.fs, after, major);
  }
  std::string selected = VersionDirs::of(selection.dir, ctx.env.windows()).loader_dir();
  auto want = ctx.fs->canonical(selected);
  std::string want_dir = want ? *want : selected;
  if (!w.resolution.found) {
    plan.notes.push_back("check: a plain program would still not load " + w.library + ": " + w.resolution.error);
  } else if (paths::parent(w.resolution.canonical) != want_dir) {
    plan.notes.push_back("check: a plain program would load " + w.resolution.canonical + " (" +
                         search_rule_name(w.resolution.rule) + ": " + w.resolution.rule_detail + "), not the selected " +
                         selection.id.id + "; `cudnnup which` explains");
  } else if (w.cudnn && w.cudnn->mixed) {
    plan.notes.push_back("check: cuDNN would take sub-libraries from another copy too (cuDNN's own check " +
                         std::string(cudnn_check_name(w.cudnn->check)) + "); `cudnnup which` lists them");
  }
  for (const auto& h : w.hazards) plan.notes.push_back("check: " + h);
}

}  // namespace cudnnup
