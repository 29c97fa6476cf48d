#include "facts/known_archives.h"

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
  c.message = "The archive is not in cudnnup's table of known archives: its contents were checked, its origin "
              "cannot be.";
  return c;
}

}  // namespace cudnnup
