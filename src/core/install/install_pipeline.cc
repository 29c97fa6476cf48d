#include "install/install_pipeline.h"

#include <map>

#include "base/paths.h"
#include "base/strings.h"
#include "facts/machines.h"
#include "install/merge_check.h"
#include "install/permission_hint.h"
#include "install/resolved_tree.h"
#include "install/staged_libraries.h"
#include "install/transaction.h"

namespace cudnnup {

bool same_machine(const std::string& a, const std::string& b) {
  const Machine* ma = machine_by_name(a);
  const Machine* mb = machine_by_name(b);
  return ma && mb ? ma == mb : a == b;
}

namespace {

// Everything the steps share.
struct InstallRun {
  FileSystem& fs;
  const FileSystem& source;
  const StoreLayout& store;
  const InstallOptions& o;
  const InstallServices& services;
  InstallOutcome out;
  uint64_t archive_size = 0;
  std::optional<ToolkitTarget> toolkit;
  std::optional<ArchiveName> identity;  // the file name's, or the top folder's
  std::string stage;
  // What the archive's sha256 must be, and who says so: the options', or the known row the top
  // folder names (verify) when the file name is not NVIDIA's.
  std::string expected_sha256;
  std::string expected_sha256_from;
};

// The one rollback guard. Armed once the staging journal is written: a failure before the commit
// abandons the journal and removes the stage and the store folders made for this install (a
// refused install leaves no trace). From the commit on, the transaction rolls itself back, so
// only the empty folders are left to remove. Dismissed on success.
class RollbackGuard {
 public:
  explicit RollbackGuard(FileSystem& fs, const StoreLayout& store) : fs_(fs), runner_(fs, store) {}
  ~RollbackGuard() {
    if (state_ == kStaging) (void)runner_.abandon(journal_);
    if (state_ != kDone) remove_empty_dirs();
  }
  RollbackGuard(const RollbackGuard&) = delete;
  RollbackGuard& operator=(const RollbackGuard&) = delete;

  // Folders about to be made for the store (removed again when they stay empty).
  void made_dirs(std::vector<std::string> dirs) { created_ = std::move(dirs); }
  Status begin(Journal journal) {
    journal_ = std::move(journal);
    if (auto s = runner_.begin(journal_); !s) return s;
    state_ = kStaging;
    return ok_status();
  }
  const Journal& journal() const { return journal_; }
  Status commit(Journal& plan) {
    state_ = kCommitting;
    if (auto s = runner_.commit(plan); !s) return s;
    state_ = kDone;
    return ok_status();
  }

