#include "core/doctor.h"

#include <algorithm>
#include <regex>

#include "core/checks.h"
#include "core/discovery.h"
#include "core/paths.h"
#include "core/python_envs.h"
#include "core/store_layout.h"
#include "core/windows_checks.h"

namespace cudnnup {
namespace {

std::string find_first(const FileSystem& fs, const std::vector<std::string>& dirs, const std::string& name) {
  for (const auto& d : dirs) {
    std::string p = d + "/" + name;
    if (fs.is_file(p)) return p;
  }
  return {};
}

// The driver's user-space libraries are found where the loader would look, then asked in a child.
DriverInfo discover_driver(const DoctorInputs& in, const std::vector<std::string>& loader_dirs) {
  const FileSystem& fs = in.fs;
  DriverInfo info;
  std::string libcuda, nvml;
  std::string kernel_version;
  if (in.env.windows()) {
    std::string sys = paths::normalize(in.env.get("SYSTEMROOT").value_or("C:/Windows")) + "/System32";
    libcuda = fs.is_file(sys + "/nvcuda.dll") ? sys + "/nvcuda.dll" : "";
    nvml = fs.is_file(sys + "/nvml.dll") ? sys + "/nvml.dll" : "";
  } else {
    std::vector<std::string> dirs;
    for (const auto& d : in.env.get_list("LD_LIBRARY_PATH")) {
      if (!d.empty()) dirs.push_back(d);
    }
    dirs.insert(dirs.end(), loader_dirs.begin(), loader_dirs.end());
    std::string triplet = in.env.arch == "aarch64" ? "aarch64-linux-gnu" : "x86_64-linux-gnu";
    for (const std::string& d : {std::string("/usr/local/nvidia/lib64"), "/usr/lib/" + triplet, "/lib/" + triplet,
                                std::string("/usr/lib64"), std::string("/usr/lib"), std::string("/usr/lib/wsl/lib")}) {
      dirs.push_back(d);
    }
    libcuda = find_first(fs, dirs, "libcuda.so.1");
    nvml = find_first(fs, dirs, "libnvidia-ml.so.1");
    // The kernel module's own report: present even when user-space libraries are missing.
    if (auto text = fs.read_file("/proc/driver/nvidia/version", 4096)) {
      static const std::regex re(R"(Kernel Module[^0-9]*(\d+\.\d+(\.\d+)?))");
      std::smatch m;
      if (std::regex_search(*text, m, re)) kernel_version = m[1].str();
    }
  }
  info.libcuda_path = libcuda;
  info.nvml_path = nvml;
  if (libcuda.empty() && nvml.empty()) {
    if (!kernel_version.empty()) {
      info.present = true;
      info.version_text = kernel_version;
      info.version = Version::parse(kernel_version).value_or(Version{});
      info.source = "/proc/driver/nvidia/version";
      info.problem = "The NVIDIA kernel module " + kernel_version +
                     " is loaded, but its user-space libraries (libcuda.so.1, libnvidia-ml.so.1) are not on the "
                     "library search path.";
      return info;
    }
    info.problem = in.env.windows()
                       ? "No NVIDIA driver: nvcuda.dll and nvml.dll are not in System32."
                       : "No NVIDIA driver: no libcuda.so.1 or libnvidia-ml.so.1 on the library search path and no "
                         "/proc/driver/nvidia/version.";
    return info;
  }
  DriverInfo probed = in.prober.probe_driver(libcuda, nvml);
  probed.present = true;
  probed.libcuda_path = libcuda;
  probed.nvml_path = nvml;
  if (probed.version_text.empty() && !kernel_version.empty()) {
    probed.version_text = kernel_version;
    probed.version = Version::parse(kernel_version).value_or(Version{});
    if (probed.source.empty()) probed.source = "/proc/driver/nvidia/version";
  }
  return probed;
}

void apply_probe(CudnnCopy& copy, const LibraryProbe& probe) {
  copy.probe = probe;
  if (probe.loaded && probe.version.known()) {
    copy.library_version = probe.version;
    copy.library_version_source = "cudnnGetVersion()";
  }
  if (probe.cudart_version.known()) {
    copy.cuda_major = probe.cudart_version.major();
    copy.cuda_major_source = "cudnnGetCudartVersion()";
  }
}

// The shim to load: the SONAME file if it is whole, else any whole shim file.
std::string shim_to_probe(const CudnnCopy& copy) {
  std::string fallback;
  for (const auto& lib : copy.libraries) {
    if (lib.component != "cudnn" || !lib.problems.empty()) continue;
    std::string base(paths::basename(lib.path));
    if (base.find(".so.") != std::string::npos && lib.version_from_name.parts.empty()) return lib.path;
    if (base.find(".dll") != std::string::npos) return lib.path;
    if (fallback.empty()) fallback = lib.path;
  }
  return fallback;
}

}  // namespace

Report run_doctor(const DoctorInputs& in) {
  Report report;
  report.os = in.env.windows() ? "windows" : "linux";
  report.rules_version = in.rules.data_version;

  std::vector<std::string> loader_dirs;  // filled from ld.so.conf/ld.so.cache (core/ld_so_*)
  report.driver = discover_driver(in, loader_dirs);
  report.toolkits = find_toolkits(in.fs, in.env, &report.scan_issues);
  auto python_envs = find_python_envs(in.fs, in.env, &report.scan_issues);

  DiscoveryInputs di{in.fs, in.env, report.toolkits, python_envs, loader_dirs,
                     StoreLayout::for_environment(in.env).root};
  auto candidates = candidate_library_dirs(di);
  report.copies = scan_cudnn_copies(di, candidates, &report.searched_dirs, &report.scan_issues);

  std::vector<std::string> shims;
  std::vector<CudnnCopy*> probed;
  for (auto& copy : report.copies) {
    std::string shim = shim_to_probe(copy);
    if (shim.empty()) continue;
    shims.push_back(shim);
    probed.push_back(&copy);
  }
  auto probes = in.prober.probe_cudnn_all(shims);
  for (size_t i = 0; i < probed.size(); ++i) apply_probe(*probed[i], probes[i]);

  auto add = [&](std::vector<Finding> more) {
    for (auto& f : more) report.findings.push_back(std::move(f));
  };
  add(check_driver(report, in.rules, in.env));
  add(check_toolkits(report, in.rules, in.env));
  for (const auto& copy : report.copies) add(check_copy(copy, report, in.rules, in.env));
  add(check_copies_together(report, in.env));
  add(check_windows_paths(report, in.env));
  std::stable_sort(report.findings.begin(), report.findings.end(),
                   [](const Finding& a, const Finding& b) { return int(a.severity) > int(b.severity); });
  return report;
}

}  // namespace cudnnup
