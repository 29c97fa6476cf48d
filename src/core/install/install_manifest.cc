#include "install/install_manifest.h"

#include <nlohmann/json.hpp>

#include "base/json_reader.h"
#include "base/json_text.h"

namespace cudnnup {

using nlohmann::json;

namespace {
const char* kind_word(EntryKind k) { return k == EntryKind::kSymlink ? "symlink" : k == EntryKind::kDirectory ? "dir" : "file"; }
EntryKind kind_from(const std::string& w) {
  return w == "symlink" ? EntryKind::kSymlink : w == "dir" ? EntryKind::kDirectory : EntryKind::kFile;
}
}  // namespace

std::string manifest_to_json(const InstallManifest& m) {
  json out;
  out["schema"] = m.schema;
  out["mode"] = m.mode;
  out["id"] = m.id;
  out["cudnn_version"] = m.cudnn_version;
  out["cuda_variant"] = m.cuda_variant;
  out["cuda_major"] = m.cuda_major;
  out["platform"] = m.platform;
  out["source"] = {{"archive", m.archive_path}, {"file_name", m.archive_file_name}, {"size", m.archive_size}, {"sha256", m.archive_sha256}};
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
  m.mode = in.required_string("mode");
  m.id = in.required_string("id");
  m.cudnn_version = in.string("cudnn_version");
  m.cuda_variant = in.string("cuda_variant");
  m.cuda_major = static_cast<int>(in.integer("cuda_major", 0, 0, 1000));
  m.platform = in.string("platform");
  JsonValue source = in.object("source");
  m.archive_path = source.string("archive");
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
  return m;
}

}  // namespace cudnnup
