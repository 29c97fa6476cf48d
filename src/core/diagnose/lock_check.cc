#include "diagnose/lock_check.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/paths.h"
#include "base/version.h"
#include "facts/cudnn_files.h"
#include "loader/which.h"

namespace cudnnup {
namespace {

std::string size_words(uint64_t n) { return std::to_string(n) + " bytes"; }

// Where a folder of the lock lies: below the store version's directory, or, for a pip or toolkit
// lock's lib/ and include/, the copy's library or header folder itself.
struct Place {
  std::string root, rel;  // rel "" : the root itself
};
Place folder_place(const LockedCopy& copy, const std::string& dir) {
  if (!copy.lib_dir.empty() && dir == "lib") return {copy.lib_dir, ""};
  if (!copy.include_dir.empty() && dir == "include") return {copy.include_dir, ""};
  return {copy.root, dir};
}
// Where a locked path lies: its folder's place, and the name in it.
Place place_of(const LockedCopy& copy, const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {copy.root, path};
  Place folder = folder_place(copy, path.substr(0, slash));
  return {folder.root, folder.rel.empty() ? path.substr(slash + 1) : folder.rel + path.substr(slash)};
}

// One locked file against the disk; nullopt when it matches.
std::optional<LockDrift> check_one(const FileSystem& fs, const LockedFile& f, const LockedCopy& copy,
                                   const std::map<std::string, const ManifestFile*>& installed, const FileHasher* hasher) {
  const Place at = place_of(copy, f.path);
  std::string shown = paths::join(at.root, at.rel);
  auto info = fs.lstat_below(at.root, at.rel);
  if (!info) {
    // Gone, or now reached through a link (never followed): either way not the locked file.
    if (info.error().code == ErrorCode::kPermission) return LockDrift{"not_a_file", shown, shown + ": reached through a link now"};
    return LockDrift{"missing", shown, shown + ": missing (the lock names it)"};
  }
  if (f.kind == EntryKind::kSymlink) {
    auto target = fs.read_link_below(at.root, at.rel);
    if (!target || *target != f.link_target) {
      return LockDrift{"link_changed", shown, shown + ": should be a link to " + f.link_target};
    }
    return std::nullopt;
  }
  if (info->type != FileType::kRegular) return LockDrift{"not_a_file", shown, shown + ": no longer a regular file"};
  if (info->size != f.size) {
    return LockDrift{"changed", shown, shown + ": " + size_words(info->size) + ", the lock says " + size_words(f.size)};
  }
  if (hasher) {
    auto sum = (*hasher)(at.root, at.rel);
    if (!sum) return LockDrift{"missing", shown, shown + ": cannot be read (" + sum.error().message + ")"};
    if (*sum != f.sha256) return LockDrift{"changed", shown, shown + ": same size, but its sha256 is not the lock's"};
    return std::nullopt;
  }
  // Fast: what install hashed must be what the lock names, and nothing may have written the
  // file since (install writes every file before its manifest).
  auto it = installed.find(f.path);
  if (it == installed.end()) {
    return LockDrift{"changed", shown, shown + ": the install manifest does not list it (run `cudnnup check --deep`)"};
  }
  if (!it->second->sha256.empty() && it->second->sha256 != f.sha256) {
    return LockDrift{"changed", shown, shown + ": installed with other contents than the lock's (the sha256 differs)"};
  }
  if (copy.installed_ns > 0 && info->mtime_ns > copy.installed_ns) {
    return LockDrift{"modified", shown, shown + ": modified after install (`cudnnup check --deep` compares its sha256)"};
  }
  return std::nullopt;
}

// Library files in the folders the lock names libraries in, that the lock does not name: a
// library copied in over the top is loaded like one of the copy's own. A toolkit's folder holds
// cuBLAS and the rest too: there only cuDNN's own names count (a wheel's folder is cuDNN's alone).
void find_extra_libraries(const FileSystem& fs, const CudnnLock& lock, const LockedCopy& copy, bool windows,
                          std::vector<LockDrift>& out) {
  const bool cudnn_only = lock.form == kLockFormToolkit;
  std::set<std::string> named, dirs;
  for (const auto& f : lock.files) {
    named.insert(f.path);
    std::string name(paths::basename(f.path));
    if (is_library_file_name(name, windows)) {
      size_t slash = f.path.rfind('/');
      dirs.insert(slash == std::string::npos ? std::string() : f.path.substr(0, slash));
    }
  }
  for (const auto& dir : dirs) {
    Place at = folder_place(copy, dir);
    auto entries = at.rel.empty() ? fs.list_dir(at.root) : fs.list_dir_below(at.root, at.rel);
    if (!entries) continue;  // a missing folder shows as its files missing
    for (const auto& e : *entries) {
      std::string rel = dir.empty() ? e.name : dir + "/" + e.name;
      if (e.type == FileType::kDirectory || named.count(rel) || !is_library_file_name(e.name, windows)) continue;
      if (cudnn_only && !parse_cudnn_library_name(e.name)) continue;
      std::string shown = paths::join(at.rel.empty() ? at.root : paths::join(at.root, at.rel), e.name);
      out.push_back({"extra", shown, shown + ": a library file the lock does not name"});
    }
  }
}

bool below(const std::string& path, const std::string& root) {
  return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 && path[root.size()] == '/');
}

}  // namespace

