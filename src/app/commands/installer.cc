#include "app/commands/installer.h"

#if CUDNNUP_HAVE_INSTALL

#include <algorithm>

#include "platform/sha256.h"
#include "binfmt/elf.h"
#include "base/paths.h"
#include "install/transaction.h"

namespace cudnnup {
namespace {

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "\n  - " + l;
  return out;
}

// Text inside a PowerShell single-quoted string: a ' is written twice.
std::string powershell_quoted_body(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out;
}

// Permission problems end with the command that would work: on Linux with sudo; on Windows (a
// toolkit under C:\Program Files is writable only by administrators) a PowerShell line that runs
// the same install elevated, with absolute paths since the elevated process starts in System32.
// Either way, store mode is offered: it needs no rights beyond the user's own.

Error permission_hint(const Error& e, const std::string& dir, const InstallOptions& o) {
  std::string msg = "cannot write to " + dir + " (" + e.message + "). Nothing was changed. ";
  if (o.into && o.windows) {
    std::string archive = paths::to_native(o.archive, true), into = paths::to_native(*o.into, true);
    msg += "Changing " + into + " needs administrator rights. Run the same install elevated from PowerShell:\n"
           "  Start-Process cudnnup -Verb RunAs -Wait -ArgumentList 'install \"" + powershell_quoted_body(archive) + "\" --into \"" +
           powershell_quoted_body(into) + "\"'\n"
           "(or open \"Terminal (Admin)\" and run the install there), or install into your own store, which needs no "
           "administrator rights: `cudnnup install \"" + archive + "\"` and select it with `cudnnup use`.";
  } else if (o.into) {
    msg += "Run it with the rights to change that toolkit: `sudo cudnnup install " + o.archive + " --into " + *o.into +
           "`, or install into your own store without sudo: `cudnnup install " + o.archive + "` and select it with `cudnnup use`.";
  } else {
    msg += "Point the store at a writable directory with CUDNNUP_HOME=DIR, or fix the ownership of " + dir + ".";
  }
  return make_error(ErrorCode::kPermission, msg, dir);
}

// Every staged library must be a whole ELF file (a partial write or full disk shows here).
Status verify_staged(const FileSystem& fs, const std::string& stage, const ScanResult& scan) {
  for (const auto& lib : scan.report.libraries) {
    if (lib.is_link) continue;
    std::string path = stage + "/" + lib.rel;
    auto info = fs.lstat(path);
    if (!info) return info.error();
    const ArchiveItem* item = nullptr;
    for (const auto& i : scan.items) {
      if (i.rel == lib.rel) item = &i;
    }
    if (item && info->size != item->size) {
      return make_error(ErrorCode::kIo, "the staged copy of " + lib.rel + " has " + std::to_string(info->size) +
                                            " bytes instead of " + std::to_string(item->size) + " (disk full?)", path);
    }
    if (lib.format != BinaryFormat::kElf) continue;
    RangeReader reader = [&](uint64_t offset, size_t n) { return fs.read_range(path, offset, n); };
    auto elf = parse_elf(reader, info->size);
    if (!elf) return make_error(ErrorCode::kCorrupt, lib.rel + " is not a valid ELF file: " + elf.error().message, path);
    if (!elf->problems.empty()) {
      return make_error(ErrorCode::kCorrupt, lib.rel + " is damaged: " + elf->problems.front(), path);
    }
  }
  return ok_status();
}

// A refused install leaves no trace, not even the empty store directories it made.
void remove_empty_dirs(FileSystem& fs, const std::vector<std::string>& dirs) {
  for (const auto& d : dirs) {
    auto listing = fs.list_dir(d);
    if (listing.ok() && listing->empty()) (void)fs.remove(d);
  }
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

Result<InstallOutcome> run_install(FileSystem& fs, const FileSystem& source, const StoreLayout& store,
                                   const InstallOptions& o) {
  InstallOutcome out;
  out.dry_run = o.dry_run;

  // 1. The name, and checks that need no writing.
  auto name = parse_archive_name(o.archive);
  if (!name && name.error().code != ErrorCode::kUsage) return name.error();  // samples/JIT/unshipped platform
  if (name) {
    out.name = *name;
    if (!name->canonical) {
      out.warnings.push_back("'" + name->file_name + "' is not NVIDIA's spelling; read as " + name->canonical_name);
    }
  } else {
    out.warnings.push_back(name.error().message + "; identifying it from its contents");
  }
  auto archive_info = source.stat(o.archive);
  if (!archive_info) {
    return make_error(ErrorCode::kNotFound, "cannot read the archive " + o.archive + ": " + archive_info.error().message,
                      o.archive);
  }
  if (o.expected_size && archive_info->size != o.expected_size) {
    return make_error(ErrorCode::kCorrupt,
                      o.archive + " has " + std::to_string(archive_info->size) + " bytes but NVIDIA's manifest says " +
                          std::to_string(o.expected_size) + "; the download is incomplete or a different file — delete it and download again",
                      o.archive);
  }
  if (name && o.cuda_major && name->cuda_major != *o.cuda_major) {
    return make_error(ErrorCode::kUnsupported,
                      name->file_name + " is built for CUDA " + name->cuda_variant + ", not CUDA " + std::to_string(*o.cuda_major) +
                          "; download the _cuda" + std::to_string(*o.cuda_major) + " archive",
                      o.archive);
  }

  std::optional<ToolkitTarget> toolkit;
  if (o.into) {
    if (!fs.is_dir(*o.into)) {
      return make_error(ErrorCode::kNotFound, "the toolkit directory " + *o.into + " does not exist", *o.into);
    }
    toolkit = inspect_toolkit(fs, *o.into, o.windows);
    if (name && !o.force_cuda_mismatch) {
      if (!toolkit->cuda_version.known()) {
        return make_error(ErrorCode::kUnsupported,
                          "cannot tell which CUDA version " + toolkit->root + " is (no include/cuda.h, version.json or version.txt); "
                          "pass --force-cuda-mismatch if you are sure it is CUDA " + std::to_string(name->cuda_major),
                          toolkit->root);
      }
      if (toolkit->cuda_version.major() != name->cuda_major) {
        return make_error(ErrorCode::kUnsupported,
                          name->file_name + " is built for CUDA " + std::to_string(name->cuda_major) + " but " + toolkit->root +
                              " is CUDA " + toolkit->cuda_version.str() + " (" + toolkit->version_source +
                              "); download the _cuda" + std::to_string(toolkit->cuda_version.major()) +
                              " archive, or pass --force-cuda-mismatch to install it anyway",
                          toolkit->root);
      }
    }
  }
  if (!toolkit && name) {
    std::string id = store_version_id(name->version, name->cuda_major);
    if (fs.is_dir(store.version_dir(id))) {
      out.already_installed = true;
      out.plan.mode = "store";
      out.plan.id = id;
      out.plan.target = store.version_dir(id);
      return out;
    }
  }

  // 2. Where to stage. Creating the private directory is also the permission check.
  std::string stage = toolkit ? merge_stage_dir(*toolkit, o.txid) : store_stage_dir(store, o.txid);
  Journal begun;
  begun.id = o.txid;
  begun.kind = toolkit ? "install-merge" : "install-store";
  begun.description = "install " + std::string(paths::basename(o.archive)) + (toolkit ? " into " + toolkit->root : " into the store");
  begun.cleanup.push_back(stage);
  if (toolkit) begun.cleanup.push_back(stage + ".manifest.json");  // InstallPlan::manifest_stage_path
  ScanOptions scan_options;
  scan_options.name = out.name;
  scan_options.limits = o.limits;
  // The archive's own sha256 is worth its CPU only when there is a published one to compare it
  // with (known_archives.json, a redistrib manifest, --sha256); it is then computed in the same
  // pass as the extraction. Every file's sha256 goes into the manifest either way.
  scan_options.hash_archive = !o.expected_sha256.empty();
  TransactionRunner runner(fs, store.journal_dir());
  std::vector<std::string> created_store_dirs;  // deepest first; removed again when the install fails

  if (o.dry_run) {
    auto scan = scan_archive(source, o.archive, scan_options);
    if (!scan) return scan.error();
    out.scan = std::move(*scan);
  } else {
    std::string private_dir = toolkit ? toolkit->private_dir() : store.journal_dir();
    bool private_existed = fs.exists(private_dir);
    for (const auto& d : {store.root, store.versions_dir(), store.journal_dir()}) {
      if (!fs.exists(d)) created_store_dirs.insert(created_store_dirs.begin(), d);
    }
    if (auto s = fs.make_dirs(store.versions_dir()); !s) {
      return s.error().code == ErrorCode::kPermission ? permission_hint(s.error(), store.root, o) : s.error();
    }
    if (auto s = fs.make_dirs(store.journal_dir()); !s) {
      return s.error().code == ErrorCode::kPermission ? permission_hint(s.error(), store.root, o) : s.error();
    }
    if (toolkit && !private_existed) begun.new_dirs.push_back(private_dir);
    if (auto s = runner.begin(begun); !s) return s.error();
    auto fail = [&](Error e) -> Error {
      (void)runner.abandon(begun);
      remove_empty_dirs(fs, created_store_dirs);
      return e;
    };
    if (auto s = fs.make_dirs(stage); !s) {
      return fail(s.error().code == ErrorCode::kPermission ? permission_hint(s.error(), toolkit ? toolkit->root : store.root, o)
                                                           : s.error());
    }
    scan_options.stage_fs = &fs;
    scan_options.stage_dir = stage;
    auto scan = scan_archive(source, o.archive, scan_options);
    if (!scan) return fail(scan.error().code == ErrorCode::kPermission ? permission_hint(scan.error(), stage, o) : scan.error());
    out.scan = std::move(*scan);
    if (out.scan.report.ok()) {
      if (auto s = verify_staged(fs, stage, out.scan); !s) return fail(s.error());
    }
    const ContentReport& r = out.scan.report;
    if (!r.ok()) {
      return fail(make_error(ErrorCode::kCorrupt, "refusing " + o.archive + ":" + join_lines(r.errors), o.archive));
    }
  }

  auto abandon = [&](Error e) -> Error {
    if (!o.dry_run) {
      (void)runner.abandon(begun);
      remove_empty_dirs(fs, created_store_dirs);
    }
    return e;
  };
  out.archive_sha256 = out.scan.archive_sha256;
  if (!o.expected_sha256.empty() && out.archive_sha256 != o.expected_sha256) {
    return abandon(make_error(ErrorCode::kCorrupt,
                              o.archive + " has sha256 " + out.archive_sha256 + " but " + o.expected_sha256_from + " is " +
                                  o.expected_sha256 + "; the file is damaged or not the official archive — delete it and download it again",
                              o.archive));
  }
  const ContentReport& report = out.scan.report;
  if (!report.ok()) return make_error(ErrorCode::kCorrupt, "refusing " + o.archive + ":" + join_lines(report.errors), o.archive);
  for (const auto& w : report.warnings) out.warnings.push_back(w);

  // 3. Identity: the name, or failing that the top folder.
  std::optional<ArchiveName> identity = out.name;
  if (!identity) {
    auto from_top = parse_archive_name(out.scan.top_dir + ".tar.xz");
    if (from_top) identity = *from_top;
  }
  if (!identity) {
    return abandon(make_error(ErrorCode::kUnsupported,
                              "neither the file name nor the top folder '" + out.scan.top_dir +
                                  "' says which CUDA major the archive is built for; rename it to NVIDIA's name "
                                  "(cudnn-<platform>-<version>_cuda<M>-archive)",
                              o.archive));
  }
  if (o.cuda_major && identity->cuda_major != *o.cuda_major) {
    return abandon(make_error(ErrorCode::kUnsupported, "the archive is built for CUDA " + identity->cuda_variant + ", not CUDA " +
                                                           std::to_string(*o.cuda_major), o.archive));
  }
  if (toolkit && !out.name && !o.force_cuda_mismatch && toolkit->cuda_version.major() != identity->cuda_major) {
    return abandon(make_error(ErrorCode::kUnsupported, "the archive is built for CUDA " + identity->cuda_variant + " but " +
                                                           toolkit->root + " is CUDA " + toolkit->cuda_version.str(), o.archive));
  }
  if (toolkit && report.platform != ArchivePlatform::kUnknown &&
      (report.platform == ArchivePlatform::kWindows) != toolkit->windows) {
    return abandon(make_error(ErrorCode::kUnsupported,
                              std::string("the archive holds ") + archive_platform_name(report.platform) +
                                  " libraries; it cannot go into a " + (toolkit->windows ? "Windows" : "Linux") + " toolkit",
                              o.archive));
  }

  if (!toolkit && report.platform != ArchivePlatform::kUnknown && (report.platform == ArchivePlatform::kWindows) != o.windows) {
    return abandon(make_error(ErrorCode::kUnsupported,
                              std::string("the archive holds ") + archive_platform_name(report.platform) +
                                  " libraries, which cannot load on " + (o.windows ? "Windows" : "Linux") + "; download the " +
                                  (o.windows ? "cudnn-windows-x86_64-...-archive.zip" : "cudnn-linux-<arch>-...-archive.tar.xz") +
                                  " archive instead",
                              o.archive));
  }

  InstallManifest base;
  base.id = store_version_id(identity->version, identity->cuda_major);
  base.cudnn_version = identity->version.str();
  base.cuda_variant = identity->cuda_variant;
  base.cuda_major = identity->cuda_major;
  base.platform = identity->platform_key();
  base.archive_path = o.archive;
  base.archive_file_name = std::string(paths::basename(o.archive));
  base.archive_size = archive_info->size;
  base.archive_sha256 = out.archive_sha256;
  base.installed_at = o.now_iso;
  base.cudnnup_version = o.cudnnup_version;

  if (!toolkit && fs.is_dir(store.version_dir(base.id))) {
    (void)abandon(Error{});
    out.already_installed = true;
    out.plan.mode = "store";
    out.plan.id = base.id;
    out.plan.target = store.version_dir(base.id);
    return out;
  }

  // 4. The plan.
  if (toolkit) {
    auto plan = plan_merge_install(fs, *toolkit, o.txid, out.scan.items, report.header_version.major(), base, o.move_aside_old);
    if (!plan) return abandon(plan.error());
    out.plan = std::move(*plan);
    std::vector<std::string> other;
    for (const auto& l : out.plan.leftovers) {
      if (l.other_major) other.push_back(l.path + " (cuDNN " + std::to_string(l.major) + ")");
    }
    if (!other.empty() && !o.move_aside_old) {
      return abandon(make_error(ErrorCode::kConflict,
                                toolkit->root + " already holds cuDNN files of another major version, which would stay next to the new ones:" +
                                    join_lines(other) +
                                    "\nRerun with --move-aside-old to move them into " + toolkit->private_dir() +
                                    " (restored by `cudnnup uninstall --into " + toolkit->root + "`).",
                                toolkit->root));
    }
    for (const auto& l : out.plan.leftovers) {
      if (!l.other_major && !o.move_aside_old) {
        out.warnings.push_back(l.path + " is a cuDNN file the archive does not replace; --move-aside-old would move it aside");
      }
    }
  } else {
    out.plan = plan_store_install(store, o.txid, out.scan.items, base);
  }
  if (o.dry_run) return out;

  // 5. Manifest, durability, commit.
  out.plan.journal.new_dirs.insert(out.plan.journal.new_dirs.begin(), begun.new_dirs.begin(), begun.new_dirs.end());
  if (auto s = fs.write_file(out.plan.manifest_stage_path, manifest_to_json(out.plan.manifest), true); !s) {
    return abandon(s.error());
  }
  if (auto s = fs.sync_filesystem(stage); !s) return abandon(s.error());
  if (auto s = runner.commit(out.plan.journal); !s) {
    remove_empty_dirs(fs, created_store_dirs);
    if (s.error().code == ErrorCode::kPermission) return permission_hint(s.error(), out.plan.target, o);
    return s.error();
  }
  return out;
}

Result<UninstallOutcome> run_uninstall(FileSystem& fs, const StoreLayout& store, const UninstallOptions& o) {
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
      auto h = sha256_file(fs, dest);
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

#endif  // CUDNNUP_HAVE_INSTALL
