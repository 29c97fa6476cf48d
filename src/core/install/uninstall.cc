#include "install/uninstall.h"

#include <algorithm>

#include "base/paths.h"
#include "base/strings.h"
#include "install/merge_check.h"
#include "install/transaction.h"
#include "store/version_spec.h"

namespace cudnnup {
namespace {


}  // namespace

Result<UninstallOutcome> run_uninstall(FileSystem& fs, const StoreLayout& store, const UninstallOptions& o,
                                       const HasherFactory& new_hasher) {
  UninstallOutcome out;
  out.dry_run = o.dry_run;
  TransactionRunner runner(fs, store);
  if (o.into) {
    ToolkitTarget t = inspect_toolkit(fs, *o.into, o.windows);
    if (!fs.exists(t.manifest_path())) {
      return make_error(ErrorCode::kNotFound, "cudnnup has not installed cuDNN into " + t.root + " (no " + t.manifest_path() +
                                                  "); files copied there by hand must be removed by hand",
                        t.manifest_path());
    }
    if (std::string pending = pending_transaction_in(fs, t, o.txid); !pending.empty()) {
      return make_error(ErrorCode::kConflict,
                        t.private_dir() + "/" + pending + " belongs to an interrupted change by another cudnnup store; "
                        "run any cudnnup command with that store (its CUDNNUP_HOME) to repair it first",
                        t.private_dir() + "/" + pending);
    }
    auto m = read_manifest(fs, t.manifest_path(), t.root, /*acting=*/true);
    if (!m) return m.error();
    BelowHasher hash = [&](const std::string& root, const std::string& rel) { return hash_file_below(fs, root, rel, new_hasher); };
    MergeCheck check = check_merge_unchanged(fs, t, *m, hash);
    for (const auto& c : check.changed) {
      out.changed_files.push_back(c.path);
      out.changed.push_back(c.path + ": " + c.why);
    }
    out.missing = check.missing;
    if (!check.changed.empty() && !o.force) {
      return make_error(ErrorCode::kConflict,
                        "these entries changed since cudnnup installed them:" + bullet_lines(out.changed) +
                            "\nNothing was removed. Pass --force to remove them anyway (the originals are restored either way).",
                        t.root);
    }
    auto plan = plan_merge_uninstall(fs, t, *m, o.txid);
    if (!plan) return plan.error();
    out.plan = std::move(*plan);
  } else {
    auto found = find_installed(fs, store, o.version, o.windows);
    if (!found) return found.error();
    const std::string& id = found->id;
    // The caller names the selected versions (state.json, pins: protected_ids); refuse here
    // too when the `current` link points at it, so a plain uninstall never breaks the selection.
    if (std::find(o.protected_ids.begin(), o.protected_ids.end(), id) != o.protected_ids.end()) {
      return make_error(ErrorCode::kConflict, id + " is the selected version (global default, CUDNNUP_VERSION or a pin file); "
                                                  "select another with `cudnnup use` first");
    }
    if (auto cur = fs.read_link(store.current_link()); cur && paths::basename(*cur) == id) {
      return make_error(ErrorCode::kConflict, id + " is the active version (" + store.current_link() +
                                                  "); select another with `cudnnup use` first");
    }
    auto plan = plan_store_uninstall(fs, store, id, o.txid);
    if (!plan) return plan.error();
    out.plan = std::move(*plan);
  }
  if (o.dry_run) return out;
  if (auto s = runner.commit(out.plan.journal); !s) return s.error();
  return out;
}

}  // namespace cudnnup
