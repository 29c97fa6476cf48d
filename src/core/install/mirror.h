// A mirror of NVIDIA's redist directory (https://developer.download.nvidia.com/compute/cudnn/redist/):
// an http(s) URL or a local directory with the same layout, redistrib_<release>.json at the top
// and cudnn/<platform>/<archive> below. Reading its list of releases and its manifests, and what
// it offers for a platform (`cudnnup list --available`).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/filesystem.h"
#include "base/version.h"
#include "facts/known_archives.h"
#include "install/redistrib.h"

namespace cudnnup {

constexpr const char* kDefaultMirror = "https://developer.download.nvidia.com/compute/cudnn/redist/";

// Downloads, wired by the app (platform/http_client.h).
struct HttpClient {
  std::function<Result<std::string>(const std::string& url)> get_text;
  // Continues `part_path` when it exists; shows progress through InstallServices::progress.
  std::function<Status(const std::string& url, const std::string& part_path, uint64_t expected_size, const std::string& label)>
      download;
};

struct Mirror {
  std::string root;     // ends in '/', so a file name can follow
  bool remote = false;  // http(s); else a directory
};
// "" -> NVIDIA's; file://DIR -> DIR.
Mirror mirror_at(const std::string& given);

// The releases the mirror lists: its index page (remote) or its file names (a directory), newest first.
Result<std::vector<Version>> listed_releases(const FileSystem& fs, const Mirror& mirror, const HttpClient& http);

// NVIDIA's manifest of one release ("9.19.0"; 8.x also by four parts); `manifest_url` says where.
Result<RedistribManifest> read_manifest(const FileSystem& fs, const Mirror& mirror, const std::string& release, const HttpClient& http,
                                        std::string* manifest_url);

// What a mirror offers for one platform (`cudnnup list --available`): its listed releases, newest
// first, each with the archives its manifest has for the platform.
struct AvailableRelease {
  std::string release;                   // "9.19.0"
  std::string date;                      // the manifest's release_date; "" from the table
  std::vector<RedistribEntry> archives;  // this platform's, one per CUDA variant
  std::string problem;                   // why the manifest could not be read; "" when it was
};
struct AvailableReleases {
  std::string mirror;
  std::string listed_by;  // "mirror" (its index or files) or "known-archives" (the list could not be read)
  std::string note;       // why the table stands in; ""
  std::vector<AvailableRelease> releases;
  size_t not_shown = 0;   // older releases left out by `newest`
};
// `newest` = 0: every listed release (one manifest read each); otherwise the newest that many.
Result<AvailableReleases> available_releases(const FileSystem& fs, const std::string& mirror, const std::string& platform_key,
                                             const std::vector<KnownArchive>& known, const HttpClient& http, size_t newest);

}  // namespace cudnnup
