#include "install/cudnn_lock.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <map>
#include <set>

#include "base/json_reader.h"
#include "base/json_text.h"
#include "base/paths.h"
#include "base/relative_path.h"
#include "base/version.h"
#include "facts/cudnn_files.h"
#include "store/selection.h"
#include "store/version_spec.h"

namespace cudnnup {

using nlohmann::ordered_json;

namespace {

bool is_sha256(const std::string& s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// Short machine words: a platform ("linux-x86_64"), a CUDA variant ("13"), a form.
bool is_word(const std::string& s, size_t max) {
  if (s.empty() || s.size() > max) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
  });
}

bool is_version_text(const std::string& s) { return s.size() <= 32 && is_word(s, 32) && Version::parse(s).has_value(); }

// A pip or toolkit lock's path: lib/NAME or include/NAME, one plain name in the copy's folder.
bool is_folder_entry(const std::string& path) {
  for (const char* folder : {"lib/", "include/"}) {
    if (path.starts_with(folder) && is_plain_name(path.substr(std::string_view(folder).size()))) return true;
  }
  return false;
}

// A member name as it may appear in a message: the lock's own bytes only when they are plain.
bool plain_key(const std::string& key) {
  return !key.empty() && key.size() <= 40 && std::all_of(key.begin(), key.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}

// Refuses members the writer does not write: a lock that says more than cudnnup understands
// must not be half-obeyed.
void refuse_unknown(const JsonValue& object, std::initializer_list<std::string_view> known) {
  for (const auto& [key, value] : object.members()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      object.fail(plain_key(key) ? key : "(unprintable name)",
                  "is not a field of cudnnup.lock/1: remove it, or write the lock again with `cudnnup lock`");
      return;
    }
  }
}

ordered_json file_json(const LockedFile& f) {
  if (f.kind == EntryKind::kSymlink) return {{"path", f.path}, {"link", f.link_target}};
  return {{"path", f.path}, {"size", f.size}, {"sha256", f.sha256}};
}

LockedFile read_file_entry(const JsonValue& e) {
  LockedFile f;
  refuse_unknown(e, {"path", "size", "sha256", "link"});
  f.path = e.required_string("path");
  if (auto s = check_relative_path(f.path); !s) e.fail("path", "is refused: " + s.error().message);
  if (e.has("link")) {
    f.kind = EntryKind::kSymlink;
    f.link_target = e.string("link");
    // The store's links name a file beside them (libcudnn.so.9 -> libcudnn.so.9.19.0); nothing else is written.
    if (!is_plain_name(f.link_target)) e.fail("link", "must be a file name in the link's own folder");
    if (e.has("size") || e.has("sha256")) e.fail("link", "is a link: it has no size or sha256");
    return f;
  }
  f.size = e.unsigned_integer("size", 0, kMaxLockedFileSize);
  if (!e.has("size")) e.fail("size", "is missing");
  f.sha256 = e.required_string("sha256");
  if (!is_sha256(f.sha256)) e.fail("sha256", "must be 64 lower-case hex digits");
  return f;
}

void read_identity(const JsonValue& doc, CudnnLock& lock) {
  lock.form = doc.required_string("form");
  if (lock.form != kLockFormStore && lock.form != kLockFormPip && lock.form != kLockFormToolkit) {
    doc.fail("form", "must be \"store\", \"pip\" or \"toolkit\"");
  }
  lock.id = doc.required_string("id");
  auto id = StoreVersionId::parse(lock.id);
  if (!id || !is_plain_name(lock.id)) doc.fail("id", "must be a store version id like 9.19.0.56+cuda13");
  lock.cudnn_version = doc.required_string("cudnn_version");
  if (!is_version_text(lock.cudnn_version)) doc.fail("cudnn_version", "must be a version like 9.19.0.56");
  lock.cuda_variant = doc.required_string("cuda_variant");
  if (!is_word(lock.cuda_variant, 8)) doc.fail("cuda_variant", "must be a CUDA variant like 13");
  lock.cuda_major = int(doc.integer("cuda_major", 0, 1, 99));
  if (!doc.has("cuda_major")) doc.fail("cuda_major", "is missing");
  lock.platform = doc.required_string("platform");
  if (!is_word(lock.platform, 32)) doc.fail("platform", "must be a platform like linux-x86_64");
  if (id && (id->version.str() != lock.cudnn_version || id->cuda_major != lock.cuda_major)) {
    doc.fail("id", "does not agree with cudnn_version and cuda_major");
  }
}

void read_archive(const JsonValue& doc, CudnnLock& lock) {
  if (!doc.has("archive")) return;  // null: the install did not know it
  JsonValue a = doc.object("archive");
  refuse_unknown(a, {"file_name", "size", "sha256"});
  lock.archive_file_name = a.required_string("file_name");
  if (!is_plain_name(lock.archive_file_name)) {
    a.fail("file_name", "must be a plain file name");
  }
  lock.archive_size = a.unsigned_integer("size", 0, kMaxLockedFileSize);
  lock.archive_sha256 = a.required_string("sha256");
  if (!is_sha256(lock.archive_sha256)) a.fail("sha256", "must be 64 lower-case hex digits");
}

void read_minimums(const JsonValue& doc, CudnnLock& lock) {
  JsonValue m = doc.object("driver_minimum");
  refuse_unknown(m, {"linux", "windows", "source"});
  lock.driver_minimum_linux = m.string("linux");
  lock.driver_minimum_windows = m.string("windows");
  lock.driver_minimum_source = m.string("source");
  for (auto [key, value] : {std::pair{"linux", &lock.driver_minimum_linux}, {"windows", &lock.driver_minimum_windows}}) {
    if (!value->empty() && !is_version_text(*value)) m.fail(key, "must be a driver version like 580.65.06");
  }
  if (lock.driver_minimum_source.size() > 2000) m.fail("source", "is longer than 2000 characters");
}

}  // namespace

