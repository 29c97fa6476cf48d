#include "app/commands/known_table.h"

#if CUDNNUP_HAVE_INSTALL

#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>

#include "app/cli/exit_codes.h"
#include "app/commands/install_services.h"
#include "app/commands/store_access.h"
#include "base/json_text.h"
#include "base/paths.h"
#include "install/known_refresh.h"
#include "store/store_layout.h"

namespace cudnnup {

Result<std::vector<KnownArchive>> known_archives_for(const AppContext& ctx) {
  StoreLayout store = StoreLayout::for_environment(ctx.env);
  return known_archives_with_refreshed(*ctx.fs, store.refreshed_known_archives(), builtin_known_archives());
}

int run_update_known(AppContext& ctx, const UpdateKnownOptions& options) {
  std::string given = !options.mirror.empty() ? options.mirror : ctx.env.get("CUDNNUP_MIRROR").value_or("");
  Mirror mirror = mirror_at(given);
  // The rows keep where they were read: a folder given as `./mirror` is recorded by its full
  // path, which still means something when the table is read from another directory.
  if (!mirror.remote && !paths::is_absolute(mirror.root)) {
    if (auto full = ctx.fs->canonical(mirror.root)) mirror.root = *full + "/";
  }
  StoreLayout store = StoreLayout::for_environment(ctx.env);
  std::string path = store.refreshed_known_archives();
  // Under the store's lock from reading the earlier rows to writing the new file, so two
  // refreshes cannot lose each other's rows.
  std::optional<LockedStore> locked;
  if (!options.dry_run) {
    auto l = lock_store(ctx);
    if (!l) return report_error(ctx, l.error());
    locked.emplace(std::move(*l));
  }
  auto table = known_archives_for(ctx);
  if (!table) return report_error(ctx, table.error());
  std::vector<KnownArchive> earlier;
  for (const auto& k : *table) {
    if (k.refreshed) earlier.push_back(k);
  }
  auto progress = progress_for(ctx);
  auto refresh = refresh_known_archives(*ctx.fs, mirror, builtin_known_archives(), earlier, http_client(progress ? progress->get() : nullptr));
  progress.reset();
  if (!refresh) return report_error(ctx, refresh.error());
  if (!options.dry_run) {
    // Written whole and renamed into place: a reader sees the old table or the new one.
    std::string tmp = path + ".tmp";
    if (auto s = ctx.fs->write_file(tmp, refreshed_known_archives_json(refresh->rows, mirror.root), /*sync=*/true); !s) {
      return report_error(ctx, s.error());
    }
    if (auto s = ctx.fs->rename(tmp, path); !s) return report_error(ctx, s.error());
  }
  int code = refresh->conflicts.empty() ? kExitOk : kExitProblems;
  if (ctx.options.json) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& r : refresh->added) rows.push_back({{"file_name", r.file_name}, {"sha256", r.sha256}, {"size", r.size}, {"source", r.source}});
    nlohmann::ordered_json out = {{"schema", "cudnnup.archive-info/1"}, {"kind", "update-known"}, {"mirror", mirror.root},
                                  {"file", path}, {"dry_run", options.dry_run}, {"manifests", refresh->manifests},
                                  {"already_known", refresh->already_known}, {"added", rows}, {"conflicts", refresh->conflicts},
                                  {"problems", refresh->problems}, {"exit_code", code}};
    std::cout << dump_json(out, 2) << std::endl;
    return code;
  }
  for (const auto& p : refresh->problems) std::cerr << "cudnnup: warning: " << p << std::endl;
  for (const auto& c : refresh->conflicts) std::cerr << "cudnnup: " << c << std::endl;
  std::cout << "Read " << refresh->manifests << " manifests on " << mirror.root << ": " << refresh->already_known
            << " archives were known already, " << refresh->added.size() << " are new";
  if (options.dry_run) std::cout << " (nothing was written: --dry-run).\n";
  else std::cout << "; " << path << " now holds " << refresh->rows.size() << " rows.\n";
  for (const auto& r : refresh->added) std::cout << "  " << r.file_name << "\n";
  if (!refresh->conflicts.empty()) {
    std::cout << refresh->conflicts.size() << " archives on this mirror differ from NVIDIA's published hashes (above); the "
              << "published ones are kept. Check where this mirror's files come from.\n";
  }
  return code;
}

}  // namespace cudnnup

#else

namespace cudnnup {

Result<std::vector<KnownArchive>> known_archives_for(const AppContext&) { return builtin_known_archives(); }

int run_update_known(AppContext& ctx, const UpdateKnownOptions&) {
  return report_error(ctx, make_error(ErrorCode::kUnsupported, "archive-info --update-known is not available in this build: it was "
                                                               "built without the install code (libarchive)"));
}

}  // namespace cudnnup

#endif
