#include "discover/loader_config.h"

#include <algorithm>
#include <mutex>
#include <regex>

#include "base/paths.h"
#include "binfmt/elf.h"
#include "facts/machines.h"

namespace cudnnup {
namespace {

constexpr size_t kMaxLdSoBytes = 8 << 20;  // ld.so is ~250 KB; libc.so.6 ~2 MB

// The bytes the directory list and the release banner are looked for in: the file's .rodata
// (24 KB of ld.so's 215, both strings live there), else the whole file (a stripped section table,
// an odd build).
Result<std::string> read_constants(const FileSystem& fs, const std::string& path) {
  auto info = fs.stat(path);
  if (!info) return info.error();
  RangeReader read = [&](uint64_t offset, size_t n) { return fs.read_range(path, offset, n); };
  if (auto rodata = find_elf_section(read, info->size, ".rodata"); rodata && rodata->size <= kMaxLdSoBytes) {
    return fs.read_range(path, rodata->offset, size_t(rodata->size));
  }
  return fs.read_file(path, kMaxLdSoBytes);
}

bool has_all(const CpuFeatures& cpu, std::initializer_list<const char*> names) {
  return std::all_of(names.begin(), names.end(), [&](const char* n) { return cpu.flags.count(n) > 0; });
}

bool is_directory_name(std::string_view s) {
  if (s.size() < 3 || s.front() != '/' || s.back() != '/') return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '-' || c == '.' || c == '+';
  });
}

// The layout a distribution's glibc is configured with, when ld.so itself cannot be read.
std::vector<std::string> layout_fallback(const FileSystem& fs, bool is_64bit, uint16_t machine, std::string* source) {
  std::string triplet = multiarch_triplet(machine, is_64bit);
  if (!triplet.empty() && fs.is_dir("/usr/lib/" + triplet)) {
    *source = "Debian multiarch layout (/usr/lib/" + triplet + " exists)";
    return {"/lib/" + triplet, "/usr/lib/" + triplet, "/lib", "/usr/lib"};
  }
  if (is_64bit && fs.is_dir("/usr/lib64")) {
    *source = "lib64 layout (/usr/lib64 exists)";
    return {"/lib64", "/usr/lib64"};
  }
  *source = "plain layout";
  return {"/lib", "/usr/lib"};
}

std::string lib_token_for(const std::vector<std::string>& system_dirs) {
  if (system_dirs.empty()) return "lib";
  std::string first = system_dirs.front();
  return first.size() > 1 ? first.substr(1) : "lib";  // "/lib/x86_64-linux-gnu" -> "lib/x86_64-linux-gnu"
}

}  // namespace

std::vector<std::string> find_system_dirs(std::string_view bytes) {
  for (size_t start = bytes.find("/lib"); start != std::string_view::npos; start = bytes.find("/lib", start + 1)) {
    // A run must start right after a NUL (or at offset 0): we want whole strings.
    size_t begin = start;
    while (begin > 0 && bytes[begin - 1] != '\0' && start - begin < 64) --begin;
    if (begin > 0 && bytes[begin - 1] != '\0') continue;
    std::vector<std::string> dirs;
    size_t pos = begin;
    while (pos < bytes.size()) {
      size_t end = bytes.find('\0', pos);
      if (end == std::string_view::npos) break;
      std::string_view s = bytes.substr(pos, end - pos);
      if (!is_directory_name(s) || s.find("lib") == std::string_view::npos) break;
      dirs.emplace_back(s.substr(0, s.size() - 1));
      pos = end + 1;
    }
    bool ended = pos < bytes.size() && bytes[pos] == '\0';  // the run ends with an empty string
    if (dirs.size() >= 2 && ended) return dirs;
  }
  return {};
}

