#include "install/known_refresh.h"

#include <map>
#include <nlohmann/json.hpp>

#include "base/paths.h"
#include "install/archive_name.h"

namespace cudnnup {

namespace {

bool is_sha256_hex(const std::string& s) { return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos; }

// A row's name must be an official archive name in NVIDIA's spelling: what install and
// archive-info look rows up by.
bool is_official_name(const std::string& name) {
  auto parsed = parse_archive_name(name);
  return parsed && parsed->canonical && parsed->canonical_name == name;
}

}  // namespace

Result<KnownRefresh> refresh_known_archives(const FileSystem& fs, const Mirror& mirror, const std::vector<KnownArchive>& builtin,
                                            const std::vector<KnownArchive>& earlier, const HttpClient& http) {
  auto releases = listed_releases(fs, mirror, http);
  if (!releases) return releases.error();
  std::map<std::string, const KnownArchive*> known;
  for (const auto& k : builtin) known[k.file_name] = &k;
  KnownRefresh out;
  // By file name: the rows of earlier refreshes stay (they may come from another mirror); one row
  // even if two manifests name a file.
  std::map<std::string, KnownArchive> rows;
  for (const auto& k : earlier) {
    if (!known.count(k.file_name)) rows[k.file_name] = k;
  }
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
      if (!is_official_name(name) || !is_sha256_hex(e.sha256)) {
        out.problems.push_back(url + " gives no official archive name and sha256 for '" + e.relative_path + "'");
        continue;
      }
      const KnownArchive* k = nullptr;
      if (auto it = known.find(name); it != known.end()) k = it->second;
      else if (auto r = rows.find(name); r != rows.end()) k = &r->second;
      if (!k) {
        rows[name] = KnownArchive{name, e.sha256, e.size, url, true};
        out.added.push_back(rows[name]);
      } else if (k->sha256 != e.sha256 || (k->size && e.size && k->size != e.size)) {
        out.conflicts.push_back(url + " gives " + name + " sha256 " + e.sha256 + " (" + std::to_string(e.size) + " bytes), but " +
                                (k->refreshed ? std::string("an earlier refresh read ") : std::string("cudnnup's table has ")) +
                                k->sha256 + (k->size ? " (" + std::to_string(k->size) + " bytes)" : "") + " from " + k->source +
                                "; that row is kept");
      } else {
        ++out.already_known;
      }
    }
  }
  if (out.manifests == 0) {
    return make_error(ErrorCode::kNotFound, "no manifest on " + mirror.root + " could be read (" +
                                                (out.problems.empty() ? std::string("none listed") : out.problems.front()) +
                                                "); nothing was written");
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
    if (!is_official_name(r.file_name) || !is_sha256_hex(r.sha256)) {
      return make_error(ErrorCode::kCorrupt, refreshed_path + " has a row that is not an official archive name with a sha256 ('" +
                                                 r.file_name + "'); delete the file, or write it again with `cudnnup archive-info --update-known`",
                        refreshed_path);
    }
    r.refreshed = true;
    if (!have.count(r.file_name)) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace cudnnup
