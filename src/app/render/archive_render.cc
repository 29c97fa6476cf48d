#include "app/render/archive_render.h"

#include <cstdio>

namespace cudnnup {

using nlohmann::json;

std::string human_bytes(uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(n);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

std::vector<SuitabilityCheck> check_suitability(const ArchiveName& id, const ContentReport& contents, bool host_windows,
                                                const Report* report, const std::string& toolkit_root) {
  std::vector<SuitabilityCheck> out;
  bool archive_windows = id.platform == ArchivePlatform::kWindows;
  if (archive_windows != host_windows || id.platform == ArchivePlatform::kMacos) {
    out.push_back({"platform", "error", std::string("the archive is for ") + archive_platform_name(id.platform) + ", this machine runs " +
                                            (host_windows ? "Windows" : "Linux")});
  } else {
    out.push_back({"platform", "ok", std::string("built for ") + archive_platform_name(id.platform) + ", like this machine"});
  }
  const std::string host(host_machine().name);
  std::string machine = contents.machine.empty() ? archive_arch_machine(id.arch) : contents.machine;
  if (machine != host) {
    out.push_back({"architecture", "error", "the libraries are built for " + machine + ", this machine is " + host});
  } else if (id.arch == ArchiveArch::kAarch64Jetson) {
    out.push_back({"architecture", "warning", "linux-aarch64 archives are for Jetson (Tegra); servers use linux-sbsa"});
  } else {
    out.push_back({"architecture", "ok", "built for " + machine});
  }
  if (!report) return out;

  // Toolkits: the archive's CUDA major must match the toolkit it is used with.
  bool any_match = false;
  std::vector<std::string> seen;
  int first_major = 0;
  for (const auto& t : report->toolkits) {
    bool chosen = toolkit_root.empty() || t.root == toolkit_root;
    for (const auto& a : t.aliases) chosen |= a == toolkit_root;
    if (!chosen) continue;
    seen.push_back(t.root + " (CUDA " + t.version.str() + ")");
    if (!first_major) first_major = t.version.major();
    any_match |= t.version.major() == id.cuda_major;
  }
  if (seen.empty()) {
    out.push_back({"toolkit", "unknown", toolkit_root.empty() ? "no CUDA toolkit found; the store install works without one"
                                                              : "no CUDA toolkit found at " + toolkit_root});
  } else if (any_match) {
    out.push_back({"toolkit", "ok", "a CUDA " + std::to_string(id.cuda_major) + " toolkit is here"});
  } else {
    std::string list;
    for (const auto& s : seen) list += (list.empty() ? "" : ", ") + s;
    out.push_back({"toolkit", toolkit_root.empty() ? "warning" : "error",
                   "the archive is built for CUDA " + std::to_string(id.cuda_major) + " but the toolkit here is " + list +
                       "; the matching archive is the _cuda" + std::to_string(first_major) + " one"});
  }
  // Driver: it must support the archive's CUDA major.
  const DriverInfo& d = report->driver;
  if (!d.present) {
    out.push_back({"driver", "warning", "no NVIDIA driver found: the archive can be installed, but nothing can use it on this machine"});
  } else if (d.cuda_version.known() && d.cuda_version.major() < id.cuda_major) {
    out.push_back({"driver", "error", "the driver " + d.version_text + " supports CUDA up to " + d.cuda_version.str() +
                                          "; a CUDA " + std::to_string(id.cuda_major) + " build needs a newer driver"});
  } else {
    out.push_back({"driver", "ok", "driver " + d.version_text + (d.cuda_version.known() ? " supports CUDA " + d.cuda_version.str() : "")});
  }
  // GPUs: CUDA 13 builds and cuDNN >= 9.11 need compute capability 7.5 (data/rules.json, with its sources).
  Version floor = (id.cuda_major >= 13 || id.version >= Version{9, 11}) ? Version{7, 5} : Version{5, 0};
  for (const auto& g : d.gpus) {
    if (g.compute_capability.known() && g.compute_capability < floor) {
      out.push_back({"gpu", "error", "GPU " + std::to_string(g.index) + " (" + g.name + ") has compute capability " +
                                         g.compute_capability.str() + "; this cuDNN needs " + floor.str() + " or newer"});
    } else {
      out.push_back({"gpu", "ok", "GPU " + std::to_string(g.index) + " (" + g.name + ", compute capability " + g.compute_capability.str() + ")"});
    }
  }
  return out;
}

json archive_identity_json(const std::optional<ArchiveName>& name, const std::string& path, uint64_t size, const std::string& sha256) {
  json a;
  a["path"] = path;
  a["size"] = size;
  a["sha256"] = sha256;
  if (name) {
    a["name"] = {{"file_name", name->file_name},
                 {"recognised", true},
                 {"canonical", name->canonical},
                 {"canonical_name", name->canonical_name},
                 {"era", name->era == ArchiveEra::kLegacy ? "legacy" : "archive"},
                 {"version", name->version.str()},
                 {"platform", archive_platform_name(name->platform)},
                 {"arch", archive_arch_name(name->arch)},
                 {"platform_key", name->platform_key()},
                 {"cuda_variant", name->cuda_variant},
                 {"cuda_major", name->cuda_major},
                 {"expected_top_dir", name->expected_top_dir()}};
  } else {
    a["name"] = {{"recognised", false}};
  }
  return a;
}

json contents_json(const ScanResult& scan) {
  const ContentReport& r = scan.report;
  json c;
  c["top_dir"] = scan.top_dir;
  c["entries"] = scan.items.size();
  c["unpacked_bytes"] = scan.unpacked_bytes;
  c["header_version"] = r.header_version.known() ? json(r.header_version.str()) : json(nullptr);
  c["header_path"] = r.header_path;
  c["platform"] = archive_platform_name(r.platform);
  c["machine"] = r.machine;
  c["library_major"] = r.library_major;
  json libs = json::array();
  for (const auto& l : r.libraries) {
    json j = {{"path", l.rel}, {"component", l.component}, {"major", l.major}, {"link", l.is_link}};
    if (!l.is_link) {
      j["format"] = l.format == BinaryFormat::kElf ? "elf" : l.format == BinaryFormat::kPe ? "pe" : l.format == BinaryFormat::kArStatic ? "ar" : "none";
      j["machine"] = l.machine;
    }
    libs.push_back(j);
  }
  c["libraries"] = libs;
  c["missing_components"] = r.missing;
  c["errors"] = r.errors;
  c["warnings"] = r.warnings;
  c["ok"] = r.ok();
  return c;
}

json known_json(const KnownCheck& k) {
  const char* word = k.match == KnownMatch::kMatches ? "matches" : k.match == KnownMatch::kMismatch ? "mismatch"
                     : k.match == KnownMatch::kRenamedCopy                                       ? "renamed-copy"
                                                                                                 : "unknown";
  json j = {{"status", word}, {"message", k.message}};
  if (k.entry) j["entry"] = {{"file_name", k.entry->file_name}, {"sha256", k.entry->sha256}, {"size", k.entry->size}, {"source", k.entry->source}};
  return j;
}

json suitability_json(const std::vector<SuitabilityCheck>& checks) {
  json out = json::array();
  for (const auto& c : checks) out.push_back({{"id", c.id}, {"status", c.status}, {"message", c.message}});
  return out;
}

}  // namespace cudnnup