FileCheck check_locked_files(const FileSystem& fs, const CudnnLock& lock, const LockedCopy& copy,
                             const FileHasher* hasher, bool windows) {
  FileCheck out;
  std::map<std::string, const ManifestFile*> installed;
  if (copy.manifest) {
    for (const auto& mf : copy.manifest->files) installed[mf.path] = &mf;
    if (!lock.archive_sha256.empty() && !copy.manifest->archive_sha256.empty() &&
        lock.archive_sha256 != copy.manifest->archive_sha256) {
      out.drift.push_back({"archive", copy.root,
                           "cuDNN " + lock.id + " was installed from " + copy.manifest->archive_file_name +
                               ", whose sha256 is not the locked archive's (" + lock.archive_file_name + ")"});
    }
  }
  for (const auto& f : lock.files) {
    ++out.files_checked;
    if (auto d = check_one(fs, f, copy, installed, hasher)) out.drift.push_back(std::move(*d));
  }
  find_extra_libraries(fs, lock, copy, windows, out.drift);
  return out;
}

std::optional<LockDrift> check_plain_program_load(const FileSystem& fs, const Environment& env, const CudnnLock& lock,
                                                  const std::string& root) {
  auto version = Version::parse(lock.cudnn_version);
  std::string shim = cudnn_library_file_name("cudnn", version ? version->major() : 9, env.windows());
  WhichReport which = which_plain_program(fs, env, shim);
  auto real_root = fs.canonical(root);
  std::string want = real_root ? *real_root : root;
  if (!which.resolution.found) {
    return LockDrift{"loads", shim,
                     "a plain program started here finds no " + shim +
                         (which.resolution.error.empty() ? "" : " (" + which.resolution.error + ")") +
                         "; run it under `cudnnup exec`, or put the locked copy first in this shell:",
                     {fix::cudnnup_eval({"env"})}};
  }
  std::string got = which.resolution.canonical.empty() ? which.resolution.path : which.resolution.canonical;
  if (!below(got, want)) {
    return LockDrift{"loads", got, "a plain program started here loads " + got + " (" + which.resolution.rule_detail +
                                       "), not the locked copy in " + want};
  }
  for (const auto& file : which.loaded_cudnn_files) {
    auto real = fs.canonical(file);
    std::string f = real ? *real : file;
    if (!below(f, want)) {
      return LockDrift{"loads", f, "a plain program started here loads " + f + " from another copy beside the locked " + want};
    }
  }
  return std::nullopt;
}

namespace {

std::string real_or(const FileSystem& fs, const std::string& path) { return fs.canonical(path).value_or(path); }

PackageForm form_of(const CudnnLock& lock) {
  return lock.form == kLockFormPip ? PackageForm::kPipWheel : PackageForm::kToolkitMerged;
}

}  // namespace

const CudnnCopy* copy_at(const FileSystem& fs, const std::vector<CudnnCopy>& copies, const std::string& dir) {
  std::string want = real_or(fs, dir);
  for (const auto& c : copies) {
    if (real_or(fs, c.lib_dir) == want || real_or(fs, c.root) == want) return &c;
  }
  return nullptr;
}

