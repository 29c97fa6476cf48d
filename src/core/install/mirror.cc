#include "install/mirror.h"

#include <map>

#include "install/archive_name.h"
#include "install/release_index.h"

namespace cudnnup {
namespace {

bool is_url(const std::string& s) { return s.rfind("http://", 0) == 0 || s.rfind("https://", 0) == 0; }

std::string with_slash(std::string s) {
  if (!s.empty() && s.back() != '/') s += '/';
  return s;
}

}  // namespace

Mirror mirror_at(const std::string& given) {
  std::string root = given.empty() ? std::string(kDefaultMirror) : given;
  if (root.rfind("file://", 0) == 0) root = root.substr(7);
  return Mirror{with_slash(root), is_url(root)};
}


Result<std::vector<Version>> listed_releases(const FileSystem& fs, const Mirror& mirror, const HttpClient& http) {
  std::vector<Version> releases;
  if (mirror.remote) {
    auto page = http.get_text(mirror.root);
    if (!page) return page.error();
    releases = releases_in_index_page(*page);
  } else {
    auto entries = fs.list_dir(mirror.root);
    if (!entries) return entries.error();
    for (const auto& e : *entries) {
      if (e.type == FileType::kDirectory) continue;
      if (auto v = release_of_file_name(e.name)) releases.push_back(*v);
    }
    releases = newest_first(std::move(releases));
  }
  if (releases.empty()) return make_error(ErrorCode::kNotFound, mirror.root + " lists no redistrib_<version>.json file", mirror.root);
  return releases;
}

Result<RedistribManifest> read_manifest(const FileSystem& fs, const Mirror& mirror, const std::string& release, const HttpClient& http,
                                        std::string* manifest_url) {
  Error last = make_error(ErrorCode::kNotFound, "no manifest");
  for (const auto& file : redistrib_file_names(release)) {
    std::string where = mirror.root + file;
    Result<std::string> text = mirror.remote ? http.get_text(where) : fs.read_file(where);
    if (!text) {
      last = text.error();
      continue;
    }
    auto parsed = parse_redistrib(*text, where);
    if (!parsed) return parsed.error();
    *manifest_url = where;
    return parsed;
  }
  // A missing file stays "not found"; a mirror that cannot be reached keeps its own code.
  return make_error(last.code, "cannot read the manifest of cuDNN " + release + " on " + mirror.root + " (" + last.message +
                                              "); check the version, or pass --mirror URL|DIR", mirror.root);
}

Result<AvailableReleases> available_releases(const FileSystem& fs, const std::string& given_mirror, const std::string& platform_key,
                                             const std::vector<KnownArchive>& known, const HttpClient& http, size_t newest) {
  AvailableReleases out;
  Mirror mirror = mirror_at(given_mirror);
  out.mirror = mirror.root;
  auto listed = listed_releases(fs, mirror, http);
  if (!listed) {
    // Offline: what the table knows for this platform, CUDA variant by variant.
    out.listed_by = "known-archives";
    out.note = "the list of releases on " + mirror.root + " could not be read (" + listed.error().message +
               "); these are the releases in cudnnup's table of NVIDIA archives";
    std::map<Version, AvailableRelease> by_release;
    for (const auto& k : known) {
      if (k.refreshed) continue;  // a mirror's word, not NVIDIA's list
      auto name = parse_archive_name(k.file_name);
      if (!name || name->platform_key() != platform_key) continue;
      AvailableRelease& a = by_release[name->version.truncated(3)];
      a.release = name->version.truncated(3).str();
      RedistribEntry e;
      e.version = name->version.str();
      e.platform = platform_key;
      e.cuda_variant = name->cuda_variant;
      e.sha256 = k.sha256;
      e.size = k.size;
      a.archives.push_back(e);
    }
    for (auto it = by_release.rbegin(); it != by_release.rend(); ++it) out.releases.push_back(it->second);
  } else {
    out.listed_by = "mirror";
    for (const auto& v : *listed) {
      AvailableRelease a;
      a.release = v.str();
      out.releases.push_back(a);
    }
  }
  if (newest && out.releases.size() > newest) {
    out.not_shown = out.releases.size() - newest;
    out.releases.resize(newest);
  }
  if (out.listed_by != "mirror") return out;
  for (auto& a : out.releases) {
    std::string manifest_url;
    auto manifest = read_manifest(fs, mirror, a.release, http, &manifest_url);
    if (!manifest) {
      a.problem = manifest.error().message;
      continue;
    }
    a.date = manifest->release_date;
    for (const auto& e : manifest->entries) {
      if (e.platform == platform_key) a.archives.push_back(e);
    }
  }
  return out;
}

}  // namespace cudnnup
