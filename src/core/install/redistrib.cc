#include "install/redistrib.h"

#include <nlohmann/json.hpp>

#include "base/version.h"

namespace cudnnup {

using nlohmann::json;

namespace {

uint64_t size_of(const json& j) {
  if (!j.contains("size")) return 0;
  if (j["size"].is_string()) return std::stoull(j["size"].get<std::string>());  // NVIDIA writes a string
  if (j["size"].is_number()) return j["size"].get<uint64_t>();
  return 0;
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
  json in = json::parse(text, nullptr, false);
  if (in.is_discarded() || !in.is_object()) {
    return make_error(ErrorCode::kCorrupt, "the redistrib manifest " + source + " is not JSON", source);
  }
  if (!in.contains("cudnn") || !in["cudnn"].is_object()) {
    return make_error(ErrorCode::kCorrupt, "the redistrib manifest " + source + " has no \"cudnn\" component", source);
  }
  RedistribManifest m;
  m.release_label = in.value("release_label", "");
  m.release_date = in.value("release_date", "");
  const json& c = in["cudnn"];
  std::string version = c.value("version", m.release_label);
  try {
    for (const auto& [key, value] : c.items()) {
      if (!value.is_object() || (key.rfind("linux-", 0) != 0 && key.rfind("windows-", 0) != 0)) continue;
      if (value.contains("relative_path")) {
        RedistribEntry e{version, key, variant_from_path(value["relative_path"].get<std::string>()),
                         value["relative_path"].get<std::string>(), value.value("sha256", ""), size_of(value)};
        m.entries.push_back(e);
      }
      for (const auto& [vkey, v] : value.items()) {
        if (!v.is_object() || vkey.rfind("cuda", 0) != 0 || !v.contains("relative_path")) continue;
        m.entries.push_back(RedistribEntry{version, key, vkey.substr(4), v["relative_path"].get<std::string>(),
                                           v.value("sha256", ""), size_of(v)});
      }
    }
  } catch (const std::exception& e) {
    return make_error(ErrorCode::kCorrupt, "the redistrib manifest " + source + " is malformed: " + e.what(), source);
  }
  return m;
}

Result<RedistribEntry> select_redistrib(const RedistribManifest& m, const std::string& platform, int cuda_major) {
  std::string offered;
  const RedistribEntry* flat = nullptr;
  for (const auto& e : m.entries) {
    if (e.platform != platform) continue;
    offered += (offered.empty() ? "" : ", ") + std::string("CUDA ") + (e.cuda_variant.empty() ? "?" : e.cuda_variant);
    int major = e.cuda_variant.empty() ? 0 : std::stoi(e.cuda_variant.substr(0, e.cuda_variant.find('.')));
    if (major != cuda_major) continue;
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