LocatedCopy locate_unmanaged_copy(const FileSystem& fs, const CudnnLock& lock, const std::vector<CudnnCopy>& copies,
                                  const std::optional<ProjectEnv>& project_env) {
  auto locked = Version::parse(lock.cudnn_version).value_or(Version{});
  const bool pip = lock.form == kLockFormPip;
  const bool scoped = pip && project_env.has_value();
  std::vector<const CudnnCopy*> same_kind;
  for (const auto& c : copies) {
    if (c.form != form_of(lock) || c.major() != locked.major()) continue;
    if (scoped && !below(real_or(fs, c.root), project_env->prefix)) continue;
    same_kind.push_back(&c);
  }
  const char* what = pip ? "pip-wheel" : "toolkit";
  if (same_kind.empty()) {
    std::string where = scoped ? " in the project's Python environment " + project_env->prefix + " (" + project_env->why + ")"
                               : " here";
    std::string hint = pip ? "; install it there:" : "";
    std::vector<FixStep> fix;
    if (pip) fix.push_back(fix::run(pip_install_argv(lock)));
    return {nullptr, LockDrift{"not_installed", lock.id,
                               std::string("no ") + what + " copy of cuDNN " + std::to_string(locked.major()) + " is found" +
                                   where + "; the lock names " + lock.cudnn_version + hint,
                               fix}};
  }
  for (const CudnnCopy* c : same_kind) {
    if (c->cuda_major == lock.cuda_major && versions_name_each_other(locked, copy_full_version(*c))) return {c, std::nullopt};
  }
  const CudnnCopy* c = same_kind.front();
  Version v = copy_full_version(*c);
  std::vector<FixStep> fix;
  if (pip) fix.push_back(fix::run(pip_install_argv(lock)));
  return {c, LockDrift{"version", c->lib_dir,
                       "the " + std::string(what) + " copy in " + c->lib_dir + " is cuDNN " +
                           (v.known() ? v.str() : "of unknown version") + " for CUDA " + std::to_string(c->cuda_major) +
                           ", the lock names " + lock.cudnn_version + " for CUDA " + std::to_string(lock.cuda_major) +
                           (pip ? ":" : ""),
                       fix}};
}

size_t frameworks_of(const FileSystem& fs, const std::vector<FrameworkReport>& frameworks, const std::string& root) {
  std::string want = real_or(fs, root);
  return size_t(std::count_if(frameworks.begin(), frameworks.end(), [&](const FrameworkReport& f) {
    return !f.site_packages.empty() && below(want, real_or(fs, f.site_packages));
  }));
}

std::vector<LockDrift> check_framework_loads(const FileSystem& fs, const std::vector<FrameworkReport>& frameworks,
                                             const std::string& root) {
  std::vector<LockDrift> out;
  std::string want = real_or(fs, root);
  for (const auto& f : frameworks) {
    if (f.site_packages.empty() || !below(want, real_or(fs, f.site_packages))) continue;  // another environment
    if (!f.load || !f.load->resolution.found) continue;  // not a CUDA build, or nothing to load: doctor says why
    const auto& r = f.load->resolution;
    std::string got = real_or(fs, r.canonical.empty() ? r.path : r.canonical);
    std::string name = f.framework + " " + f.version + (f.variant.empty() ? "" : " (" + f.variant + ")");
    if (!below(got, want)) {
      out.push_back({"framework_loads", got, name + " in " + f.env_prefix + " loads " + got + ", not the locked copy in " + want});
      continue;
    }
    for (const auto& file : f.load->loaded_cudnn_files) {
      std::string real = real_or(fs, file);
      if (!below(real, want)) {
        out.push_back({"framework_loads", real, name + " in " + f.env_prefix + " loads " + real + " from another copy beside the locked " + want});
        break;
      }
    }
  }
  return out;
}

std::optional<LockDrift> check_driver_minimum(const std::string& driver_version, const CudnnLock& lock, bool windows) {
  const std::string& minimum = windows ? lock.driver_minimum_windows : lock.driver_minimum_linux;
  auto have = Version::parse(driver_version);
  auto need = Version::parse(minimum);
  if (!have || !need || *have >= *need) return std::nullopt;
  return LockDrift{"driver", driver_version,
                   "the NVIDIA driver here is " + driver_version + "; CUDA " + std::to_string(lock.cuda_major) +
                       " builds of cuDNN need " + minimum + " or newer (" + lock.driver_minimum_source + ")"};
}

}  // namespace cudnnup
