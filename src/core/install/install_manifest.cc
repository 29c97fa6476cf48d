#include "install/install_manifest.h"

#include <nlohmann/json.hpp>

#include "base/paths.h"
#include "base/relative_path.h"
#include "install/toolkit_target.h"
#include "store/version_spec.h"
#include "base/json_reader.h"
#include "base/json_text.h"

namespace cudnnup {

using nlohmann::json;

namespace {

// Whether a link at `link_rel` (below the root) with this target names a place below the root
// when read lexically from the link's directory. Textual on purpose: the link is never followed
// when acted on (the *_below calls), this only refuses records that claim an outside target.
bool link_target_stays_inside(const std::string& link_rel, const std::string& target) {
  if (target.empty() || looks_absolute(target)) return false;
  size_t depth = 0;  // directories of link_rel above the link itself
  for (char c : link_rel) depth += c == '/';
  size_t pos = 0;
  while (pos <= target.size()) {
    size_t slash = target.find('/', pos);
    std::string part = target.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    if (part == "..") {
      if (depth == 0) return false;  // climbs out of the root
      --depth;
    } else if (!part.empty() && part != ".") {
      ++depth;
    }
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
  return true;
}

constexpr size_t kMaxManifestBytes = 16 << 20;

const char* kind_word(EntryKind k) { return k == EntryKind::kSymlink ? "symlink" : k == EntryKind::kDirectory ? "dir" : "file"; }
EntryKind kind_from(const std::string& w) {
  return w == "symlink" ? EntryKind::kSymlink : w == "dir" ? EntryKind::kDirectory : w == "file" ? EntryKind::kFile : EntryKind::kOther;
}

bool printable(const std::string& s) {
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) return false;
  }
  return true;
}

bool hex64_or_empty(const std::string& s) {
  return s.empty() || (s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos);
}

// Schema 1 stored backups as absolute paths; they must lie inside the toolkit.
std::string relative_backup(const std::string& toolkit_root, const std::string& stored, bool* ok) {
  if (stored.empty() || !paths::is_absolute(stored)) return stored;
  std::string rel = relative_below(toolkit_root, stored);
  if (rel.empty()) *ok = false;
  return rel.empty() ? stored : rel;
}

}  // namespace

std::string manifest_to_json(const InstallManifest& m) {
  json out;
  out["schema"] = 2;
  out["mode"] = m.mode;
  out["id"] = m.id;
  out["cudnn_version"] = m.cudnn_version;
  out["cuda_variant"] = m.cuda_variant;
  out["cuda_major"] = m.cuda_major;
  out["platform"] = m.platform;
  out["source"] = {{"file_name", m.archive_file_name}, {"size", m.archive_size}, {"sha256", m.archive_sha256}};
  out["installed_at"] = m.installed_at;
  out["cudnnup_version"] = m.cudnnup_version;
  if (m.mode == "merge") {
    out["toolkit_root"] = m.toolkit_root;
    out["backup_dir"] = m.backup_dir;
    out["new_dirs"] = m.new_dirs;
  }
  json files = json::array();
  for (const auto& f : m.files) {
    json j = {{"path", f.path}, {"source", f.source}, {"type", kind_word(f.kind)}};
    if (f.kind == EntryKind::kFile) {
      j["size"] = f.size;
      j["sha256"] = f.sha256;
    }
    if (f.kind == EntryKind::kSymlink) j["target"] = f.link_target;
    if (!f.backup.empty()) j["backup"] = f.backup;
    files.push_back(j);
  }
  out["files"] = files;
  json aside = json::array();
  for (const auto& a : m.moved_aside) aside.push_back({{"path", a.path}, {"backup", a.backup}});
  out["moved_aside"] = aside;
  return dump_json(out, 2);
}

