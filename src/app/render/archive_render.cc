#include "app/render/archive_render.h"

#include <cstdio>

#include "facts/rules.h"

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

namespace {

const char* platform_words(ArchivePlatform p) {
  switch (p) {
    case ArchivePlatform::kLinux: return "Linux";
    case ArchivePlatform::kWindows: return "Windows";
    case ArchivePlatform::kMacos: return "macOS";
    case ArchivePlatform::kUnknown: break;
  }
  return "an unknown platform";
}

void check_toolkit(const ArchiveName& id, const Report& report, const std::string& toolkit_root,
                   std::vector<SuitabilityCheck>& out) {
  // The archive's CUDA major must match the toolkit it is used with.
  bool any_match = false;
  std::vector<std::string> seen;
  int first_major = 0;
  for (const auto& t : report.toolkits) {
    bool chosen = toolkit_root.empty() || t.root == toolkit_root;
    for (const auto& a : t.aliases) chosen |= a == toolkit_root;
    if (!chosen) continue;
    seen.push_back(t.root + " (CUDA " + t.version.str() + ")");
    if (!first_major) first_major = t.version.major();
    any_match |= t.version.major() == id.cuda_major;
  }
  const std::string cuda = std::to_string(id.cuda_major);
  if (seen.empty()) {
    out.push_back({"toolkit", "unknown", toolkit_root.empty() ? "No CUDA toolkit was found; an install into cudnnup's store works without one."
                                                              : "No CUDA toolkit was found at " + toolkit_root + "."});
  } else if (any_match) {
    out.push_back({"toolkit", "ok", "A CUDA " + cuda + " toolkit is installed here."});
  } else {
    std::string list;
    for (const auto& s : seen) list += (list.empty() ? "" : ", ") + s;
    out.push_back({"toolkit", toolkit_root.empty() ? "warning" : "error",
                   "The archive is built for CUDA " + cuda + ", but the toolkit here is " + list + "; the matching archive is the _cuda" +
                       std::to_string(first_major) + " one."});
  }
}

void check_driver_and_gpus(const ArchiveName& id, const DriverInfo& d, std::vector<SuitabilityCheck>& out) {
  const std::string cuda = std::to_string(id.cuda_major);
  if (!d.present) {
    out.push_back({"driver", "warning", "No NVIDIA driver was found: the archive can be installed, but nothing can use it on this machine."});
  } else if (d.cuda_version.known() && d.cuda_version.major() < id.cuda_major) {
    out.push_back({"driver", "error", "The driver " + d.version_text + " supports CUDA up to " + d.cuda_version.str() + ", but a CUDA " +
                                          cuda + " build needs a newer driver."});
  } else {
    out.push_back({"driver", "ok", "The driver " + d.version_text +
                                       (d.cuda_version.known() ? " supports CUDA " + d.cuda_version.str() + "." : " is installed.")});
  }
  // The lowest compute capability this release supports (data/rules.json, with its sources).
  const ComputeCapabilityRule* floor = builtin_rules().compute_capability_rule_for(id.version, id.cuda_major);
  for (const auto& g : d.gpus) {
    const std::string gpu = "GPU " + std::to_string(g.index) + " (" + g.name + ") has compute capability " + g.compute_capability.str();
    if (floor && g.compute_capability.known() && g.compute_capability < floor->min_cc) {
      out.push_back({"gpu", "error", gpu + ", but this cuDNN needs " + floor->min_cc.str() + " or newer (" +
                                         floor->source.substr(0, floor->source.find_first_of(" ;")) + ")."});
    } else {
      out.push_back({"gpu", "ok", gpu + (floor ? ", which this cuDNN supports." : ".")});
    }
  }
}

}  // namespace

std::vector<SuitabilityCheck> check_suitability(const ArchiveName& id, const ContentReport& contents, bool host_windows,
                                                const Report* report, const std::string& toolkit_root) {
  std::vector<SuitabilityCheck> out;
  bool archive_windows = id.platform == ArchivePlatform::kWindows;
  const std::string host_os = host_windows ? "Windows" : "Linux";
  if (archive_windows != host_windows || id.platform == ArchivePlatform::kMacos) {
    out.push_back({"platform", "error", std::string("The archive is for ") + platform_words(id.platform) + ", but this machine runs " + host_os + "."});
  } else {
    out.push_back({"platform", "ok", std::string("The archive is for ") + platform_words(id.platform) + ", like this machine."});
  }
  const std::string host(host_machine().name);
  std::string machine = contents.machine.empty() ? archive_arch_machine(id.arch) : contents.machine;
  if (machine != host) {
    out.push_back({"architecture", "error", "The libraries are built for " + machine + ", but this machine is " + host + "."});
  } else if (id.arch == ArchiveArch::kAarch64Jetson) {
    out.push_back({"architecture", "warning", "This is a linux-aarch64 archive, which is for Jetson (Tegra); servers use the linux-sbsa archives."});
  } else {
    out.push_back({"architecture", "ok", "The libraries are built for " + machine + ", like this machine."});
  }
  if (!report) return out;
  check_toolkit(id, *report, toolkit_root, out);
  check_driver_and_gpus(id, report->driver, out);
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
