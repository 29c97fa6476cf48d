#include "install/known_refresh.h"

#include <map>
#include <nlohmann/json.hpp>

#include "base/paths.h"

namespace cudnnup {

Result<KnownRefresh> refresh_known_archives(const FileSystem& fs, const Mirror& mirror, const std::vector<KnownArchive>& builtin,
                                            const HttpClient& http) {
  auto releases = listed_releases(fs, mirror, http);
  if (!releases) return releases.error();
  std::map<std::string, const KnownArchive*> known;
  for (const auto& k : builtin) known[k.file_name] = &k;
  KnownRefresh out;
  std::map<std::string, KnownArchive> rows;  // by file name: one row even if two manifests name it
  for (const auto& release : *releases) {
    std::string url;
    auto manifest = read_manifest(fs, mirror, release.str(), http, &url);
    if (!manifest) {
      out.problems.push_back(manifest.error().message);
      continue;
    }
    ++out.manifests;
    for (const auto& e : manifest->entries) {
      std::string name(paths::basename(e.relative_path));
      if (name.empty() || e.sha256.size() != 64 || e.sha256.find_first_not_of("0123456789abcdef") != std::string::npos) {
        out.problems.push_back(url + " gives no usable sha256 for " + (name.empty() ? std::string("an entry") : name));
        continue;
      }
      if (auto it = known.find(name); it != known.end()) {
        const KnownArchive& k = *it->second;
        if (k.sha256 != e.sha256 || (k.size && e.size && k.size != e.size)) {
          out.conflicts.push_back(url + " gives " + name + " sha256 " + e.sha256 + " (" + std::to_string(e.size) +
                                  " bytes), but cudnnup's table has " + k.sha256 + (k.size ? " (" + std::to_string(k.size) + " bytes)" : "") +
                                  " from " + k.source + "; the table's row is kept");
        } else {
          ++out.already_known;
        }
        continue;
      }
      rows[name] = KnownArchive{name, e.sha256, e.size, url, true};
    }
  }
  for (auto& [name, row] : rows) out.rows.push_back(std::move(row));
  return out;
}

std::string refreshed_known_archives_json(const std::vector<KnownArchive>& rows, const std::string& mirror_root) {
  nlohmann::ordered_json archives = nlohmann::ordered_json::array();
  for (const auto& r : rows) {
    archives.push_back({{"file_name", r.file_name}, {"sha256", r.sha256}, {"size", r.size ? nlohmann::ordered_json(r.size) : nlohmann::ordered_json()},
                        {"source", r.source}});
  }
  nlohmann::ordered_json doc = {
      {"schema", 1},
      {"about", "sha256 and size of cuDNN archives read from the redistrib manifests of " + mirror_root +
                    " by `cudnnup archive-info --update-known`, for archives cudnnup's built-in table lacks; 'source' is the manifest. "
                    "The built-in table wins on a name both have."},
      {"archives", archives}};
  return doc.dump(2) + "\n";
}

Result<std::vector<KnownArchive>> known_archives_with_refreshed(const FileSystem& fs, const std::string& refreshed_path,
                                                                const std::vector<KnownArchive>& builtin) {
  std::vector<KnownArchive> out = builtin;
  if (!fs.exists(refreshed_path)) return out;
  auto text = fs.read_file(refreshed_path, 64 << 20);
  if (!text) return text.error();
  auto rows = parse_known_archives(*text);
  if (!rows) {
    return make_error(ErrorCode::kCorrupt, refreshed_path + " is not a table of archives (" + rows.error().message +
                                               "); delete it, or write it again with `cudnnup archive-info --update-known`",
                      refreshed_path);
  }
  std::map<std::string, bool> have;
  for (const auto& k : builtin) have[k.file_name] = true;
  for (auto& r : *rows) {
    r.refreshed = true;
    if (!have.count(r.file_name)) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace cudnnup
