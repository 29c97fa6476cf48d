// Hashes of official cuDNN archives (data/known_archives.json, embedded), so a file on disk can be
// checked offline: "this is NVIDIA's cudnn-linux-x86_64-9.1.0.70_cuda12 archive, byte for byte".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "base/version.h"

namespace cudnnup {

struct KnownArchive {
  std::string file_name;
  std::string sha256;
  uint64_t size = 0;  // 0 when the source did not record it
  std::string source;
  bool refreshed = false;  // read from a mirror's manifest by `archive-info --update-known`, not built in
};

Result<std::vector<KnownArchive>> parse_known_archives(const std::string& json_text);
const std::vector<KnownArchive>& builtin_known_archives();

enum class KnownMatch { kUnknown, kMatches, kMismatch, kRenamedCopy };
struct KnownCheck {
  KnownMatch match = KnownMatch::kUnknown;
  std::optional<KnownArchive> entry;  // the row matched (by name or by hash)
  std::string message;                // one sentence for people
};

// By canonical name first (hash must agree), then by hash alone (a renamed official file).
KnownCheck check_known_archive(const std::vector<KnownArchive>& table, const std::string& canonical_name,
                               const std::string& sha256, uint64_t size);

// The releases the table has an official archive of for a platform ("linux-x86_64",
// "linux-sbsa", "windows-x86_64") and CUDA major, as three-part labels, newest first. Only rows
// NVIDIA published: a refreshed row is a mirror's word, never a stand-in for NVIDIA's list.
std::vector<Version> known_releases(const std::vector<KnownArchive>& table, const std::string& platform_key, int cuda_major);

// The official archives of cuDNN 7 and older the table has (their names carry the CUDA version:
// cudnn-10.2-linux-x64-v7.6.5.32.tgz), as {cuDNN version, CUDA version}, newest first. NVIDIA's
// redistributable index starts at 8.x, so these are found by name only.
std::vector<std::pair<Version, Version>> known_legacy_builds(const std::vector<KnownArchive>& table, int cudnn_major);

// The newest release of a cuDNN major built for a CUDA major that the table has an official
// archive of (linux-x86_64 or windows-x86_64), as the three-part version NVIDIA's manifests are
// named by (9.19.0): what a fix offers for `cudnnup install VERSION --cuda N`, which needs a
// release, not a major. nullopt when the table has none.
std::optional<Version> newest_known_release(const std::vector<KnownArchive>& table, int cudnn_major, int cuda_major,
                                            bool windows);

}  // namespace cudnnup