 private:
  void remove_empty_dirs() {
    for (const auto& d : created_) {  // deepest first
      auto listing = fs_.list_dir(d);
      if (listing.ok() && listing->empty()) (void)fs_.remove(d);
    }
  }
  enum State { kIdle, kStaging, kCommitting, kDone };
  FileSystem& fs_;
  TransactionRunner runner_;
  Journal journal_;
  std::vector<std::string> created_;
  State state_ = kIdle;
};

// The CUDA checks an identity must pass; run once, for the file name when it is recognised
// (before anything is read) and otherwise for the top folder (after the pass).
Status check_cuda(const InstallRun& run, const ArchiveName& id) {
  const InstallOptions& o = run.o;
  if (o.cuda_major && id.cuda_major != *o.cuda_major) {
    return make_error(ErrorCode::kUnsupported,
                      id.file_name + " is built for CUDA " + id.cuda_variant + ", not CUDA " + std::to_string(*o.cuda_major) +
                          "; download the _cuda" + std::to_string(*o.cuda_major) + " archive",
                      o.archive);
  }
  if (!run.toolkit || o.force_cuda_mismatch) return ok_status();
  const ToolkitTarget& t = *run.toolkit;
  if (!t.cuda_version.known()) {
    return make_error(ErrorCode::kUnsupported,
                      "cannot tell which CUDA version " + t.root + " is (no include/cuda.h, version.json or version.txt); "
                      "pass --force-cuda-mismatch if you are sure it is CUDA " + std::to_string(id.cuda_major),
                      t.root);
  }
  if (t.cuda_version.major() != id.cuda_major) {
    return make_error(ErrorCode::kUnsupported,
                      id.file_name + " is built for CUDA " + std::to_string(id.cuda_major) + " but " + t.root + " is CUDA " +
                          t.cuda_version.str() + " (" + t.version_source + "); download the _cuda" +
                          std::to_string(t.cuda_version.major()) + " archive, or pass --force-cuda-mismatch to install it anyway",
                      t.root);
  }
  return ok_status();
}

// A store version that is already there: nothing to do, and it says so.
void mark_already_installed(InstallRun& run, const std::string& id) {
  run.out.already_installed = true;
  run.out.plan.mode = "store";
  run.out.plan.id = id;
  run.out.plan.target = run.store.version_dir(id);
}

// --- 1. validate ------------------------------------------------------------------------------

Status validate(InstallRun& run) {
  const InstallOptions& o = run.o;
  auto name = parse_archive_name(o.archive);
  if (!name && name.error().code != ErrorCode::kUsage) return name.error();  // samples/JIT/unshipped platform
  if (name) {
    run.out.name = *name;
    run.identity = *name;
    if (!name->canonical) {
      run.out.warnings.push_back("'" + name->file_name + "' is not NVIDIA's spelling; read as " + name->canonical_name);
    }
  } else {
    run.out.warnings.push_back(name.error().message + "; identifying it from its contents");
  }
  auto info = run.source.stat(o.archive);
  if (!info) {
    return make_error(ErrorCode::kNotFound, "cannot read the archive " + o.archive + ": " + info.error().message, o.archive);
  }
  run.archive_size = info->size;
  if (o.expected_size && info->size != o.expected_size) {
    return make_error(ErrorCode::kCorrupt,
                      o.archive + " has " + std::to_string(info->size) + " bytes but NVIDIA's manifest says " +
                          std::to_string(o.expected_size) + "; the download is incomplete or a different file — delete it and download again",
                      o.archive);
  }
  if (o.into) {
    if (!run.fs.is_dir(*o.into)) {
      return make_error(ErrorCode::kNotFound, "the toolkit directory " + *o.into + " does not exist", *o.into);
    }
    run.toolkit = inspect_toolkit(run.fs, *o.into, o.windows);
    if (std::string pending = pending_transaction_in(run.fs, *run.toolkit, o.txid); !pending.empty()) {
      return make_error(ErrorCode::kConflict,
                        run.toolkit->private_dir() + "/" + pending + " belongs to an interrupted change by another cudnnup "
                        "store; run any cudnnup command with that store (its CUDNNUP_HOME) to repair it first",
                        run.toolkit->private_dir() + "/" + pending);
    }
  }
  if (run.identity) {
    if (auto s = check_cuda(run, *run.identity); !s) return s;
    std::string id = store_version_id(run.identity->version, run.identity->cuda_major);
    if (!run.toolkit && run.fs.is_dir(run.store.version_dir(id))) mark_already_installed(run, id);
  }
  return ok_status();
}

// --- 2. stage ---------------------------------------------------------------------------------

Status stage(InstallRun& run, RollbackGuard& guard) {
  const InstallOptions& o = run.o;
  FileSystem& fs = run.fs;
  const StoreLayout& store = run.store;
  const std::optional<ToolkitTarget>& toolkit = run.toolkit;
  ScanOptions scan_options;
  scan_options.name = run.out.name;
  scan_options.limits = o.limits;
  // The archive's own digest is worth its CPU only when there is a published one to compare it
  // with (known_archives.json, a redistrib manifest, --sha256), or may be once the top folder is
  // read: a file name that is not NVIDIA's may hide a published archive. Every file's digest goes
  // into the manifest either way.
  scan_options.hash_archive = !o.expected_sha256.empty() || (!o.published.empty() && !run.out.name);
  // Computed while the checks and the writing to disk that follow run (check_archive_sha256).
  scan_options.defer_archive_hash = true;
  if (!o.dry_run) {
    run.stage = toolkit ? merge_stage_dir(*toolkit, o.txid) : store_stage_dir(store, o.txid);
    // The journal names its paths relative to its root (docs/security.md).
    std::string journal_root = toolkit ? toolkit->root : store.root;
    std::string stage_rel = run.stage.substr(journal_root.size() + 1);
    Journal begun;
    begun.id = o.txid;
    begun.root = journal_root;
    begun.kind = toolkit ? "install-merge" : "install-store";
    begun.description = "install " + std::string(paths::basename(o.archive)) + (toolkit ? " into " + toolkit->root : " into the store");
    begun.cleanup.push_back(stage_rel);
    if (toolkit) begun.cleanup.push_back(stage_rel + ".manifest.json");  // InstallPlan::manifest_stage_path
    std::vector<std::string> made;  // deepest first
    for (const auto& d : {store.root, store.versions_dir(), store.journal_dir()}) {
      if (!fs.exists(d)) made.insert(made.begin(), d);
    }
    guard.made_dirs(made);
    // Creating the folders is also the permission check.
    for (const auto& d : {store.versions_dir(), store.journal_dir()}) {
      if (auto s = fs.make_dirs(d); !s) return with_permission_hint(s.error(), store.root, o);
    }
    if (toolkit && !fs.exists(toolkit->private_dir())) begun.new_dirs.push_back(".cudnnup");
    if (auto s = guard.begin(begun); !s) return s;
    if (auto s = fs.make_dirs(run.stage); !s) return with_permission_hint(s.error(), toolkit ? toolkit->root : store.root, o);
    scan_options.stage_fs = &fs;
    scan_options.stage_dir = run.stage;
  }
  auto scan = scan_archive(run.source, o.archive, scan_options, run.services);
  if (!scan) return with_permission_hint(scan.error(), run.stage, o);
  run.out.scan = std::move(*scan);
  return ok_status();
}

// --- 3. verify --------------------------------------------------------------------------------

Status check_platform(const InstallRun& run) {
  const ContentReport& report = run.out.scan.report;
  if (report.platform == ArchivePlatform::kUnknown) return ok_status();
  bool windows_libs = report.platform == ArchivePlatform::kWindows;
  if (run.toolkit && windows_libs != run.toolkit->windows) {
    return make_error(ErrorCode::kUnsupported,
                      std::string("the archive holds ") + archive_platform_name(report.platform) +
                          " libraries; it cannot go into a " + (run.toolkit->windows ? "Windows" : "Linux") + " toolkit",
                      run.o.archive);
  }
  if (!run.toolkit && windows_libs != run.o.windows) {
    return make_error(ErrorCode::kUnsupported,
                      std::string("the archive holds ") + archive_platform_name(report.platform) + " libraries, which cannot load on " +
                          (run.o.windows ? "Windows" : "Linux") + "; download the " +
                          (run.o.windows ? "cudnn-windows-x86_64-...-archive.zip" : "cudnn-linux-<arch>-...-archive.tar.xz") +
                          " archive instead",
                      run.o.archive);
  }
  return ok_status();
}

// Libraries for another CPU would install and then fail to load ("wrong ELF class" or error 193).
Status check_architecture(const InstallRun& run) {
  const std::string& libs = run.out.scan.report.machine;
  if (libs.empty() || run.o.cross_arch) return ok_status();
  std::string target = run.o.host_machine;
  std::string whose = "this machine";
  if (run.toolkit && !run.toolkit->machine.empty()) {
    target = run.toolkit->machine;
    whose = run.toolkit->root + " (" + run.toolkit->machine_source + ")";
  }
  if (target.empty() || same_machine(libs, target)) return ok_status();
  return make_error(ErrorCode::kUnsupported,
                    "the archive's libraries are built for " + libs + " but " + whose + " is " + target +
                        ": they could not load there. Download the archive for " + target +
                        ", or pass --cross-arch to install them for another machine on purpose",
                    run.o.archive);
}

// In a merge, links are followed where they will really be: the toolkit's own folders resolved.
Status check_merged_links(InstallRun& run) {
  const ToolkitTarget& t = *run.toolkit;
  std::map<std::string, std::string> real;  // toolkit folder -> its real path
  auto real_dir = [&](const std::string& dir) {
    auto it = real.find(dir);
    if (it != real.end()) return it->second;
    std::string tail, at = dir;  // the deepest folder that exists, resolved, and the rest as written
    while (!at.empty() && !run.fs.exists(at) && paths::parent(at) != at) {
      tail = "/" + std::string(paths::basename(at)) + tail;
      at = paths::parent(at);
    }
    auto canon = run.fs.canonical(at);
    return real[dir] = (canon ? *canon : at) + tail;
  };
  TreeLayout layout;
  layout.merge = true;
  layout.where = "the cuDNN files it installs into " + t.root;
  layout.place = [&](const ArchiveItem& item) -> std::string {
    if (item.kind == EntryKind::kDirectory) return {};
    std::string dest = merge_destination(item.rel, t.windows, t.lib_dir);
    if (dest.empty()) return {};
    std::string full = t.root + "/" + dest;
    return real_dir(paths::parent(full)) + "/" + std::string(paths::basename(full));
  };
  return FinalTree(run.out.scan.items, layout).check();
}

// The archive's own sha256, computed since the scan began, against the published one. Waited for
// only before the commit (or at the end of a dry run), so the checks and the writing to disk
// overlap it.
Status check_archive_sha256(InstallRun& run) {
  const InstallOptions& o = run.o;
  InstallOutcome& out = run.out;
  if (auto s = settle_archive_sha256(out.scan, run.services.progress); !s) return s;
  out.archive_sha256 = out.scan.archive_sha256;
  if (run.expected_sha256.empty()) return ok_status();
  if (out.archive_sha256 != run.expected_sha256) {
    return make_error(ErrorCode::kCorrupt,
                      o.archive + " has sha256 " + out.archive_sha256 + " but " + run.expected_sha256_from + " is " +
                          run.expected_sha256 + "; the file is damaged or not the official archive — delete it and download it again",
                      o.archive);
  }
  out.sha256_checked_against = run.expected_sha256_from;
  return ok_status();
}

// A file name that is not NVIDIA's may hide a published archive ("cudnn (1).zip"): the known row
// the top folder names (on its canonical name, as the file name is looked up) is the sha256 the
// archive must have, whatever else claims one. NVIDIA's published hash always wins, and a claim
// that disagrees with it (--sha256, a mirror's) is an error naming both. stage() hashed the
// archive for this case.
Status hold_to_published_hash_of_top(InstallRun& run) {
  const std::string& top = run.out.scan.top_dir;
  if (run.out.name || top.empty()) return ok_status();
  const KnownArchive* row = find_known_archive(run.o.published, top + ".tar.xz");
  if (!row) row = find_known_archive(run.o.published, top + ".zip");
  if (!row) return ok_status();
  std::string from = std::string(row->refreshed ? "the store's refreshed known-archives row" : "NVIDIA's published sha256") +
                     " for " + row->file_name + " (the archive's top folder)";
  std::string other_claim = run.expected_sha256, other_from = run.expected_sha256_from;
  run.expected_sha256 = row->sha256;  // what check_archive_sha256 holds the bytes to, either way
  run.expected_sha256_from = from;
  run.out.top_folder_row = *row;
  if (!other_claim.empty() && other_claim != row->sha256) {
    return make_error(ErrorCode::kCorrupt,
                      "the sha256 of " + run.o.archive + " is not agreed on: " + from + " is " + row->sha256 + ", but " +
                          other_from + " is " + other_claim + "; check where that value came from. Nothing was installed.",
                      run.o.archive);
  }
  return ok_status();
}

Status verify(InstallRun& run) {
  const InstallOptions& o = run.o;
  InstallOutcome& out = run.out;
  const ContentReport& report = out.scan.report;
  // First: a wrong sha256 outranks what else is wrong with the contents (run_install).
  if (auto s = hold_to_published_hash_of_top(run); !s) return s;
  if (!report.ok()) return make_error(ErrorCode::kCorrupt, "refusing " + o.archive + ":" + bullet_lines(report.errors), o.archive);
  for (const auto& w : report.warnings) out.warnings.push_back(w);
  if (!run.identity) {
    if (auto from_top = parse_archive_name(out.scan.top_dir + ".tar.xz")) run.identity = *from_top;
    if (!run.identity) {
      return make_error(ErrorCode::kUnsupported,
                        "neither the file name nor the top folder '" + out.scan.top_dir +
                            "' says which CUDA major the archive is built for; rename it to NVIDIA's name "
                            "(cudnn-<platform>-<version>_cuda<M>-archive)",
                        o.archive);
    }
    if (auto s = check_cuda(run, *run.identity); !s) return s;
  }
  if (auto s = check_platform(run); !s) return s;
  if (auto s = check_architecture(run); !s) return s;
  if (run.toolkit) {
    if (auto s = check_merged_links(run); !s) return s;
  }
  if (o.dry_run) return ok_status();
  ProgressPhase phase(run.services.progress, "checking libraries", 0, {});
  return verify_staged_libraries(run.fs, run.stage, out.scan, o.windows || (run.toolkit && run.toolkit->windows));
}

// --- 4. plan ----------------------------------------------------------------------------------

Status plan(InstallRun& run) {
  const InstallOptions& o = run.o;
  InstallOutcome& out = run.out;
  const ArchiveName& id = *run.identity;
  InstallManifest base;
  base.id = store_version_id(id.version, id.cuda_major);
  base.cudnn_version = id.version.str();
  base.cuda_variant = id.cuda_variant;
  base.cuda_major = id.cuda_major;
  base.platform = id.platform_key();
  base.archive_file_name = std::string(paths::basename(o.archive));
  base.archive_size = run.archive_size;  // archive_sha256: in commit(), once it is settled
  base.installed_at = o.now_iso;
  base.cudnnup_version = o.cudnnup_version;

  if (!run.toolkit) {
    if (run.fs.is_dir(run.store.version_dir(base.id))) {
      mark_already_installed(run, base.id);  // known only from the top folder; the guard drops the stage
      return ok_status();
    }
    out.plan = plan_store_install(run.store, o.txid, out.scan.items, base);
    return ok_status();
  }
  const ToolkitTarget& t = *run.toolkit;
  auto p = plan_merge_install(run.fs, t, o.txid, out.scan.items, out.scan.report.header_version.major(), base, o.move_aside_old);
  if (!p) return p.error();
  out.plan = std::move(*p);
  std::vector<std::string> other;
  for (const auto& l : out.plan.leftovers) {
    if (l.other_major) other.push_back(l.path + " (cuDNN " + std::to_string(l.major) + ")");
    else if (!o.move_aside_old) out.warnings.push_back(l.path + " is a cuDNN file the archive does not replace; --move-aside-old would move it aside");
  }
  if (!other.empty() && !o.move_aside_old) {
    return make_error(ErrorCode::kConflict,
                      t.root + " already holds cuDNN files of another major version, which would stay next to the new ones:" +
                          bullet_lines(other) + "\nRerun with --move-aside-old to move them into " + t.private_dir() +
                          " (`uninstall --into` that toolkit puts them back).",
                      t.root);
  }
  return ok_status();
}

// --- 5. commit --------------------------------------------------------------------------------

// Every staged file durable, while the archive's sha256 may still be computing.
Status write_to_disk(InstallRun& run) {
  ProgressPhase phase(run.services.progress, "writing to disk", 0, {});
  return run.fs.sync_filesystem(run.stage);
}

Status commit(InstallRun& run, RollbackGuard& guard) {
  FileSystem& fs = run.fs;
  InstallPlan& p = run.out.plan;
  const auto& begun = guard.journal().new_dirs;
  p.journal.new_dirs.insert(p.journal.new_dirs.begin(), begun.begin(), begun.end());
  p.manifest.archive_sha256 = run.out.archive_sha256;
  // Written after the syncfs, so made durable on its own: the file, then its folder's entry.
  if (auto s = fs.write_private_file(p.manifest_stage_path, manifest_to_json(p.manifest), true); !s) return s;
  if (auto s = fs.sync_dir(std::string(paths::parent(p.manifest_stage_path))); !s) return s;
  ProgressPhase phase(run.services.progress, "committing", 0, {});
  if (auto s = guard.commit(p.journal); !s) return with_permission_hint(s.error(), p.target, run.o);
  return ok_status();
}

}  // namespace

Result<InstallOutcome> run_install(FileSystem& fs, const FileSystem& source, const StoreLayout& store,
                                   const InstallOptions& o, const InstallServices& services) {
  InstallRun run{fs, source, store, o, services, {}, 0, std::nullopt, std::nullopt, {}, o.expected_sha256, o.expected_sha256_from};
  run.out.dry_run = o.dry_run;
  if (auto s = validate(run); !s) return s.error();
  if (run.out.already_installed) return run.out;
  RollbackGuard guard(fs, store);
  if (auto s = stage(run, guard); !s) return s.error();
  Status checked = verify(run);
  if (checked) checked = plan(run);
  bool writes = checked && !run.out.already_installed && !o.dry_run;
  if (writes) checked = write_to_disk(run);
  // A wrong sha256 outranks whatever else went wrong: the file is not the archive it claims to be.
  if (auto s = check_archive_sha256(run); !s) return s.error();
  if (!checked) return checked.error();
  if (!writes) return run.out;
  if (auto s = commit(run, guard); !s) return s.error();
  return run.out;
}

}  // namespace cudnnup