Result<InstallManifest> manifest_from_json(const std::string& text, const std::string& path) {
  JsonReader reader("the install manifest " + path);
  JsonValue in = reader.parse_object(text);
  InstallManifest m;
  m.schema = static_cast<int>(in.integer("schema", 1, 1, 1000));
  if (reader.ok() && m.schema != 1 && m.schema != 2) {
    return make_error(ErrorCode::kCorrupt, "the install manifest " + path + " has an unknown schema", path);
  }
  m.mode = in.required_string("mode");
  m.id = in.required_string("id");
  m.cudnn_version = in.string("cudnn_version");
  m.cuda_variant = in.string("cuda_variant");
  m.cuda_major = static_cast<int>(in.integer("cuda_major", 0, 0, 1000));
  m.platform = in.string("platform");
  JsonValue source = in.object("source");
  m.archive_file_name = source.string("file_name");
  m.archive_size = source.unsigned_integer("size", 0);
  m.archive_sha256 = source.string("sha256");
  m.installed_at = in.string("installed_at");
  m.cudnnup_version = in.string("cudnnup_version");
  m.toolkit_root = in.string("toolkit_root");
  m.backup_dir = in.string("backup_dir");
  m.new_dirs = in.strings("new_dirs");
  if (!in.has("files")) in.fail("files", "is missing");
  for (const auto& f : in.array("files")) {
    ManifestFile mf;
    mf.path = f.required_string("path");
    mf.source = f.string("source");
    mf.kind = kind_from(f.string("type", "file"));
    mf.size = f.unsigned_integer("size", 0);
    mf.sha256 = f.string("sha256");
    mf.link_target = f.string("target");
    mf.backup = f.string("backup");
    m.files.push_back(mf);
  }
  for (const auto& a : in.array("moved_aside")) m.moved_aside.push_back({a.required_string("path"), a.required_string("backup")});
  if (!reader.ok()) return reader.status().error();
  if (m.schema == 1 && m.mode == "merge") {
    // Schema 1 wrote absolute backup paths; they are read as paths relative to the toolkit.
    bool ok = true;
    m.backup_dir = relative_backup(m.toolkit_root, m.backup_dir, &ok);
    for (auto& f : m.files) f.backup = relative_backup(m.toolkit_root, f.backup, &ok);
    for (auto& a : m.moved_aside) {
      a.path = relative_backup(m.toolkit_root, a.path, &ok);
      a.backup = relative_backup(m.toolkit_root, a.backup, &ok);
    }
    if (!ok) return make_error(ErrorCode::kCorrupt, "the install manifest " + path + " names paths outside its toolkit", path);
  }
  return m;
}

