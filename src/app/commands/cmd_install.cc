// `cudnnup install ARCHIVE|VERSION`: into the store (default) or merged into a CUDA toolkit
// (--into), all or nothing. See docs/commands/install.md.
#include <cctype>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"

#if CUDNNUP_HAVE_INSTALL
#include <chrono>
#include <ctime>
#include <random>

#include "app/render/archive_render.h"
#include "app/commands/archive_source.h"
#include "app/commands/installer.h"
#include "app/commands/recovery.h"
#include "base/paths.h"
#include "install/transaction.h"
#include "platform/file_lock.h"
#include "platform/system.h"
#include "base/strings.h"
#include "base/json_text.h"
#endif

namespace cudnnup {


struct InstallArgs {
  std::string source;
  int cuda = 0;
  std::string into;
  std::string mirror;
  bool dry_run = false;
  bool force_cuda_mismatch = false;
  bool move_aside_old = false;
  bool no_wait = false;
  std::string sha256;
};

#if CUDNNUP_HAVE_INSTALL

std::string now_iso8601() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string new_transaction_id() {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::random_device rd;
  return make_transaction_id(ns, std::to_string(rd() % 100000));
}

std::string absolute_path(const AppContext& ctx, const std::string& p) {
  return paths::is_absolute(p) ? paths::normalize(p) : paths::normalize(paths::join(ctx.env.cwd, p));
}

// Takes the store lock; waits (saying so) unless --no-wait.
Result<FileLock> lock_store(AppContext& ctx, const StoreLayout& store, bool no_wait) {
  if (auto s = ctx.fs->make_dirs(store.root); !s) {
    return make_error(s.error().code, "cannot create the cudnnup store " + store.root + ": " + s.error().message +
                                          " (set CUDNNUP_HOME to a writable directory)", store.root);
  }
  auto lock = FileLock::acquire(store.lock_file(), false);
  if (lock || lock.error().code != ErrorCode::kConflict) return lock;
  if (no_wait) {
    return make_error(ErrorCode::kConflict, "another cudnnup is changing " + store.root + " (it holds " + store.lock_file() +
                                                "); try again when it has finished", store.lock_file());
  }
  std::cerr << "cudnnup: waiting for another cudnnup to finish (" << store.lock_file() << ")..." << std::endl;
  return FileLock::acquire(store.lock_file(), true);
}

std::string host_platform_key(const AppContext& ctx) {
  return archive_platform_key_for(host_machine(), ctx.env.windows());
}

int run_install_command(AppContext& ctx, const InstallArgs& args) {
  StoreLayout store = StoreLayout::for_environment(ctx.env);
  std::optional<FileLock> lock;
  std::vector<std::string> recovered;
  if (!args.dry_run) {
    auto l = lock_store(ctx, store, args.no_wait);
    if (!l) return report_error(ctx, l.error());
    lock.emplace(std::move(*l));
    auto r = recover_with_lock_held(*ctx.fs, store);
    if (!r) return report_error(ctx, r.error());
    recovered = *r;
    for (const auto& line : recovered) std::cerr << "cudnnup: " << line << std::endl;
  }

  InstallOptions o;
  if (!args.into.empty()) o.into = absolute_path(ctx, args.into);
  if (args.cuda) o.cuda_major = args.cuda;
  SourceRequest req;
  req.arg = args.source;
  req.cuda_major = o.cuda_major;
  if (!req.cuda_major && o.into && looks_like_version(args.source)) {
    ToolkitTarget t = inspect_toolkit(*ctx.fs, *o.into, ctx.env.windows());
    if (t.cuda_version.known()) req.cuda_major = t.cuda_version.major();
  }
  req.mirror = !args.mirror.empty() ? args.mirror : ctx.env.get("CUDNNUP_MIRROR").value_or("");
  req.platform_key = host_platform_key(ctx);
  req.progress = !ctx.options.json && !ctx.options.quiet && stdout_is_terminal();
  req.dry_run = args.dry_run;
  auto source = resolve_source(*ctx.fs, store, req);
  if (!source) return report_error(ctx, source.error());

  if (source->archive_path.empty()) {  // dry run of a download
    if (ctx.options.json) {
      nlohmann::json out = {{"schema", 1}, {"command", "install"}, {"dry_run", true}, {"would_download", source->url},
                            {"manifest", source->manifest_url}, {"size", source->expected_size}, {"sha256", source->expected_sha256},
                            {"exit_code", 0}};
      std::cout << dump_json(out, 2) << std::endl;
    } else {
      std::cout << "Would download " << source->url << " (" << human_bytes(source->expected_size) << ", sha256 "
                << source->expected_sha256 << ")\nfrom the manifest " << source->manifest_url
                << "; run without --dry-run to download it and see the full plan.\n";
    }
    return kExitOk;
  }

  o.archive = absolute_path(ctx, source->archive_path);
  o.dry_run = args.dry_run;
  o.force_cuda_mismatch = args.force_cuda_mismatch;
  o.move_aside_old = args.move_aside_old;
  o.windows = ctx.env.windows();
  if (!args.sha256.empty()) {
    std::string given = ascii_lower(args.sha256);
    if (!source->expected_sha256.empty() && source->expected_sha256 != given) {
      return report_error(ctx, make_error(ErrorCode::kUsage, "--sha256 " + given + " differs from NVIDIA's published sha256 " +
                                                                 source->expected_sha256 + " for " + source->file_name +
                                                                 "; check where the value came from"));
    }
    if (source->expected_sha256.empty()) o.expected_sha256_from = "the sha256 given with --sha256";
    source->expected_sha256 = given;
  }
  o.expected_sha256 = source->expected_sha256;
  o.expected_size = source->expected_size;
  o.txid = new_transaction_id();
  o.now_iso = now_iso8601();
  o.cudnnup_version = CUDNNUP_VERSION;
  auto result = run_install(*ctx.fs, *ctx.fs, store, o);
  if (!result) return report_error(ctx, result.error());
  const InstallOutcome& r = *result;

  if (ctx.options.json) {
    nlohmann::json out;
    out["schema"] = 1;
    out["command"] = "install";
    out["dry_run"] = r.dry_run;
    out["mode"] = r.plan.mode;
    out["id"] = r.plan.id;
    out["target"] = r.plan.target;
    out["already_installed"] = r.already_installed;
    out["archive"] = archive_identity_json(r.name, o.archive, r.scan.archive_bytes, r.archive_sha256);
    out["source"] = {{"url", source->url}, {"manifest", source->manifest_url}, {"downloaded", source->downloaded},
                     {"from_cache", source->from_cache}, {"checked_against_known_hash", !source->expected_sha256.empty()}};
    if (!r.already_installed) out["contents"] = contents_json(r.scan);
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& s : r.plan.steps) steps.push_back({{"action", s.action}, {"path", s.path}, {"detail", s.detail}});
    out["steps"] = steps;
    nlohmann::json left = nlohmann::json::array();
    for (const auto& l : r.plan.leftovers) left.push_back({{"path", l.path}, {"major", l.major}, {"other_major", l.other_major}, {"moved_aside", o.move_aside_old}});
    out["leftovers"] = left;
    out["warnings"] = r.warnings;
    out["recovered"] = recovered;
    out["exit_code"] = kExitOk;
    std::cout << dump_json(out, 2) << std::endl;
    return kExitOk;
  }
  Style st{ctx.color};
  for (const auto& w : r.warnings) std::cerr << "cudnnup: warning: " << w << std::endl;
  if (r.already_installed) {
    std::cout << st.ok() << " cuDNN " << r.plan.id << " is already installed at " << r.plan.target << "\n";
    return kExitOk;
  }
  const ContentReport& c = r.scan.report;
  int libs = 0;
  for (const auto& l : c.libraries) libs += !l.is_link;
  std::string where = r.plan.mode == "store" ? "the store" : "the toolkit " + r.plan.target;
  if (r.dry_run) {
    std::cout << st.bold("Plan") << ": install cuDNN " << r.plan.manifest.cudnn_version << " (CUDA " << r.plan.manifest.cuda_variant
              << ") into " << where << "\n";
    for (const auto& s : r.plan.steps) std::cout << "  " << s.action << "  " << s.path << (s.detail.empty() ? "" : "  (" + s.detail + ")") << "\n";
    std::cout << "Nothing was changed (--dry-run).\n";
    return kExitOk;
  }
  std::cout << st.ok() << " checked " << r.scan.items.size() << " entries, " << libs << " libraries (" << c.machine << "), "
            << human_bytes(r.scan.unpacked_bytes);
  if (r.archive_sha256.empty()) std::cout << "; no published sha256 for this archive (give one with --sha256 to check it)\n";
  else std::cout << "; sha256 " << r.archive_sha256.substr(0, 16) << "… matches " << (args.sha256.empty() ? "NVIDIA's" : "--sha256") << "\n";
  for (const auto& l : r.plan.leftovers) {
    if (o.move_aside_old) std::cout << st.ok() << " moved aside " << l.path << "\n";
  }
  std::cout << st.ok() << " installed cuDNN " << r.plan.manifest.cudnn_version << " (CUDA " << r.plan.manifest.cuda_variant << ") into "
            << r.plan.target << "\n";
  if (r.plan.mode == "store") std::cout << "Next: cudnnup use " << r.plan.id << "\n";
  else std::cout << "Undo with: cudnnup uninstall --into " << r.plan.target << "\n";
  return kExitOk;
}

