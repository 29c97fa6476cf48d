// `cudnnup cache clean [--dry-run]`: removes the archives `install VERSION` downloaded into the
// store's cache/ (and partial downloads), and says what it removed. Installed versions keep
// working: they are unpacked copies, not links into the cache.
#include <nlohmann/json.hpp>
#include <iostream>

#include "base/json_text.h"
#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"
#include "app/cli/help_words.h"
#include "app/commands/store_access.h"
#include "app/render/archive_render.h"

namespace cudnnup {
namespace {

using nlohmann::ordered_json;

struct CacheEntry {
  std::string path;
  uint64_t bytes = 0;
  bool partial = false;  // a download that did not finish (*.part): `install` would resume it
};

struct CacheListing {
  std::string dir;
  std::vector<CacheEntry> files;
  std::vector<std::string> kept;  // folders: the cache holds only files, so these are not ours
};

// The cache's files, without following links inside it (a link is removed, not its target).
Result<CacheListing> list_cache(const FileSystem& fs, const std::string& dir) {
  CacheListing out;
  out.dir = dir;
  if (!fs.is_dir(dir)) return out;
  auto entries = fs.list_dir(dir);
  if (!entries) return entries.error();
  for (const auto& e : *entries) {
    std::string path = dir + "/" + e.name;
    auto info = fs.lstat(path);
    if (!info) return info.error();
    if (info->type == FileType::kDirectory) {
      out.kept.push_back(path);
      continue;
    }
    bool partial = e.name.ends_with(".part");
    out.files.push_back({path, info->type == FileType::kRegular ? info->size : 0, partial});
  }
  return out;
}

uint64_t total_bytes(const std::vector<CacheEntry>& files) {
  uint64_t n = 0;
  for (const auto& f : files) n += f.bytes;
  return n;
}

void print_text(const AppContext& ctx, const CacheListing& listing, bool dry_run) {
  if (ctx.options.quiet) return;
  std::string dir = shown_path(ctx, listing.dir);
  if (listing.files.empty()) {
    std::cout << "The download cache " << dir << " is empty; nothing to remove.\n";
  } else {
    std::cout << (dry_run ? "Would remove " : "Removed ") << listing.files.size() << " file"
              << (listing.files.size() == 1 ? "" : "s") << " (" << human_bytes(total_bytes(listing.files)) << ") from "
              << dir << ":\n";
    for (const auto& f : listing.files) {
      std::cout << "  " << shown_path(ctx, f.path) << "  " << human_bytes(f.bytes)
                << (f.partial ? "  (a partial download)" : "") << "\n";
    }
    if (dry_run) std::cout << "Nothing was removed (--dry-run).\n";
  }
  for (const auto& k : listing.kept) {
    std::cout << "Kept " << shown_path(ctx, k) << ": a folder, which cudnnup does not put in its cache.\n";
  }
}

int run_cache_clean(AppContext& ctx, bool dry_run) {
  StoreLayout layout = StoreLayout::for_environment(ctx.env);
  // Read-only for --dry-run or when there is nothing; otherwise under the store's lock, so a
  // download in progress (install holds the lock) is never taken from under it.
  std::optional<LockedStore> locked;
  if (!dry_run && ctx.fs->is_dir(layout.cache_dir())) {
    auto l = lock_store(ctx);
    if (!l) return report_error(ctx, l.error());
    locked.emplace(std::move(*l));
  }
  auto listing = list_cache(*ctx.fs, layout.cache_dir());
  if (!listing) return report_error(ctx, listing.error());
  if (!dry_run) {
    for (const auto& f : listing->files) {
      if (auto s = ctx.fs->remove(f.path); !s) {
        return report_error(ctx, make_error(s.error().code, "cannot remove " + f.path + ": " + s.error().message, f.path));
      }
    }
  }
  if (ctx.options.json) {
    ordered_json removed = ordered_json::array();
    for (const auto& f : listing->files) removed.push_back({{"path", f.path}, {"bytes", f.bytes}, {"partial", f.partial}});
    ordered_json out = {{"schema", "cudnnup.cache/1"},  {"kind", "clean"},
                        {"dir", listing->dir},          {"dry_run", dry_run},
                        {"removed", removed},           {"removed_bytes", total_bytes(listing->files)},
                        {"kept", listing->kept},        {"exit_code", kExitOk}};
    std::cout << dump_json(out, 2) << std::endl;
  } else {
    print_text(ctx, *listing, dry_run);
  }
  return kExitOk;
}

}  // namespace

void add_cache_command(CLI::App& app, CommandAction& action) {
  auto* cache = app.add_subcommand("cache", "Manage the download cache in the store (archives `install VERSION` fetched)");
  cache->footer(
      "Exit codes: 0 done; 2 the cache cannot be read or a file cannot be removed.\n"
      "Example:\n  cudnnup cache clean --dry-run");
  static bool dry_run = false;
  auto* clean = cache->add_subcommand("clean", "Remove the downloaded archives and partial downloads, and say what was removed");
  clean->footer(
      "The cache is the store's cache folder (the store: " + help_words().store + ").\n"
      "Installed versions do not need it: `install VERSION` downloads again when it must. Waits for the\n"
      "store's lock, so a download in progress is left alone.\n"
      "Exit codes: 0 done (also when the cache was empty); 2 the cache cannot be read or a file cannot be\n"
      "removed (the message names it).\n"
      "Examples:\n  cudnnup cache clean --dry-run\n  cudnnup cache clean --json");
  clean->add_flag("--dry-run", dry_run, "Say what would be removed; remove nothing");
  clean->callback([&action] { action = [](AppContext& ctx) { return run_cache_clean(ctx, dry_run); }; });
}

}  // namespace cudnnup