std::string lock_to_json(const CudnnLock& lock) {
  ordered_json out = {{"schema", kLockSchema}, {"form", lock.form}, {"id", lock.id}, {"cudnn_version", lock.cudnn_version},
                      {"cuda_variant", lock.cuda_variant}, {"cuda_major", lock.cuda_major}, {"platform", lock.platform}};
  out["archive"] = lock.archive_sha256.empty()
                       ? ordered_json(nullptr)
                       : ordered_json{{"file_name", lock.archive_file_name}, {"size", lock.archive_size}, {"sha256", lock.archive_sha256}};
  out["driver_minimum"] = {{"linux", lock.driver_minimum_linux}, {"windows", lock.driver_minimum_windows},
                           {"source", lock.driver_minimum_source}};
  ordered_json files = ordered_json::array();
  for (const auto& f : lock.files) files.push_back(file_json(f));
  out["files"] = std::move(files);
  return dump_json(out, 2) + "\n";
}

Result<CudnnLock> lock_from_json(std::string_view text, const std::string& origin) {
  if (text.size() > kMaxLockBytes) {
    return make_error(ErrorCode::kCorrupt, origin + " is larger than " + std::to_string(kMaxLockBytes >> 20) +
                                               " MiB: not a lock cudnnup wrote", origin);
  }
  JsonReader reader(origin);
  JsonValue doc = reader.parse_object(text);
  CudnnLock lock;
  if (reader.ok()) {
    refuse_unknown(doc, {"schema", "form", "id", "cudnn_version", "cuda_variant", "cuda_major", "platform", "archive",
                         "driver_minimum", "files"});
    std::string schema = doc.required_string("schema");
    if (reader.ok() && schema != kLockSchema) {
      doc.fail("schema", std::string("must be \"") + kLockSchema + "\" (a newer cudnnup wrote it, or it is not a lock)");
    }
  }
  if (reader.ok()) read_identity(doc, lock);
  if (reader.ok()) read_archive(doc, lock);
  if (reader.ok()) read_minimums(doc, lock);
  if (reader.ok()) {
    auto entries = doc.array("files");
    if (entries.size() > kMaxLockedFiles) doc.fail("files", "has more than " + std::to_string(kMaxLockedFiles) + " entries");
    std::set<std::string> seen;
    for (size_t i = 0; reader.ok() && i < entries.size(); ++i) {
      LockedFile f = read_file_entry(entries[i]);
      if (reader.ok() && lock.form != kLockFormStore && !is_folder_entry(f.path)) {
        entries[i].fail("path", "must be lib/NAME or include/NAME in a " + lock.form + " lock");
      }
      if (reader.ok() && !seen.insert(f.path).second) entries[i].fail("path", "names a file already listed");
      lock.files.push_back(std::move(f));
    }
    if (reader.ok() && lock.files.empty()) doc.fail("files", "is empty: a lock names every file of the copy");
  }
  if (auto s = reader.status(); !s) return s.error();
  return lock;
}

