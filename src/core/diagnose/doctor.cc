#include "diagnose/doctor.h"

#include <algorithm>
#include <future>
#include <regex>

#include "diagnose/checks.h"
#include "discover/discovery.h"
#include "binfmt/ld_so_cache.h"
#include "binfmt/ld_so_conf.h"
#include "base/paths.h"
#include "facts/cudnn_files.h"
#include "facts/driver_libraries.h"
#include "discover/python_envs.h"
#include "store/store_layout.h"
#include "diagnose/windows_checks.h"
#include "diagnose/windows_dll_checks.h"
#include "facts/finding_ids.h"

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
  const DriverLibraryNames names = driver_library_names(in.env.windows());
  const std::vector<std::string> dirs = driver_library_dirs(in.env, loader_dirs);
  libcuda = find_first(fs, dirs, names.cuda);
  nvml = find_first(fs, dirs, names.nvml);
  if (!in.env.windows()) {
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
      info.problem = "The NVIDIA kernel module " + kernel_version + " is loaded, but its user-space libraries (" +
                     names.cuda + ", " + names.nvml + ") are not on the library search path.";
      return info;
    }
    info.problem = in.env.windows()
                       ? "No NVIDIA driver: " + names.cuda + " and " + names.nvml + " are not in System32."
                       : "No NVIDIA driver: no " + names.cuda + " or " + names.nvml +
                             " on the library search path and no /proc/driver/nvidia/version.";
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
    auto name = parse_cudnn_library_name(paths::basename(lib.path));
    if (name && name->soname) return lib.path;
    if (fallback.empty()) fallback = lib.path;
  }
  return fallback;
}

// Where the system loader looks: the ld.so.cache's directories holding cuDNN or driver libraries
// (in cache order: that is the order ld.so tries them), then ld.so.conf's directories, which the
// cache may not reflect yet when ldconfig was not re-run.
struct LoaderDirs {
  std::vector<std::string> cache;  // dirs with a libcudnn*/libcuda/libnvidia-ml entry in the cache
  std::vector<std::string> conf;   // every ld.so.conf directory
};

LoaderDirs loader_dirs(const FileSystem& fs, const Environment& env) {
  LoaderDirs out;
  if (env.windows()) return out;
  auto add = [](std::vector<std::string>& v, const std::string& d) {
    if (std::find(v.begin(), v.end(), d) == v.end()) v.push_back(d);
  };
  const DriverLibraryNames driver = driver_library_names(false);
  if (auto cache = read_ld_so_cache(fs)) {
    for (const auto& e : cache->entries) {
      if (parse_cudnn_library_name(e.name) || e.name == driver.cuda || e.name == driver.nvml) {
        add(out.cache, paths::parent(e.path));
      }
    }
  }
  for (const auto& d : read_ld_so_conf(fs).dirs) add(out.conf, d.dir);
  return out;
}

// Store versions and `install --into` merges whose files vanished or changed since install.
std::vector<Finding> check_installed_files(const DoctorInputs& in, const Report& report) {
  std::vector<std::string> toolkit_roots;
  for (const auto& tk : report.toolkits) toolkit_roots.push_back(tk.root);
  std::vector<IntegrityReport> checked;
  for (const auto& ref : find_install_manifests(in.fs, StoreLayout::for_environment(in.env).root, toolkit_roots)) {
    checked.push_back(check_install_integrity(in.fs, ref, in.hasher));
  }
  return integrity_findings(checked, in.env.windows());
}

}  // namespace

