#include "facts/known_archives.h"

#include <algorithm>
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
  // A refreshed row is only as good as the mirror it was read from: said so, never "NVIDIA's".
  auto claim = [](const KnownArchive& k) {
    return k.refreshed ? std::string("the sha256 that `archive-info --update-known` read") : std::string("NVIDIA's published sha256");
  };
  KnownCheck c;
  for (const auto& k : table) {
    if (k.file_name != canonical_name) continue;
    c.entry = k;
    if (k.sha256 == sha256 && (k.size == 0 || k.size == size)) {
      c.match = KnownMatch::kMatches;
      c.message = "The archive matches " + claim(k) + " for " + k.file_name + " (" + k.source + ").";
    } else {
      c.match = KnownMatch::kMismatch;
      c.message = "The archive does NOT match " + claim(k) + " for " + k.file_name + " (expected " + k.sha256 +
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

std::vector<Version> known_releases(const std::vector<KnownArchive>& table, const std::string& platform_key, int cuda_major) {
  static const std::regex name(R"(^cudnn-([a-z]+-[a-z0-9_]+)-(\d{1,4}(?:\.\d{1,4}){2,3})_cuda(\d{1,3})-archive\.(tar\.xz|zip)$)");
  std::vector<Version> out;
  for (const auto& k : table) {
    std::smatch m;
    if (k.refreshed || !std::regex_match(k.file_name, m, name) || m[1] != platform_key || m[3] != std::to_string(cuda_major)) continue;
    if (auto v = Version::parse(m[2].str())) out.push_back(v->truncated(3));
  }
  std::sort(out.begin(), out.end(), [](const Version& a, const Version& b) { return b < a; });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::pair<Version, Version>> known_legacy_builds(const std::vector<KnownArchive>& table, int cudnn_major) {
  static const std::regex name(R"(^cudnn-(\d{1,2}\.\d{1,2})-(?:linux|windows\d*)-x64-v(\d{1,2}(?:\.\d{1,4}){2,3})\.(?:tgz|zip)$)");
  std::vector<std::pair<Version, Version>> out;
  for (const auto& k : table) {
    std::smatch m;
    if (k.refreshed || !std::regex_match(k.file_name, m, name)) continue;
    auto cuda = Version::parse(m[1].str());
    auto cudnn = Version::parse(m[2].str());
    if (!cuda || !cudnn || cudnn->major() != cudnn_major) continue;
    std::pair<Version, Version> build{cudnn->truncated(3), *cuda};
    if (std::find(out.begin(), out.end(), build) == out.end()) out.push_back(build);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return b.first < a.first; });
  return out;
}

std::optional<Version> newest_known_release(const std::vector<KnownArchive>& table, int cudnn_major, int cuda_major,
                                            bool windows) {
  for (const auto& v : known_releases(table, windows ? "windows-x86_64" : "linux-x86_64", cuda_major)) {
    if (v.major() == cudnn_major) return v;
  }
  return std::nullopt;
}

}  // namespace cudnnup