namespace {

void set_driver_minimum(const Rules& rules, CudnnLock& lock) {
  if (const MajorDriverMinimum* d = rules.major_driver_minimum_for(lock.cuda_major)) {
    lock.driver_minimum_linux = d->linux_driver.known() ? d->linux_driver.str() : "";
    lock.driver_minimum_windows = d->windows_driver.known() ? d->windows_driver.str() : "";
    lock.driver_minimum_source = d->source;
  }
}

// The cuDNN files of one folder of the copy (facts/cudnn_files.h: libraries, static and import
// libraries, headers), as `folder`/NAME; a toolkit's lib and include folders hold much else.
Status add_folder(const FileSystem& fs, const std::string& dir, const std::string& folder, const BelowHasher& hasher,
                  CudnnLock& lock) {
  auto entries = fs.list_dir(dir);
  if (!entries) return entries.error();
  for (const DirEntry& e : *entries) {
    if (!parse_cudnn_file_name(e.name) || e.type == FileType::kDirectory) continue;
    std::string path = folder + "/" + e.name;
    if (e.type == FileType::kSymlink) {
      auto target = fs.read_link_below(dir, e.name);
      if (!target) return target.error();
      if (!is_plain_name(*target)) {
        return make_error(ErrorCode::kUsage, paths::join(dir, e.name) + " links to " + *target +
                                                 ", outside its folder: a lock names only links beside their file", dir);
      }
      lock.files.push_back(LockedFile{path, EntryKind::kSymlink, 0, "", *target});
      continue;
    }
    auto info = fs.lstat_below(dir, e.name);
    if (!info) return info.error();
    if (info->type != FileType::kRegular) continue;
    auto sum = hasher(dir, e.name);
    if (!sum) return sum.error();
    lock.files.push_back(LockedFile{path, EntryKind::kFile, info->size, *sum, ""});
  }
  return Ok{};
}

}  // namespace

Result<CudnnLock> lock_from_manifest(const InstallManifest& manifest, const Rules& rules, const BelowHasher* hasher,
                                     const std::string& root, bool rehash) {
  CudnnLock lock;
  lock.form = kLockFormStore;
  lock.id = manifest.id;
  lock.cudnn_version = manifest.cudnn_version;
  lock.cuda_variant = manifest.cuda_variant;
  lock.cuda_major = manifest.cuda_major;
  lock.platform = manifest.platform;
  lock.archive_file_name = manifest.archive_file_name;
  lock.archive_size = manifest.archive_size;
  lock.archive_sha256 = manifest.archive_sha256;
  set_driver_minimum(rules, lock);
  for (const auto& mf : manifest.files) {
    if (mf.kind == EntryKind::kDirectory) continue;
    bool link = mf.kind == EntryKind::kSymlink;
    LockedFile f{mf.path, link ? EntryKind::kSymlink : EntryKind::kFile, link ? 0 : mf.size, link ? "" : mf.sha256,
                 link ? mf.link_target : ""};
    if (f.kind == EntryKind::kFile && (rehash || f.sha256.empty())) {
      if (!hasher) return make_error(ErrorCode::kCorrupt, "the install manifest has no sha256 for " + f.path, root);
      auto sum = (*hasher)(root, f.path);
      if (!sum) return sum.error();
      f.sha256 = *sum;
    }
    lock.files.push_back(std::move(f));
  }
  std::sort(lock.files.begin(), lock.files.end(), [](const LockedFile& a, const LockedFile& b) { return a.path < b.path; });
  return lock;
}

Version copy_full_version(const CudnnCopy& copy) {
  Version v = copy.library_version.known() ? copy.library_version : copy.header_version;
  size_t space = copy.package.rfind(' ');
  if (space != std::string::npos) {
    auto full = Version::parse(copy.package.substr(space + 1));
    if (full && v.known() && full->parts.size() > v.parts.size() && full->has_prefix(v)) return *full;
  }
  return v;
}

std::vector<std::string> pip_install_argv(const CudnnLock& lock) {
  // The wheels carry four parts (9.19.0.56); a lock that knows three asks for any build of it,
  // since PEP 440's ==9.19.0 would match 9.19.0(.0) only.
  auto v = Version::parse(lock.cudnn_version);
  bool whole = v && v->parts.size() >= 4;
  return {"pip", "install", "nvidia-cudnn-cu" + std::to_string(lock.cuda_major) + "==" + lock.cudnn_version + (whole ? "" : ".*")};
}

