// Where `cudnnup install ARG` gets its archive: a local file (checked against the known-archives
// table), or a version resolved through NVIDIA's redistrib_<version>.json on a mirror (https,
// http, or a local directory laid out like developer.download.nvidia.com/compute/cudnn/redist/),
// downloaded into the store's cache with size and sha256 checked.
#pragma once

#include <optional>
#include <string>

#include "base/filesystem.h"
#include "store/store_layout.h"

namespace cudnnup {

constexpr const char* kDefaultMirror = "https://developer.download.nvidia.com/compute/cudnn/redist/";

struct SourceRequest {
  std::string arg;               // a file, or a version ("9.1.0", "9.1.0.70")
  std::optional<int> cuda_major;
  std::string mirror;            // URL or directory; "" = $CUDNNUP_MIRROR or kDefaultMirror
  std::string platform_key;      // "linux-x86_64"
  bool progress = false;
  bool dry_run = false;          // resolve, but do not download
};

struct ResolvedSource {
  std::string archive_path;      // empty for a dry run that would download
  std::string expected_sha256;
  uint64_t expected_size = 0;
  std::string url;               // where it came from (or would)
  std::string manifest_url;
  std::string file_name;
  bool downloaded = false;
  bool from_cache = false;
  bool known_file = false;       // a local file whose name is in the known-archives table
};

bool looks_like_version(const std::string& arg);

Result<ResolvedSource> resolve_source(FileSystem& fs, const StoreLayout& store, const SourceRequest& request);

}  // namespace cudnnup
