// `cudnnup lock`: writes cudnn.lock (install/cudnn_lock.h) for the version selected here, beside
// the project's .cudnn-version or in --dir (docs/commands/lock.md).
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"
#include "app/commands/doctor_runner.h"
#include "app/commands/store_access.h"
#include "base/paths.h"
#include "diagnose/lock_check.h"
#include "facts/machines.h"
#include "install/cudnn_lock.h"
#include "platform/sha256.h"

namespace cudnnup {
namespace {

struct LockOptions {
  std::string dir;
  std::string copy;  // --copy DIR: a pip wheel's or toolkit's copy instead of the selected store version
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

int write_and_say(AppContext& ctx, const std::string& path, const CudnnLock& lock, const std::string& how) {
  if (auto s = write_lock_file(*ctx.fs, path, lock); !s) return report_error(ctx, s.error());
  if (ctx.options.json) {
    std::cout << lock_to_json(lock) << std::flush;
  } else if (!ctx.options.quiet) {
    std::cout << "Wrote " << shown_path(ctx, path) << ": cuDNN " << lock.id << " (" << lock.form << "), "
              << lock.files.size() << " files (" << how << ")\n"
              << "  `cudnnup check` compares a machine with it"
              << (lock.form == kLockFormStore ? "; `cudnnup install --locked` installs it" : "") << "\n";
  }
  return kExitOk;
}

// lock --copy DIR: one of the copies doctor finds (a pip wheel, a toolkit), named by its library
// folder or its root, hashed now. The lock goes into --dir, else the current directory.
int run_lock_copy(AppContext& ctx, const LockOptions& opt) {
  if (!opt.dir.empty() && !ctx.fs->is_dir(opt.dir)) {
    return report_error(ctx, make_error(ErrorCode::kUsage, "--dir " + opt.dir + " is not a directory", opt.dir));
  }
  auto report = collect_report(ctx);
  if (!report) return report_error(ctx, report.error());
  const CudnnCopy* found = copy_at(*ctx.fs, report->copies, opt.copy);
  if (!found) {
    std::string seen;
    for (const auto& c : report->copies) {
      if (c.form == PackageForm::kPipWheel || c.form == PackageForm::kToolkitMerged) {
        seen += "\n  " + std::string(package_form_name(c.form)) + ": " + c.lib_dir;
      }
    }
    return report_error(ctx, make_error(ErrorCode::kUsage, "--copy " + opt.copy + " is not a cuDNN copy cudnnup finds here" +
                                                               (seen.empty() ? std::string(" (none of pip or toolkit form is)")
                                                                             : ", the pip and toolkit copies are:" + seen),
                                        opt.copy));
  }
  auto rules = load_rules(ctx);
  if (!rules) return report_error(ctx, rules.error());
  const FileSystem& fs = *ctx.fs;
  BelowHasher hasher = [&fs](const std::string& root, const std::string& rel) { return sha256_file_below(fs, root, rel); };
  auto lock = lock_from_copy(fs, *found, archive_platform_key_for(host_machine(), ctx.env.windows()), *rules, hasher);
  if (!lock) return report_error(ctx, lock.error());
  std::string dir = opt.dir.empty() ? ctx.env.cwd : opt.dir;
  return write_and_say(ctx, paths::join(dir, kLockFileName), *lock, "each hashed now");
}

int run_lock(AppContext& ctx, const LockOptions& opt) {
  if (!opt.copy.empty()) return run_lock_copy(ctx, opt);
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
  return write_and_say(ctx, *path, *lock, opt.deep ? "each hashed now" : "sha256 from the install manifest");
}

}  // namespace

void add_lock_command(CLI::App& app, CommandAction& action) {
  static LockOptions opt;
  auto* cmd = app.add_subcommand("lock", "Write cudnn.lock: the selected cuDNN, file by file, for `check` and `install --locked`");
  cmd->footer(
      "The lock goes beside the .cudnn-version that selects the version (`cudnnup use --local V`), or\n"
      "into --dir. It names the version, CUDA variant, platform, the archive's sha256, every file with\n"
      "its size and sha256 (from the install manifest; --deep hashes them again) and the driver minimum.\n"
      "--copy DIR locks a pip wheel's or a toolkit's cuDNN instead (DIR: its library folder or root, as\n"
      "`cudnnup list` shows it), hashing its libcudnn* and cudnn*.h files; the lock goes into --dir or here.\n"
      "Exit codes: 0 written; 2 nothing (or system) selected, no project, the install manifest is\n"
      "unreadable, or --copy names no pip or toolkit copy found here.\n"
      "Examples:\n  cudnnup use --local 9.19 && cudnnup lock\n  cudnnup lock --dir ~/proj --deep\n"
      "  cudnnup lock --copy .venv/lib/python3.11/site-packages/nvidia/cudnn");
  cmd->add_option("--dir", opt.dir, "Write DIR/cudnn.lock instead of beside the project's .cudnn-version")->type_name("DIR");
  cmd->add_option("--copy", opt.copy, "Lock this pip-wheel or toolkit copy (its library folder or root) instead of the selected version")
      ->type_name("DIR");
  cmd->add_flag("--deep", opt.deep, "Hash every file again instead of taking the install manifest's sha256 (--copy always hashes)");
  cmd->callback([&action] { action = [](AppContext& ctx) { return run_lock(ctx, opt); }; });
}

}  // namespace cudnnup