std::optional<Version> find_glibc_release(std::string_view bytes) {
  static const std::string_view kMarker = "release version ";
  for (size_t at = bytes.find(kMarker); at != std::string_view::npos; at = bytes.find(kMarker, at + 1)) {
    size_t begin = at + kMarker.size(), end = begin;
    while (end < bytes.size() && (std::isdigit(static_cast<unsigned char>(bytes[end])) || bytes[end] == '.')) ++end;
    while (end > begin && bytes[end - 1] == '.') --end;  // the banner's full stop
    if (end > begin) {
      if (auto v = Version::parse(bytes.substr(begin, end - begin)); v && v->parts.size() >= 2) return v;
    }
  }
  return std::nullopt;
}

CpuFeatures parse_cpuinfo(std::string_view text) {
  CpuFeatures cpu;
  bool have_flags = false;
  for (const auto& line : paths::split_list(text, '\n')) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && std::isspace(static_cast<unsigned char>(key.back()))) key.pop_back();
    std::string value = line.substr(colon + 1);
    if (key == "vendor_id" && cpu.vendor.empty()) {
      size_t b = value.find_first_not_of(" \t");
      cpu.vendor = b == std::string::npos ? "" : value.substr(b);
    } else if (key == "flags" && !have_flags) {  // the first CPU stands for all of them
      have_flags = true;
      for (const auto& f : paths::split_list(value, ' ')) {
        if (!f.empty()) cpu.flags.insert(f);
      }
    }
  }
  return cpu;
}

