#include "facts/known_archives.h"

#include <regex>

#include "base/json_reader.h"

extern const char embedded_known_archives_json[];
extern const unsigned long long embedded_known_archives_json_size;

namespace cudnnup {

Result<std::vector<KnownArchive>> parse_known_archives(const std::string& text) {
  JsonReader reader("known_archives.json");
  JsonValue in = reader.parse_object(text);
  if (!in.has("archives")) in.fail("archives", "is missing");
  std::vector<KnownArchive> out;
  for (const auto& a : in.array("archives")) {
    KnownArchive k;
    k.file_name = a.string("file_name");
    k.sha256 = a.string("sha256");
    k.size = a.unsigned_integer("size", 0);
    k.source = a.string("source");
    out.push_back(k);
  }
  if (!reader.ok()) return reader.status().error();
  return out;
}

const std::vector<KnownArchive>& builtin_known_archives() {
  static const std::vector<KnownArchive> table = [] {
    auto parsed = parse_known_archives(std::string(embedded_known_archives_json, embedded_known_archives_json_size));
    return parsed ? *parsed : std::vector<KnownArchive>{};
  }();
  return table;
}

KnownCheck check_known_archive(const std::vector<KnownArchive>& table, const std::string& canonical_name,
                               const std::string& sha256, uint64_t size) {
  KnownCheck c;
  for (const auto& k : table) {
    if (k.file_name != canonical_name) continue;
    c.entry = k;
    if (k.sha256 == sha256 && (k.size == 0 || k.size == size)) {
      c.match = KnownMatch::kMatches;
      c.message = "The archive matches NVIDIA's published sha256 for " + k.file_name + " (" + k.source + ").";
    } else {
      c.match = KnownMatch::kMismatch;
      c.message = "The archive does NOT match NVIDIA's published sha256 for " + k.file_name + " (expected " + k.sha256 +
                  (k.size ? ", " + std::to_string(k.size) + " bytes" : "") +
                  "): it is damaged, incomplete, or not the official archive; download it again.";
    }
    return c;
  }
  for (const auto& k : table) {
    if (k.sha256 == sha256) {
      c.entry = k;
      c.match = KnownMatch::kRenamedCopy;
      c.message = "The archive is NVIDIA's " + k.file_name + " under another name.";
      return c;
    }
  }
  c.message = "The archive is not in cudnnup's table of NVIDIA's archives, so where it comes from cannot be checked.";
  return c;
}

std::optional<Version> newest_known_release(const std::vector<KnownArchive>& table, int cudnn_major, int cuda_major,
                                            bool windows) {
  static const std::regex name(R"(^cudnn-(linux|windows)-x86_64-([0-9.]+)_cuda([0-9]+)-archive\.(tar\.xz|zip)$)");
  std::optional<Version> best;
  for (const auto& k : table) {
    std::smatch m;
    if (!std::regex_match(k.file_name, m, name) || (m[1] == "windows") != windows || m[3] != std::to_string(cuda_major)) continue;
    auto v = Version::parse(m[2].str());
    if (!v || v->major() != cudnn_major) continue;
    if (!best || *best < v->truncated(3)) best = v->truncated(3);
  }
  return best;
}

}  // namespace cudnnup
