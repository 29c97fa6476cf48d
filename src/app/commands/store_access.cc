#include "app/commands/store_access.h"

#include <chrono>
#include <ctime>
#include <iostream>

#include "app/commands/recovery.h"
#include "store/current_link.h"
#include "base/paths.h"

namespace cudnnup {

Result<StoreSnapshot> read_store(const AppContext& ctx) {
  StoreSnapshot snap;
  snap.layout = StoreLayout::for_environment(ctx.env);
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

Result<std::optional<std::string>> active_version(AppContext& ctx) {
  auto store = read_store(ctx);
  if (!store) return store.error();
  auto selection = selected_version(ctx, *store);
  if (!selection) {
    if (selection.error().code == ErrorCode::kNotFound) return std::optional<std::string>();
    return selection.error();
  }
  return std::optional<std::string>(selection->id.id);
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
  return plan_environment(*ctx.fs, ctx.env, inputs);
}

}  // namespace cudnnup