std::vector<Finding> check_frameworks(const std::vector<FrameworkReport>& frameworks) {
  std::vector<Finding> out;
  for (const auto& fw : frameworks) {
    if (!fw.passes.has_value() || *fw.passes) continue;
    Finding f;
    f.id = finding_id::kFrameworkCudnnRejected;
    f.severity = Severity::kError;
    f.subject = fw.site_packages;
    f.title = fw.framework + " " + fw.version + " in " + fw.env_prefix + ": " + fw.verdict;
    f.detail = fw.rule;
    if (fw.built_cudnn) f.evidence.push_back("built for cuDNN " + fw.built_cudnn->str() + " (" + fw.built_cudnn_source + ")");
    if (fw.load && fw.load->resolution.found) {
      f.evidence.push_back("would load " + fw.load->resolution.path + " (" + fw.load->resolution.rule_detail + ")");
    }
    if (fw.loaded_cudnn) f.evidence.push_back("that copy is cuDNN " + fw.loaded_cudnn->str());
    for (const auto& n : fw.notes) f.evidence.push_back(n);
    std::string interp = fw.interpreter.empty() ? "python3" : fw.interpreter;
    f.fix = {"cudnnup which --for " + fw.framework + " --python " + interp + "   # shows every candidate and why it lost",
             "Remove the directory that shadows the framework's own cuDNN from LD_LIBRARY_PATH, or reinstall the "
             "framework's pinned cuDNN: " + interp + " -m pip install --force-reinstall " + fw.framework};
    out.push_back(f);
  }
  return out;
}

Report run_doctor(const DoctorInputs& in) { return run_doctor_full(in).report; }

DoctorOutcome run_doctor_full(const DoctorInputs& in) {
  DoctorOutcome outcome;
  Report& report = outcome.report;
  report.os = in.env.windows() ? "windows" : "linux";
  report.rules_version = in.rules.data_version;

  LoaderDirs loader = loader_dirs(in.fs, in.env);
  report.driver = discover_driver(in, loader.cache);
  report.toolkits = find_toolkits(in.fs, in.env, &report.scan_issues);
  auto python_envs = find_python_envs(in.fs, in.env, &report.scan_issues);

  DiscoveryInputs di{in.fs, in.env, report.toolkits, python_envs, loader.cache,
                     StoreLayout::for_environment(in.env).root};
  auto candidates = candidate_library_dirs(di);
  for (const auto& d : loader.conf) candidates.push_back({d, "ld.so.conf"});
  report.copies = scan_cudnn_copies(di, candidates, &report.searched_dirs, &report.scan_issues);

  std::vector<std::string> shims;
  std::vector<CudnnCopy*> probed;
  for (auto& copy : report.copies) {
    std::string shim = shim_to_probe(copy);
    if (shim.empty()) continue;
    shims.push_back(shim);
    probed.push_back(&copy);
  }
  // The probes wait on child processes; model the loaders meanwhile (they only read files).
  auto pending = std::async(std::launch::async, [&] { return in.prober.probe_cudnn_all(shims); });
  if (!in.env.windows()) {
    std::vector<int> majors;
    for (const auto& c : report.copies) {
      if (c.major() > 0 && std::find(majors.begin(), majors.end(), c.major()) == majors.end()) majors.push_back(c.major());
    }
    std::sort(majors.rbegin(), majors.rend());
    for (int m : majors) outcome.plain_program.push_back(which_plain_program(in.fs, in.env, cudnn_library_file_name("cudnn", m, false)));
    outcome.frameworks = inspect_frameworks(in.fs, in.env, python_envs);
  } else {
    outcome.windows_loads = model_windows_loads(in.fs, in.env, report);
  }
  auto probes = pending.get();
  for (size_t i = 0; i < probed.size(); ++i) apply_probe(*probed[i], probes[i]);

  auto add = [&](std::vector<Finding> more) {
    for (auto& f : more) report.findings.push_back(std::move(f));
  };
  add(check_driver(report, in.rules, in.env));
  add(check_toolkits(report, in.rules, in.env));
  for (const auto& copy : report.copies) add(check_copy(copy, report, in.rules, in.env));
  add(check_copies_together(report, in.env));
  add(check_windows_paths(report, in.env));
  add(check_installed_files(in, report));
  add(check_windows_loads(outcome.windows_loads));
  add(check_zlibwapi(in.fs, in.env, report));

  add(check_frameworks(outcome.frameworks));
  std::stable_sort(report.findings.begin(), report.findings.end(),
                   [](const Finding& a, const Finding& b) { return int(a.severity) > int(b.severity); });
  return outcome;
}

}  // namespace cudnnup