std::vector<std::string> x86_64_hwcaps_levels(const CpuFeatures& cpu) {
  // glibc sysdeps/x86/get-isa-level.h; /proc/cpuinfo says "pni" for SSE3 and "abm" for LZCNT.
  bool v2 = has_all(cpu, {"cx16", "lahf_lm", "popcnt", "pni", "sse4_1", "sse4_2", "ssse3"});
  bool v3 = v2 && has_all(cpu, {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"});
  bool v4 = v3 && has_all(cpu, {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"});
  std::vector<std::string> out;
  if (v4) out.push_back("x86-64-v4");
  if (v3) out.push_back("x86-64-v3");
  if (v2) out.push_back("x86-64-v2");
  return out;
}

std::string x86_64_platform(const CpuFeatures& cpu) {
  const std::string kernel = elf_machine_name(kElfMachineX86_64);  // AT_PLATFORM as the kernel sets it
  if (cpu.vendor != "GenuineIntel") return kernel;
  if (cpu.flags.count("avx512cd") && cpu.flags.count("avx512er")) {
    return cpu.flags.count("avx512pf") ? "xeon_phi" : kernel;
  }
  if (has_all(cpu, {"avx2", "fma", "bmi1", "bmi2", "abm", "movbe", "popcnt"})) return "haswell";
  return kernel;
}

std::vector<std::string> x86_64_hwcap_names(const CpuFeatures& cpu) {
  std::vector<std::string> out;
  if (cpu.vendor == "GenuineIntel" && cpu.flags.count("avx512cd") && !cpu.flags.count("avx512er") &&
      has_all(cpu, {"avx512bw", "avx512dq", "avx512vl"})) {
    out.push_back("avx512_1");
  }
  out.push_back(elf_machine_name(kElfMachineX86_64));  // HWCAP_X86_64, named like the machine
  return out;
}

std::vector<std::string> legacy_hwcaps_subdirs(const std::vector<std::string>& components) {
  std::vector<std::string> out;
  size_t n = std::min<size_t>(components.size(), 16);
  for (uint32_t mask = (1u << n) - 1; mask > 0; --mask) {
    std::string dir;
    for (size_t i = 0; i < n; ++i) {
      if (mask & (1u << (n - 1 - i))) dir += (dir.empty() ? "" : "/") + components[i];
    }
    out.push_back(dir);
  }
  return out;
}

namespace {

// What read_loader_config read, and what it made of it: doctor asks once per modelled process.
struct RememberedConfig {
  bool is_64bit;
  uint16_t machine;
  std::string ld_so, cpuinfo;
  LoaderConfig config;
};

}  // namespace

LoaderConfig read_loader_config(const FileSystem& fs, bool is_64bit, uint16_t machine) {
  LoaderConfig cfg;
  cfg.interpreter = elf_interpreter(machine, is_64bit);
  std::string ld_so;
  if (!cfg.interpreter.empty()) {
    if (auto bytes = read_constants(fs, cfg.interpreter)) ld_so = std::move(*bytes);
  }
  // The answer depends on these bytes alone when ld.so names its directories and its release
  // (the fallbacks read other files): remembered by content, so another filesystem (a test's) or
  // a changed file never shares an answer.
  std::string cpuinfo;
  if (machine == kElfMachineX86_64) {
    // The first CPU's record is enough, and the kernel writes /proc/cpuinfo as it is read: a
    // bounded read stays cheap on a machine with hundreds of cores.
    if (auto text = fs.read_range("/proc/cpuinfo", 0, 16 << 10)) cpuinfo = std::move(*text);
  }
  static std::mutex mu;
  static std::vector<RememberedConfig> remembered;
  {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto& r : remembered) {
      if (r.is_64bit == is_64bit && r.machine == machine && r.ld_so == ld_so && r.cpuinfo == cpuinfo) return r.config;
    }
  }
  cfg.system_dirs = find_system_dirs(ld_so);
  if (!cfg.system_dirs.empty()) {
    cfg.system_dirs_source = "compiled into " + cfg.interpreter;
  } else {
    cfg.system_dirs = layout_fallback(fs, is_64bit, machine, &cfg.system_dirs_source);
    cfg.notes.push_back("default directories from the " + cfg.system_dirs_source + ": " +
                        (ld_so.empty() ? cfg.interpreter + " could not be read" : "none found in " + cfg.interpreter));
  }
  cfg.lib_token = lib_token_for(cfg.system_dirs);
  cfg.glibc_version = find_glibc_release(ld_so);
  if (cfg.glibc_version) {
    cfg.glibc_version_source = cfg.interpreter + " banner";
  } else {
    // libc.so.6 carries the banner in every release; it lives in the first default directory.
    for (const auto& dir : cfg.system_dirs) {
      auto libc = read_constants(fs, dir + "/libc.so.6");
      if (!libc) continue;
      cfg.glibc_version = find_glibc_release(*libc);
      if (cfg.glibc_version) {
        cfg.glibc_version_source = dir + "/libc.so.6 banner";
        break;
      }
    }
  }
  if (!cfg.glibc_version) cfg.notes.push_back("the glibc release is unknown: no hardware-capability subdirectories modelled");
  cfg.platform = elf_machine_name(machine);  // AT_PLATFORM, near enough off x86-64
  if (machine != kElfMachineX86_64) {
    if (cfg.glibc_version) cfg.notes.push_back("hardware-capability subdirectories are modelled on x86-64 only");
    return cfg;
  }
  CpuFeatures cpu = parse_cpuinfo(cpuinfo);
  if (cpu.flags.empty()) {
    cfg.notes.push_back("/proc/cpuinfo has no CPU flags: no hardware-capability subdirectories modelled");
    return cfg;
  }
  cfg.platform = x86_64_platform(cpu);
  if (!cfg.glibc_version) return cfg;
  const Version& v = *cfg.glibc_version;
  if (v >= Version{2, 33}) cfg.hwcaps = x86_64_hwcaps_levels(cpu);
  if (v < Version{2, 37}) {
    std::vector<std::string> components = {"tls", cfg.platform};
    for (const auto& name : x86_64_hwcap_names(cpu)) components.push_back(name);
    cfg.legacy_hwcaps = legacy_hwcaps_subdirs(components);
  }
  if (cfg.glibc_version_source == cfg.interpreter + " banner" && cfg.system_dirs_source == "compiled into " + cfg.interpreter) {
    std::lock_guard<std::mutex> lock(mu);
    if (remembered.size() < 8) remembered.push_back({is_64bit, machine, std::move(ld_so), std::move(cpuinfo), cfg});
  }
  return cfg;
}

}  // namespace cudnnup