#endif

void add_install_command(CLI::App& app, CommandAction& action) {
  auto args = std::make_shared<InstallArgs>();
  auto* cmd = app.add_subcommand("install", "Install cuDNN from an official archive or by version, all or nothing");
  cmd->add_option("archive_or_version", args->source,
                  "An archive (.tar.xz/.zip/.tgz) or a version such as 9.1.0 (needs --cuda, fetched through NVIDIA's redistrib manifest)")
      ->required();
  cmd->add_option("--cuda", args->cuda, "The CUDA major the cuDNN build must be for (12, 13, ...)");
  cmd->add_option("--into", args->into, "Merge into this CUDA toolkit (Linux: include, lib64; Windows: bin, include, lib\\x64) instead of the store; undo with uninstall --into");
  cmd->add_option("--mirror", args->mirror, "Where redistrib manifests and archives live: https/http URL or a directory (default: NVIDIA; env CUDNNUP_MIRROR)");
  cmd->add_flag("--dry-run", args->dry_run, "Check the archive and print every file and step; change nothing");
  cmd->add_flag("--force-cuda-mismatch", args->force_cuda_mismatch, "Merge even when the toolkit's CUDA major differs from the archive's");
  cmd->add_flag("--move-aside-old", args->move_aside_old, "Move cuDNN files of another version out of the toolkit (restored by uninstall)");
  cmd->add_option("--sha256", args->sha256, "The archive's published sha256 (64 hex digits): the install stops if the file differs")
      ->check([](const std::string& v) {
        return ascii_lower(v).size() == 64 && ascii_lower(v).find_first_not_of("0123456789abcdef") == std::string::npos
                   ? std::string()
                   : std::string("--sha256 needs 64 hexadecimal digits");
      });
  cmd->add_flag("--no-wait", args->no_wait, "Fail at once (exit 4) when another cudnnup holds the store lock");
  cmd->footer(
      "Store mode (default) unpacks into $XDG_DATA_HOME/cudnnup/versions/<version>+cuda<M>/ — no root needed;\n"
      "select it with `cudnnup use`. Merge mode (--into) is the classic copy into a toolkit, with every\n"
      "replaced file backed up and a manifest so `cudnnup uninstall --into DIR` restores it exactly.\n"
      "Every entry is checked before anything is written; a crash at any point is repaired by the next run.\n\n"
      "Exit codes: 0 installed (or already there), 2 refused or failed (nothing changed), 4 another cudnnup\n"
      "holds the lock (--no-wait) or the toolkit already has a cudnnup install.\n"
      "Examples:\n"
      "  cudnnup install cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz\n"
      "  cudnnup install 9.1.0 --cuda 12\n"
      "  sudo cudnnup install cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz --into /usr/local/cuda-13.0 --dry-run\n"
      "  cudnnup install cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip --into \"C:\\Program Files\\NVIDIA GPU Computing "
      "Toolkit\\CUDA\\v12.4\"   (Windows, elevated)");
  cmd->callback([&action, args] {
#if CUDNNUP_HAVE_INSTALL
    action = [args](AppContext& ctx) { return run_install_command(ctx, *args); };
#else
    action = [](AppContext& ctx) {
      return report_error(ctx, make_error(ErrorCode::kUnsupported,
                                          "install is not available in this build: it was built without libarchive (for the Windows "
                                          "cross-build, run scripts/build-windows-deps.sh before configuring)"));
    };
#endif
  });
}

}  // namespace cudnnup
