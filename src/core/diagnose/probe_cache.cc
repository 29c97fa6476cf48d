#include "diagnose/probe_cache.h"

#include <algorithm>
#include <climits>
#include <nlohmann/json.hpp>
#include <random>

#include "base/json_reader.h"
#include "base/json_text.h"
#include "base/paths.h"
#include "child/mapped_files.h"

namespace cudnnup {
namespace {

using nlohmann::json;

constexpr const char* kCacheSchema = "cudnnup.probe-cache/1";

json identity_to_json(const FileIdentity& id) {
  return {{"path", id.path},   {"present", id.present}, {"device", id.device},    {"inode", id.inode},
          {"size", id.size},   {"mtime_ns", id.mtime_ns}, {"change_ns", id.change_ns}};
}

FileIdentity identity_from(const JsonValue& v) {
  FileIdentity id;
  id.path = v.required_string("path");
  id.present = v.boolean("present", false);
  id.device = v.unsigned_integer("device", 0);
  id.inode = v.unsigned_integer("inode", 0);
  id.size = v.unsigned_integer("size", 0);
  id.mtime_ns = v.integer("mtime_ns", 0, LLONG_MIN, LLONG_MAX);
  id.change_ns = v.integer("change_ns", 0, LLONG_MIN, LLONG_MAX);
  return id;
}

json identities_to_json(const std::vector<FileIdentity>& ids) {
  json out = json::array();
  for (const auto& id : ids) out.push_back(identity_to_json(id));
  return out;
}

std::vector<FileIdentity> identities_from(const std::vector<JsonValue>& values) {
  std::vector<FileIdentity> out;
  for (const auto& v : values) out.push_back(identity_from(v));
  return out;
}

// What the probe child said, and nothing derived: attribution to the copy is redone on each run.
json answer_to_json(const LibraryProbe& p) {
  return {{"version_number", p.version_number},
          {"cudart_version", p.cudart_version.known() ? p.cudart_version.str() : ""},
          {"max_device_version", p.max_device_version},
          {"mapped_files", p.mapped_files}};
}

LibraryProbe answer_from(const JsonValue& v) {
  LibraryProbe p;
  p.attempted = true;
  p.loaded = true;
  p.version_number = v.integer("version_number", 0, 1, LLONG_MAX);
  p.version = decode_cudnn_version_number(p.version_number);
  if (std::string cudart = v.string("cudart_version"); !cudart.empty()) {
    auto parsed = Version::parse(cudart);
    if (!parsed) v.fail("cudart_version", "must be a version");
    p.cudart_version = parsed.value_or(Version{});
  }
  p.max_device_version = v.integer("max_device_version", 0, LLONG_MIN, LLONG_MAX);
  p.mapped_files = v.strings("mapped_files");
  return p;
}

bool same_request(const ProbeRequest& a, const ProbeRequest& b) {
  return a.library_path == b.library_path && a.lib_dir == b.lib_dir;
}

// Every file a clean answer depended on, now: the shim as requested (the link itself), the
// copy's directory, and each cuDNN file the child mapped. nullopt when one cannot be identified.
std::optional<std::vector<FileIdentity>> dependencies_now(const FileSystem& fs, const ProbeRequest& request,
                                                          const std::vector<std::string>& mapped) {
  std::vector<FileIdentity> out;
  auto add = [&](const std::string& path, bool follow) {
    auto id = identify(fs, path, follow);
    if (!id) return false;
    out.push_back(std::move(*id));
    return true;
  };
  // The shim both as a link and followed: a link through another folder (/etc/alternatives)
  // can be retargeted without any change in the copy's own folder.
  if (!add(request.library_path, false) || !add(request.library_path, true) || !add(request.lib_dir, true)) {
    return std::nullopt;
  }
  for (const auto& f : mapped) {
    if (!add(f, true)) return std::nullopt;
  }
  return out;
}

// Whether the cache may be written at `path` (.../CACHE/cudnnup/probes.json): CACHE's parent
// (HOME for ~/.cache) exists, so at most CACHE and CACHE/cudnnup are made and never a missing
// home; and the nearest of them that exists is cudnnup's user's own and writable by no one else.
bool may_write_cache_at(const FileSystem& fs, const std::string& path) {
  const std::string folder = paths::parent(path), cache = paths::parent(folder), above = paths::parent(cache);
  for (const std::string& dir : {folder, cache, above}) {
    auto info = fs.stat(dir);  // ~/.cache may be a link
    if (!info) continue;
    return info->type == FileType::kDirectory && !info->other_owner && !info->others_may_write;
  }
  return false;
}

}  // namespace

std::string probe_cache_path(const Environment& env) {
  if (auto off = env.get("CUDNNUP_NO_PROBE_CACHE"); off && !off->empty() && *off != "0") return {};
  if (env.windows()) return {};
  if (auto xdg = env.get("XDG_CACHE_HOME"); xdg && paths::is_absolute(*xdg)) {
    return paths::normalize(*xdg + "/cudnnup/probes.json");
  }
  if (env.home.empty() || !paths::is_absolute(env.home)) return {};
  return paths::normalize(env.home + "/.cache/cudnnup/probes.json");
}

std::optional<FileIdentity> identify(const FileSystem& fs, const std::string& path, bool follow) {
  FileIdentity id;
  id.path = path;
  auto info = follow ? fs.stat(path) : fs.lstat(path);
  if (!info) {
    if (info.error().code != ErrorCode::kNotFound) return std::nullopt;
    return id;  // absent: a state too (an /etc/ld.so.preload that appears changes every load)
  }
  if (info->inode == 0 || info->change_ns == 0) return std::nullopt;
  id.present = true;
  id.device = info->device;
  id.inode = info->inode;
  id.size = info->size;
  id.mtime_ns = info->mtime_ns;
  id.change_ns = info->change_ns;
  return id;
}

void ProbeCache::load(const FileSystem& fs, const std::string& path) {
  entries_.clear();
  // The cache decides what doctor reports, so only a file cudnnup's own user could have written
  // counts (docs/security.md): no link, no other owner, no group or world write.
  auto file = fs.read_regular(path, kMaxFileBytes, /*follow_link=*/false);
  if (!file || file->info.other_owner || file->info.others_may_write) return;
  parse(file->bytes, path);
}

void ProbeCache::parse(std::string_view text, const std::string& origin) {
  JsonReader reader(origin);
  JsonValue doc = reader.parse_object(text);
  if (doc.string("schema") != kCacheSchema || doc.string("cudnnup") != version_ || doc.string("setting") != setting_) {
    return;
  }
  if (identities_from(doc.array("context")) != context_) return;
  std::vector<CachedProbe> entries;
  for (const auto& e : doc.array("entries")) {
    CachedProbe c;
    c.request.library_path = e.required_string("library");
    c.request.lib_dir = e.required_string("lib_dir");
    c.depends_on = identities_from(e.array("depends_on"));
    c.answer = answer_from(e.object("answer"));
    c.probed_at = e.string("probed_at");
    c.probed_at_seconds = e.integer("probed_at_seconds", 0, 0, LLONG_MAX);
    // Too old, or from the future (a clock set back): probed again.
    if (now_ - c.probed_at_seconds > kMaxAgeSeconds || c.probed_at_seconds > now_) {
      changed_ = true;
      continue;
    }
    entries.push_back(std::move(c));
  }
  // A file that does not read back whole is no cache at all: nothing half-trusted.
  if (!reader.ok()) return;
  entries_ = std::move(entries);
}

std::optional<CachedProbe> ProbeCache::find(const FileSystem& fs, const ProbeRequest& request) {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const CachedProbe& c) { return same_request(c.request, request); });
  if (it == entries_.end()) return std::nullopt;
  auto now = dependencies_now(fs, request, it->answer.mapped_files);
  if (now && *now == it->depends_on) return *it;
  entries_.erase(it);
  changed_ = true;
  return std::nullopt;
}