Status validate_manifest(const InstallManifest& m, const std::string& root, const std::string& path) {
  auto bad = [&](const std::string& field, const std::string& why) {
    return make_error(ErrorCode::kCorrupt,
                      "the install manifest " + path + " was not acted on: its field '" + field + "' " + why +
                          "; if you did not change it, reinstall (cudnnup install) to write a new one",
                      path);
  };
  auto rel_ok = [&](const std::string& field, const std::string& rel) -> Status {
    if (auto s = check_relative_path(rel); !s) return bad(field, "holds " + s.error().message);
    return ok_status();
  };
  if (m.mode != "store" && m.mode != "merge") return bad("mode", "is neither \"store\" nor \"merge\"");
  if (!is_plain_name(m.id) || !StoreVersionId::parse(m.id)) return bad("id", "is not a version id");
  for (const auto* text : {&m.cudnn_version, &m.cuda_variant, &m.platform, &m.installed_at, &m.cudnnup_version}) {
    if (!printable(*text) || text->size() > 200) return bad("a text field", "holds control characters or is too long");
  }
  if (!m.archive_file_name.empty() && !is_plain_name(m.archive_file_name)) return bad("source.file_name", "is not a file name");
  if (!hex64_or_empty(m.archive_sha256)) return bad("source.sha256", "is not a sha256");
  bool merge = m.mode == "merge";
  if (merge) {
    if (m.toolkit_root != paths::normalize(root)) return bad("toolkit_root", "is not the toolkit the manifest is in (" + root + ")");
    if (auto s = rel_ok("backup_dir", m.backup_dir); !s) return s;
    if (m.backup_dir.rfind(".cudnnup/", 0) != 0) return bad("backup_dir", "is outside .cudnnup/");
  } else if (!m.toolkit_root.empty() || !m.backup_dir.empty() || !m.new_dirs.empty() || !m.moved_aside.empty()) {
    return bad("mode", "is \"store\" but the manifest has toolkit fields");
  }
  for (const auto& d : m.new_dirs) {
    if (auto s = rel_ok("new_dirs", d); !s) return s;
  }
  for (const auto& f : m.files) {
    if (auto s = rel_ok("files.path", f.path); !s) return s;
    if (!f.source.empty()) {
      if (auto s = rel_ok("files.source", f.source); !s) return s;
    }
    if (f.kind == EntryKind::kOther) return bad("files.type", "is unknown");
    if (!hex64_or_empty(f.sha256)) return bad("files.sha256", "is not a sha256");
    if (f.kind == EntryKind::kSymlink) {
      if (!link_target_stays_inside(f.path, f.link_target)) {
        return bad("files.target", "'" + f.link_target + "' leaves the root");
      }
    }
    if (!f.backup.empty()) {
      if (!merge) return bad("files.backup", "is set in a store manifest");
      if (auto s = rel_ok("files.backup", f.backup); !s) return s;
      if (f.backup.rfind(m.backup_dir + "/", 0) != 0) return bad("files.backup", "is outside " + m.backup_dir + "/");
    }
  }
  for (const auto& a : m.moved_aside) {
    if (auto s = rel_ok("moved_aside.path", a.path); !s) return s;
    if (auto s = rel_ok("moved_aside.backup", a.backup); !s) return s;
    if (a.backup.rfind(m.backup_dir + "/", 0) != 0) return bad("moved_aside.backup", "is outside " + m.backup_dir + "/");
  }
  return ok_status();
}

Result<InstallManifest> read_manifest(const FileSystem& fs, const std::string& path, const std::string& root, bool acting) {
  auto file = fs.read_regular(path, kMaxManifestBytes, /*follow_link=*/false);
  if (!file) return make_error(file.error().code, "cannot read the install manifest " + path + ": " + file.error().message, path);
  if (acting && (file->info.other_owner || file->info.others_may_write)) {
    return make_error(ErrorCode::kPermission,
                      "the install manifest " + path + " was not acted on: " +
                          (file->info.other_owner ? "it belongs to another user" : "others may write to it") +
                          "; run cudnnup as its owner, or if you trust it: chmod go-w " + path,
                      path);
  }
  auto m = manifest_from_json(file->bytes, path);
  if (!m) return m.error();
  // The toolkit root is recorded by its real path; callers may know it by a link to it.
  std::string real_root = paths::normalize(fs.canonical(root).value_or(root));
  if (m->schema == 1 && m->mode == "merge" && m->toolkit_root != real_root) {
    // Schema 1 kept the toolkit path as typed (/usr/local/cuda, a link); schema 2 the real one.
    if (auto real = fs.canonical(m->toolkit_root); real && paths::normalize(*real) == real_root) m->toolkit_root = real_root;
  }
  if (m->schema == 1 && m->mode == "merge") {
    // ... and its paths through the toolkit's own links (lib64/); schema 2 names real places.
    ToolkitTarget t;
    t.root = real_root;
    for (auto& f : m->files) {
      if (check_relative_path(f.path)) f.path = real_path_in_toolkit(fs, t, f.path);
    }
    for (auto& a : m->moved_aside) {
      if (check_relative_path(a.path)) a.path = real_path_in_toolkit(fs, t, a.path);
    }
  }
  if (auto s = validate_manifest(*m, real_root, path); !s) return s.error();
  return m;
}

}  // namespace cudnnup
