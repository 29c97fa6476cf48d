// `cudnnup lock`: writes cudnn.lock (install/cudnn_lock.h) for the version selected here, beside
// the project's .cudnn-version or in --dir (docs/commands/lock.md).
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"
#include "app/commands/doctor_runner.h"
#include "app/commands/store_access.h"
#include "base/paths.h"
#include "install/cudnn_lock.h"
#include "platform/sha256.h"

namespace cudnnup {
namespace {

struct LockOptions {
  std::string dir;
  bool deep = false;
};

// Where the lock goes: --dir, else the folder of the pin file that selects the version.
Result<std::string> lock_path(const AppContext& ctx, const LockOptions& opt, const Selection& selection) {
  if (!opt.dir.empty()) {
    if (!ctx.fs->is_dir(opt.dir)) return make_error(ErrorCode::kUsage, "--dir " + opt.dir + " is not a directory", opt.dir);
    return paths::join(opt.dir, kLockFileName);
  }
  if (selection.request.source == SelectionSource::kPinFile) {
    return paths::join(paths::parent(selection.request.origin), kLockFileName);
  }
  return make_error(ErrorCode::kUsage, "cuDNN " + selection.id.id + " is " + selection.request.describe() +
                                           ", not by a project's .cudnn-version: pin it with `cudnnup use --local " +
                                           selection.id.id + "` in the project, or give --dir PROJECT");
}

int run_lock(AppContext& ctx, const LockOptions& opt) {
  auto store = read_store(ctx);
  if (!store) return report_error(ctx, store.error());
  auto request = selection_request(ctx, *store);
  if (!request) return report_error(ctx, request.error());
  if (request->system()) {
    return report_error(ctx, make_error(ErrorCode::kUsage, "`system` is selected here (" + request->describe() +
                                                               "): a lock names a cudnnup version; choose one with "
                                                               "`cudnnup use --local VERSION`"));
  }
  auto selection = resolve_request(*request, store->installed, store->layout);
  if (!selection) return report_error(ctx, selection.error());
  auto path = lock_path(ctx, opt, *selection);
  if (!path) return report_error(ctx, path.error());
  auto manifest = read_manifest(*ctx.fs, paths::join(selection->dir, StoreLayout::kManifestName), selection->dir,
                                /*acting=*/false);
  if (!manifest) {
    return report_error(ctx, make_error(manifest.error().code, "cannot lock cuDNN " + selection->id.id + ": " +
                                                                   manifest.error().message +
                                                                   " (install it again with `cudnnup install`)",
                                        manifest.error().path));
  }
  auto rules = load_rules(ctx);
  if (!rules) return report_error(ctx, rules.error());
  const FileSystem& fs = *ctx.fs;
  BelowHasher hasher = [&fs](const std::string& root, const std::string& rel) { return sha256_file_below(fs, root, rel); };
  auto lock = lock_from_manifest(*manifest, *rules, &hasher, selection->dir, opt.deep);
  if (!lock) return report_error(ctx, lock.error());
  if (auto s = write_lock_file(*ctx.fs, *path, *lock); !s) return report_error(ctx, s.error());
  if (ctx.options.json) {
    std::cout << lock_to_json(*lock) << std::flush;
  } else if (!ctx.options.quiet) {
    std::cout << "Wrote " << shown_path(ctx, *path) << ": cuDNN " << lock->id << ", " << lock->files.size() << " files ("
              << (opt.deep ? "each hashed now" : "sha256 from the install manifest") << ")\n"
              << "  `cudnnup check` compares a machine with it; `cudnnup install --locked` installs it\n";
  }
  return kExitOk;
}

}  // namespace

void add_lock_command(CLI::App& app, CommandAction& action) {
  static LockOptions opt;
  auto* cmd = app.add_subcommand("lock", "Write cudnn.lock: the selected cuDNN, file by file, for `check` and `install --locked`");
  cmd->footer(
      "The lock goes beside the .cudnn-version that selects the version (`cudnnup use --local V`), or\n"
      "into --dir. It names the version, CUDA variant, platform, the archive's sha256, every file with\n"
      "its size and sha256 (from the install manifest; --deep hashes them again) and the driver minimum.\n"
      "Exit codes: 0 written; 2 nothing (or system) selected, no project, or the install manifest is unreadable.\n"
      "Examples:\n  cudnnup use --local 9.19 && cudnnup lock\n  cudnnup lock --dir ~/proj --deep");
  cmd->add_option("--dir", opt.dir, "Write DIR/cudnn.lock instead of beside the project's .cudnn-version")->type_name("DIR");
  cmd->add_flag("--deep", opt.deep, "Hash every file again instead of taking the install manifest's sha256");
  cmd->callback([&action] { action = [](AppContext& ctx) { return run_lock(ctx, opt); }; });
}

}  // namespace cudnnup
