#include "install/uninstall.h"

#include <algorithm>

#include "base/paths.h"
#include "install/transaction.h"

namespace cudnnup {
namespace {

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "\n  - " + l;
  return out;
}

}  // namespace

std::vector<std::string> installed_store_versions(const FileSystem& fs, const StoreLayout& store) {
  std::vector<std::string> out;
  auto entries = fs.list_dir(store.versions_dir());
  if (!entries) return out;
  for (const auto& e : *entries) {
    if (e.type == FileType::kDirectory) out.push_back(e.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<UninstallOutcome> run_uninstall(FileSystem& fs, const StoreLayout& store, const UninstallOptions& o,
                                       const HasherFactory& new_hasher) {
  UninstallOutcome out;
  out.dry_run = o.dry_run;
  TransactionRunner runner(fs, store.journal_dir());
  if (o.into) {
    ToolkitTarget t = inspect_toolkit(fs, *o.into, o.windows);
    auto text = fs.read_file(t.manifest_path());
    if (!text) {
      return make_error(ErrorCode::kNotFound, "cudnnup has not installed cuDNN into " + t.root + " (no " + t.manifest_path() +
                                                  "); files copied there by hand must be removed by hand",
                        t.manifest_path());
    }
    auto m = manifest_from_json(*text, t.manifest_path());
    if (!m) return m.error();
    for (const auto& f : m->files) {
      std::string dest = t.root + "/" + f.path;
      if (f.kind != EntryKind::kFile || !fs.exists(dest)) continue;
      auto h = hash_file(fs, dest, new_hasher);
      if (!h || *h != f.sha256) out.changed_files.push_back(dest);
    }
    if (!out.changed_files.empty() && !o.force) {
      return make_error(ErrorCode::kConflict,
                        "these files changed since cudnnup installed them:" + join_lines(out.changed_files) +
                            "\nNothing was removed. Pass --force to remove them anyway (the originals are restored either way).",
                        t.root);
    }
    auto plan = plan_merge_uninstall(fs, t, *m, o.txid);
    if (!plan) return plan.error();
    out.plan = std::move(*plan);
  } else {
    std::string id = o.version;
    auto versions = installed_store_versions(fs, store);
    if (std::find(versions.begin(), versions.end(), id) == versions.end()) {
      std::vector<std::string> matches;
      auto wanted = Version::parse(id);
      for (const auto& v : versions) {
        auto have = Version::parse(v.substr(0, v.find('+')));
        if (wanted && have && have->has_prefix(*wanted)) matches.push_back(v);
      }
      if (matches.size() == 1) id = matches.front();
      else if (matches.size() > 1) {
        return make_error(ErrorCode::kUsage, "'" + o.version + "' matches several installed versions:" + join_lines(matches) +
                                                 "\nName one of them exactly.");
      }
    }
    // The active version is the versions helper's to protect (state.json / current); refuse here
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
