#include "app/commands/archive_source.h"

#if CUDNNUP_HAVE_INSTALL

#include <regex>

#include "platform/http_client.h"
#include "platform/sha256.h"
#include "install/archive_name.h"
#include "facts/known_archives.h"
#include "base/paths.h"
#include "install/redistrib.h"
#include "base/version.h"

namespace cudnnup {
namespace {

bool is_url(const std::string& s) { return s.rfind("http://", 0) == 0 || s.rfind("https://", 0) == 0; }

std::string with_slash(std::string s) {
  if (!s.empty() && s.back() != '/') s += '/';
  return s;
}

}  // namespace

bool looks_like_version(const std::string& arg) {
  static const std::regex v(R"(^\d+\.\d+(\.\d+){0,2}$)");
  return std::regex_match(arg, v);
}

Result<ResolvedSource> resolve_source(FileSystem& fs, const StoreLayout& store, const SourceRequest& r) {
  ResolvedSource out;
  if (fs.exists(r.arg) || !looks_like_version(r.arg)) {
    if (!fs.is_file(r.arg)) {
      return make_error(ErrorCode::kNotFound, "no such archive: " + r.arg +
                                                  " (give a .tar.xz/.zip file, or a version such as 9.1.0 with --cuda 12)", r.arg);
    }
    out.archive_path = r.arg;
    out.file_name = std::string(paths::basename(r.arg));
    if (auto name = parse_archive_name(r.arg)) {
      for (const auto& k : builtin_known_archives()) {
        if (k.file_name == name->canonical_name) {
          out.expected_sha256 = k.sha256;
          out.expected_size = k.size;
          out.known_file = true;
        }
      }
    }
    return out;
  }

  // A version: find it in NVIDIA's manifest on the mirror.
  if (!r.cuda_major) {
    return make_error(ErrorCode::kUsage, "which CUDA build of cuDNN " + r.arg + "? Add --cuda 12 or --cuda 13 (the CUDA major of your toolkit "
                                         "or framework; `cudnnup doctor` shows it)");
  }
  std::string mirror = r.mirror;
  if (mirror.empty()) mirror = kDefaultMirror;
  if (mirror.rfind("file://", 0) == 0) mirror = mirror.substr(7);
  bool remote = is_url(mirror);
  mirror = with_slash(mirror);

  std::optional<RedistribManifest> manifest;
  Error last = make_error(ErrorCode::kNotFound, "no manifest");
  for (const auto& file : redistrib_file_names(r.arg)) {
    std::string where = mirror + file;
    Result<std::string> text = remote ? http_get_text(where) : fs.read_file(where);
    if (!text) {
      last = text.error();
      continue;
    }
    auto parsed = parse_redistrib(*text, where);
    if (!parsed) return parsed.error();
    manifest = *parsed;
    out.manifest_url = where;
    break;
  }
  if (!manifest) {
    return make_error(ErrorCode::kNotFound, "cannot find NVIDIA's manifest for cuDNN " + r.arg + " on " + mirror + " (" + last.message +
                                                "); check the version (e.g. 9.1.0) or pass --mirror URL|DIR", mirror);
  }
  auto entry = select_redistrib(*manifest, r.platform_key, *r.cuda_major);
  if (!entry) return entry.error();
  auto wanted = Version::parse(r.arg);
  auto have = Version::parse(entry->version);
  if (wanted && have && !have->has_prefix(*wanted)) {
    return make_error(ErrorCode::kNotFound, out.manifest_url + " describes cuDNN " + entry->version + ", not " + r.arg);
  }
  if (entry->sha256.size() != 64) {
    return make_error(ErrorCode::kCorrupt, out.manifest_url + " gives no sha256 for " + entry->relative_path);
  }
  out.expected_sha256 = entry->sha256;
  out.expected_size = entry->size;
  out.url = mirror + entry->relative_path;
  out.file_name = std::string(paths::basename(entry->relative_path));
  if (!remote) {
    if (!fs.is_file(out.url)) return make_error(ErrorCode::kNotFound, "the mirror directory lacks " + out.url, out.url);
    out.archive_path = out.url;
    return out;
  }
  std::string cached = store.cache_dir() + "/" + out.file_name;
  if (fs.is_file(cached)) {
    auto h = sha256_file(fs, cached);
    if (h && *h == out.expected_sha256) {
      out.archive_path = cached;
      out.from_cache = true;
      return out;
    }
  }
  if (r.dry_run) return out;  // would download
  if (auto s = fs.make_dirs(store.cache_dir()); !s) return s.error();
  std::string part = cached + ".part";
  DownloadOptions d;
  d.progress = r.progress;
  d.expected_size = out.expected_size;
  d.label = out.file_name;
  if (auto s = http_download(out.url, part, d); !s) return s.error();
  auto info = fs.stat(part);
  if (!info) return info.error();
  if (out.expected_size && info->size != out.expected_size) {
    return make_error(ErrorCode::kIo, "the download of " + out.url + " stopped at " + std::to_string(info->size) + " of " +
                                          std::to_string(out.expected_size) + " bytes; run the same command again to continue", part);
  }
  auto h = sha256_file(fs, part);
  if (!h) return h.error();
  if (*h != out.expected_sha256) {
    (void)fs.remove(part);  // resuming a wrong file would never fix it
    return make_error(ErrorCode::kCorrupt, "the download of " + out.url + " has sha256 " + *h + " but NVIDIA's manifest (" +
                                               out.manifest_url + ") says " + out.expected_sha256 +
                                               "; the partial file was deleted — try again, or use another mirror", out.url);
  }
  if (auto s = fs.rename(part, cached); !s) return s.error();
  out.archive_path = cached;
  out.downloaded = true;
  return out;
}

}  // namespace cudnnup

#endif  // CUDNNUP_HAVE_INSTALL
