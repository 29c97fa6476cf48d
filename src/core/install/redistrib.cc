#include "install/redistrib.h"

#include "base/json_reader.h"
#include "base/numbers.h"
#include "base/version.h"

namespace cudnnup {

namespace {

// NVIDIA writes the size as a string ("961592888"); a number is accepted too.
uint64_t size_of(const JsonValue& entry) {
  if (entry.has("size") && !entry.has_string("size")) return entry.unsigned_integer("size", 0);
  std::string text = entry.string("size");
  if (text.empty()) return 0;
  auto n = checked_unsigned(text);
  if (!n) entry.fail("size", "must be a number of bytes, not '" + text + "'");
  return n.value_or(0);
}

// A flat entry's relative path names the variant: ..._cuda13.4-archive.zip -> "13.4".
std::string variant_from_path(const std::string& path) {
  auto at = path.rfind("_cuda");
  if (at == std::string::npos) return {};
  auto end = path.find("-archive", at);
  return path.substr(at + 5, end == std::string::npos ? std::string::npos : end - at - 5);
}

}  // namespace

Result<RedistribManifest> parse_redistrib(const std::string& text, const std::string& source) {
  JsonReader reader("the redistrib manifest " + source);
  JsonValue in = reader.parse_object(text);
  if (!reader.ok()) return reader.status().error();
  if (!in.has("cudnn")) {
    return make_error(ErrorCode::kCorrupt, "the redistrib manifest " + source + " has no \"cudnn\" component", source);
  }
  RedistribManifest m;
  m.release_label = in.string("release_label");
  m.release_date = in.string("release_date");
  JsonValue c = in.object("cudnn");
  std::string version = c.string("version", m.release_label);
  for (const auto& [key, value] : c.members()) {
    if (!value.is_object() || (key.rfind("linux-", 0) != 0 && key.rfind("windows-", 0) != 0)) continue;
    if (value.has("relative_path")) {
      std::string path = value.required_string("relative_path");
      m.entries.push_back(RedistribEntry{version, key, variant_from_path(path), path, value.string("sha256"), size_of(value)});
    }
    for (const auto& [vkey, v] : value.members()) {
      if (!v.is_object() || vkey.rfind("cuda", 0) != 0 || !v.has("relative_path")) continue;
      m.entries.push_back(RedistribEntry{version, key, vkey.substr(4), v.required_string("relative_path"), v.string("sha256"),
                                         size_of(v)});
    }
  }
  if (!reader.ok()) return reader.status().error();
  return m;
}

Result<RedistribEntry> select_redistrib(const RedistribManifest& m, const std::string& platform, int cuda_major) {
  std::string offered;
  const RedistribEntry* flat = nullptr;
  for (const auto& e : m.entries) {
    if (e.platform != platform) continue;
    offered += (offered.empty() ? "" : ", ") + std::string("CUDA ") + (e.cuda_variant.empty() ? "?" : e.cuda_variant);
    // "13", "13.4"; anything else (a hand-edited manifest's "cudaX") matches no CUDA major.
    auto major = checked_int(std::string_view(e.cuda_variant).substr(0, e.cuda_variant.find('.')), 1, 999);
    if (!major || *major != cuda_major) continue;
    // Prefer the nested "cuda<M>" entry over a flat one for the same major (9.27 windows-arm64).
    if (e.cuda_variant.find('.') == std::string::npos) return e;
    flat = &e;
  }
  if (flat) return *flat;
  if (offered.empty()) {
    std::string platforms;
    for (const auto& e : m.entries) {
      if (platforms.find(e.platform) == std::string::npos) platforms += (platforms.empty() ? "" : ", ") + e.platform;
    }
    return make_error(ErrorCode::kNotFound, "cuDNN " + m.release_label + " has no " + platform + " archive (it has: " + platforms + ")");
  }
  return make_error(ErrorCode::kNotFound, "cuDNN " + m.release_label + " for " + platform + " is built for " + offered +
                                              ", not CUDA " + std::to_string(cuda_major));
}

std::vector<std::string> redistrib_file_names(const std::string& version) {
  auto v = Version::parse(version);
  if (!v) return {};
  std::vector<std::string> out;
  out.push_back("redistrib_" + v->truncated(3).str() + ".json");
  if (v->parts.size() >= 4) out.push_back("redistrib_" + v->str() + ".json");
  return out;
}

}  // namespace cudnnup
