#include "install/install_manifest.h"

#include <nlohmann/json.hpp>

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
  return out.dump(2);
}

Result<InstallManifest> manifest_from_json(const std::string& text, const std::string& path) {
  json in = json::parse(text, nullptr, false);
  if (in.is_discarded() || !in.is_object()) {
    return make_error(ErrorCode::kCorrupt, "the install manifest " + path + " is not valid JSON", path);
  }
  try {
    InstallManifest m;
    m.schema = in.value("schema", 1);
    m.mode = in.at("mode").get<std::string>();
    m.id = in.at("id").get<std::string>();
    m.cudnn_version = in.value("cudnn_version", "");
    m.cuda_variant = in.value("cuda_variant", "");
    m.cuda_major = in.value("cuda_major", 0);
    m.platform = in.value("platform", "");
    if (in.contains("source")) {
      const auto& s = in["source"];
      m.archive_path = s.value("archive", "");
      m.archive_file_name = s.value("file_name", "");
      m.archive_size = s.value("size", uint64_t{0});
      m.archive_sha256 = s.value("sha256", "");
    }
    m.installed_at = in.value("installed_at", "");
    m.cudnnup_version = in.value("cudnnup_version", "");
    m.toolkit_root = in.value("toolkit_root", "");
    m.backup_dir = in.value("backup_dir", "");
    m.new_dirs = in.value("new_dirs", std::vector<std::string>{});
    for (const auto& f : in.at("files")) {
      ManifestFile mf;
      mf.path = f.at("path").get<std::string>();
      mf.source = f.value("source", "");
      mf.kind = kind_from(f.value("type", "file"));
      mf.size = f.value("size", uint64_t{0});
      mf.sha256 = f.value("sha256", "");
      mf.link_target = f.value("target", "");
      mf.backup = f.value("backup", "");
      m.files.push_back(mf);
    }
    for (const auto& a : in.value("moved_aside", json::array())) {
      m.moved_aside.push_back({a.at("path").get<std::string>(), a.at("backup").get<std::string>()});
    }
    return m;
  } catch (const json::exception& e) {
    return make_error(ErrorCode::kCorrupt, "the install manifest " + path + " is incomplete: " + e.what(), path);
  }
}

}  // namespace cudnnup