Result<CudnnLock> lock_from_copy(const FileSystem& fs, const CudnnCopy& copy, const std::string& platform,
                                 const Rules& rules, const BelowHasher& hasher) {
  CudnnLock lock;
  if (copy.form == PackageForm::kPipWheel) lock.form = kLockFormPip;
  else if (copy.form == PackageForm::kToolkitMerged) lock.form = kLockFormToolkit;
  else {
    return make_error(ErrorCode::kUsage, "the copy in " + copy.lib_dir + " is not a pip wheel or a toolkit (its form: " +
                                             package_form_name(copy.form) +
                                             "): a lock names a cudnnup version (`cudnnup lock`), a pip wheel or a toolkit",
                      copy.lib_dir);
  }
  Version version = copy_full_version(copy);
  if (!version.known() || copy.cuda_major <= 0) {
    return make_error(ErrorCode::kUsage, "the copy in " + copy.lib_dir + " has no known " +
                                             std::string(version.known() ? "CUDA major" : "cuDNN version") +
                                             " (`cudnnup doctor` says why): it cannot be locked", copy.lib_dir);
  }
  lock.cudnn_version = version.str();
  lock.cuda_major = copy.cuda_major;
  lock.cuda_variant = std::to_string(copy.cuda_major);
  lock.id = lock.cudnn_version + "+cuda" + lock.cuda_variant;
  lock.platform = platform;
  set_driver_minimum(rules, lock);
  // The folders as they really are: a toolkit's include is often a link to targets/<arch>/include.
  std::string lib_dir = fs.canonical(copy.lib_dir).value_or(copy.lib_dir);
  if (auto s = add_folder(fs, lib_dir, "lib", hasher, lock); !s) return s.error();
  if (!copy.include_dir.empty()) {
    std::string include_dir = fs.canonical(copy.include_dir).value_or(copy.include_dir);
    if (include_dir != lib_dir) {
      if (auto s = add_folder(fs, include_dir, "include", hasher, lock); !s) return s.error();
    }
  }
  std::sort(lock.files.begin(), lock.files.end(), [](const LockedFile& a, const LockedFile& b) { return a.path < b.path; });
  if (lock.files.empty()) return make_error(ErrorCode::kUsage, "the copy in " + copy.lib_dir + " has no cuDNN file to lock", copy.lib_dir);
  return lock;
}

std::vector<std::string> manifest_differences(const CudnnLock& lock, const InstallManifest& manifest) {
  std::vector<std::string> out;
  std::map<std::string, const ManifestFile*> installed;
  for (const auto& mf : manifest.files) {
    if (mf.kind != EntryKind::kDirectory) installed[mf.path] = &mf;
  }
  for (const auto& f : lock.files) {
    auto it = installed.find(f.path);
    if (it == installed.end()) {
      out.push_back(f.path + ": not installed");
      continue;
    }
    const ManifestFile& mf = *it->second;
    installed.erase(it);
    if (f.kind == EntryKind::kSymlink) {
      if (mf.kind != EntryKind::kSymlink || mf.link_target != f.link_target) out.push_back(f.path + ": not the locked link");
    } else if (mf.kind != EntryKind::kFile || mf.size != f.size || mf.sha256 != f.sha256) {
      out.push_back(f.path + ": not the locked bytes (size or sha256 differs)");
    }
  }
  for (const auto& [path, mf] : installed) out.push_back(path + ": not in the lock");
  return out;
}

Result<std::string> locate_lock_file(const FileSystem& fs, const std::string& cwd, const std::string& given) {
  if (!given.empty()) return given;
  if (auto found = find_nearest_file(fs, cwd, kLockFileName)) return *found;
  return make_error(ErrorCode::kUsage, std::string("no ") + kLockFileName + " in " + cwd +
                                           " or above: write one with `cudnnup lock`, or give --lock FILE");
}

Result<CudnnLock> read_lock_file(const FileSystem& fs, const std::string& path) {
  auto text = fs.read_regular(path, kMaxLockBytes, /*follow_link=*/true);
  if (!text) {
    const Error& e = text.error();
    return make_error(e.code == ErrorCode::kCorrupt || e.code == ErrorCode::kNotFound ? ErrorCode::kUsage : e.code,
                      "cannot read the lock " + path + " (" + e.message + "); it must be a regular file of at most " +
                          std::to_string(kMaxLockBytes >> 20) + " MiB written by `cudnnup lock`",
                      path);
  }
  return lock_from_json(text->bytes, path);
}

Status write_lock_file(FileSystem& fs, const std::string& path, const CudnnLock& lock) {
  std::string tmp = path + ".tmp";
  if (auto s = fs.write_file(tmp, lock_to_json(lock), /*sync=*/true); !s) {
    (void)fs.remove(tmp);
    return s;
  }
  if (auto s = fs.rename(tmp, path); !s) {
    (void)fs.remove(tmp);
    return s;
  }
  return fs.sync_dir(paths::parent(path));
}

}  // namespace cudnnup
