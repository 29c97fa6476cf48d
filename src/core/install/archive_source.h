// Where `cudnnup install ARG` gets its archive, and which sha256 it must have: a local file
// (checked against the known-archives table), or a version resolved through NVIDIA's
// redistrib_<version>.json on a mirror (https, http, or a local directory laid out like
// developer.download.nvidia.com/compute/cudnn/redist/), downloaded into the store's cache with
// size and sha256 checked.
//
// Hashes can come from three places. NVIDIA's published sha256 (data/known_archives.json, copied
// from NVIDIA's own manifests) always wins: a mirror's manifest or --sha256 that disagrees with
// it is an error naming both, never a quiet override. Without a published one, the mirror's
// manifest gives it, and --sha256 must agree with that. Every claim is reported with its source.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/filesystem.h"
#include "facts/known_archives.h"
#include "install/archive_scan.h"
#include "install/mirror.h"
#include "install/redistrib.h"
#include "store/store_layout.h"

namespace cudnnup {

struct SourceRequest {
  std::string arg;               // a file, or a version ("9", "9.1", "9.1.0", "9.1.0.70", "latest")
  std::optional<int> cuda_major;
  std::string mirror;            // URL or directory; "" = kDefaultMirror
  std::string platform_key;      // "linux-x86_64"
  std::string sha256;            // --sha256 (lower-case hex), "" when not given
  bool dry_run = false;          // resolve, but do not download
};

// One statement of what the archive's sha256 is.
struct HashClaim {
  std::string source;  // "known-archives" (NVIDIA's published), "refreshed-known-archives" (archive-info
                       // --update-known), "mirror-manifest", "command-line"
  std::string where;   // the URL it was published at, the manifest's URL, or "--sha256"
  std::string sha256;
  bool used = false;   // the one the archive is checked against
};
std::string describe_hash_claim(const HashClaim& c);  // "NVIDIA's published sha256 (<url>)", ...

struct ResolvedSource {
  std::string archive_path;      // empty for a dry run that would download
  std::string expected_sha256;   // the claim used; "" when there is none
  std::string expected_from;     // describe_hash_claim of it, for messages
  uint64_t expected_size = 0;
  std::vector<HashClaim> hashes; // every claim, the used one marked
  std::string url;               // where it came from (or would)
  std::string manifest_url;
  std::string file_name;
  bool downloaded = false;
  bool from_cache = false;
  bool known_file = false;       // its name is in the known-archives table
  std::string release;           // the release a version resolved to ("9.27.0"); "" for a file
  std::string release_note;      // how a partial version (9, 9.19, latest) chose it, in one sentence
};

// A release spec (install/release_index.h): 9, 9.19, 9.19.0, 9.19.0.56 or latest.
bool looks_like_version(const std::string& arg);

// `services.new_hasher` checks cached and downloaded files; `services.progress` shows it.
Result<ResolvedSource> resolve_source(FileSystem& fs, const StoreLayout& store, const SourceRequest& request,
                                      const std::vector<KnownArchive>& known, const HttpClient& http,
                                      const InstallServices& services);

}  // namespace cudnnup
