#include "install/mirror.h"

#include <map>

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
  std::string listing;
  if (mirror.remote) {
    auto page = http.get_text(mirror.root);
    if (!page) return page.error();
    listing = std::move(*page);
  } else {
    auto entries = fs.list_dir(mirror.root);
    if (!entries) return entries.error();
    for (const auto& e : *entries) listing += e.name + "\n";
  }
  auto releases = releases_in_listing(listing);
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
  return make_error(last.code, "cannot find NVIDIA's manifest for cuDNN " + release + " on " + mirror.root + " (" + last.message +
                                              "); check the version (e.g. 9.1.0, 9.1 or 9) or pass --mirror URL|DIR", mirror.root);
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
    for (int cuda = 10; cuda <= 20; ++cuda) {
      for (const auto& v : known_releases(known, platform_key, cuda)) {
        AvailableRelease& a = by_release[v];
        a.release = v.str();
        RedistribEntry e;
        e.version = v.str();
        e.platform = platform_key;
        e.cuda_variant = std::to_string(cuda);
        a.archives.push_back(e);
      }
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
