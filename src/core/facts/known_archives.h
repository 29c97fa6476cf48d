// Hashes of official cuDNN archives (data/known_archives.json, embedded), so a file on disk can be
// checked offline: "this is NVIDIA's cudnn-linux-x86_64-9.1.0.70_cuda12 archive, byte for byte".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace cudnnup {

struct KnownArchive {
  std::string file_name;
  std::string sha256;
  uint64_t size = 0;  // 0 when the source did not record it
  std::string source;
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

}  // namespace cudnnup
