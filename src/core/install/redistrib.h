// NVIDIA's redistrib_<version>.json manifests (https://developer.download.nvidia.com/compute/cudnn/redist/): which archive holds
// cuDNN <version> for a platform and CUDA major, with its sha256 and size. Handles both shapes:
// flat {relative_path, sha256, size} per platform (8.x 4-part labels) and nested
// {"cuda12": {...}} per variant (9.x), including 9.27's mix of the two.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace cudnnup {

struct RedistribEntry {
  std::string version;        // "9.1.0.70"
  std::string platform;       // "linux-x86_64"
  std::string cuda_variant;   // "12"; "" for a flat entry without one
  std::string relative_path;  // "cudnn/linux-x86_64/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz"
  std::string sha256;
  uint64_t size = 0;
};

struct RedistribManifest {
  std::string release_label;  // "9.1.0"
  std::string release_date;
  std::vector<RedistribEntry> entries;  // the "cudnn" component only
};

Result<RedistribManifest> parse_redistrib(const std::string& json_text, const std::string& source);

// The entry for a platform and CUDA major; the error lists what the manifest does offer.
Result<RedistribEntry> select_redistrib(const RedistribManifest& m, const std::string& platform, int cuda_major);

// "9.1.0.70" or "9.1.0" -> "redistrib_9.1.0.json" (9.x labels are 3-part; 8.x also had 4-part).
std::vector<std::string> redistrib_file_names(const std::string& version);

}  // namespace cudnnup