void ProbeCache::remember(const FileSystem& fs, const ProbeRequest& request, const LibraryProbe& answer, bool windows,
                          const std::string& probed_at, int64_t started_ns) {
  std::erase_if(entries_, [&](const CachedProbe& c) { return same_request(c.request, request); });
  bool clean = answer.loaded && answer.failure.empty() && answer.version_number > 0 && !answer.mapped_files.empty() &&
               foreign_cudnn_files(answer.mapped_files, request.lib_dir, windows).empty();
  if (!clean) {
    changed_ = true;
    return;
  }
  auto depends_on = dependencies_now(fs, request, answer.mapped_files);
  if (!depends_on) return;
  for (const auto& id : *depends_on) {
    if (id.present && id.change_ns > started_ns - kSettleNs) return;
  }
  entries_.push_back({request, std::move(*depends_on), answer, probed_at, started_ns / 1'000'000'000});
  if (entries_.size() > kMaxEntries) entries_.erase(entries_.begin());  // the oldest answer goes
  changed_ = true;
}

std::string ProbeCache::to_json() const {
  json entries = json::array();
  for (const auto& c : entries_) {
    entries.push_back({{"library", c.request.library_path},
                       {"lib_dir", c.request.lib_dir},
                       {"probed_at", c.probed_at},
                       {"probed_at_seconds", c.probed_at_seconds},
                       {"depends_on", identities_to_json(c.depends_on)},
                       {"answer", answer_to_json(c.answer)}});
  }
  json doc = {{"schema", kCacheSchema},
              {"cudnnup", version_},
              {"setting", setting_},
              {"context", identities_to_json(context_)},
              {"entries", std::move(entries)}};
  return dump_json(doc) + "\n";
}

Status ProbeCache::save(FileSystem& fs, const std::string& path) const {
  if (!may_write_cache_at(fs, path)) return ok_status();
  if (auto s = fs.make_dirs(paths::parent(path)); !s) return s;
  // A name no other run uses (two doctors at once each rename a whole file of their own).
  std::random_device random;
  const std::string tmp = path + "." + std::to_string(random()) + std::to_string(random()) + ".tmp";
  if (auto s = fs.write_private_file(tmp, to_json(), /*sync=*/false); !s) return s;
  return fs.rename(tmp, path);
}

}  // namespace cudnnup
