#include "diagnose/doctor.h"

#include <algorithm>
#include <functional>
#include <future>
#include <optional>
#include <regex>
#include <system_error>
#include <thread>

#include "diagnose/checks.h"
#include "diagnose/early_probes.h"
#include "diagnose/jit_cache_check.h"
#include "diagnose/load_checks.h"
#include "discover/discovery.h"
#include "binfmt/ld_so_cache.h"
#include "binfmt/ld_so_conf.h"
#include "base/paths.h"
#include "base/strings.h"
#include "child/mapped_files.h"
#include "facts/cudnn_files.h"
#include "facts/driver_libraries.h"
#include "discover/python_envs.h"
#include "shell/shell_env.h"
#include "store/store_layout.h"
#include "diagnose/windows_checks.h"
#include "diagnose/windows_dll_checks.h"
#include "diagnose/windows_path_reach.h"

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
// The driver, found by its libraries; when they exist, a child asks them (NVML's start-up can take
// a while on a GPU machine), started here and read by finish_driver while doctor works on.
struct PendingDriver {
  DriverInfo info;                     // the answer, unless `probe` is set
  std::function<DriverInfo()> probe;   // the child's answer
  std::string kernel_version;
};

PendingDriver start_driver(const DoctorInputs& in, const std::vector<std::string>& loader_dirs) {
  const FileSystem& fs = in.fs;
  PendingDriver p;
  DriverInfo& info = p.info;
  const DriverLibraryNames names = driver_library_names(in.env.windows());
  const std::vector<std::string> dirs = driver_library_dirs(in.env, loader_dirs);
  info.libcuda_path = find_first(fs, dirs, names.cuda);
  info.nvml_path = find_first(fs, dirs, names.nvml);
  // The kernel module's own report: present even when user-space libraries are missing.
  if (!in.env.windows()) p.kernel_version = kernel_module_version(fs);
  const std::string& kernel_version = p.kernel_version;
  if (info.libcuda_path.empty() && info.nvml_path.empty()) {
    if (!kernel_version.empty()) {
      info.present = true;
      info.version_text = kernel_version;
      info.version = Version::parse(kernel_version).value_or(Version{});
      info.source = "/proc/driver/nvidia/version";
      info.problem = "The NVIDIA kernel module " + kernel_version + " is loaded, but its user-space libraries (" +
                     names.cuda + ", " + names.nvml + ") are not on the library search path.";
      return p;
    }
    info.problem = in.env.windows()
                       ? "No NVIDIA driver: " + names.cuda + " and " + names.nvml + " are not in System32."
                       : "No NVIDIA driver: no " + names.cuda + " or " + names.nvml +
                             " on the library search path and no /proc/driver/nvidia/version.";
    return p;
  }
  p.probe = in.prober.start_driver_probe(info.libcuda_path, info.nvml_path);
  return p;
}

DriverInfo finish_driver(PendingDriver p) {
  if (!p.probe) return p.info;
  DriverInfo probed = p.probe();
  probed.present = true;
  probed.libcuda_path = p.info.libcuda_path;
  probed.nvml_path = p.info.nvml_path;
  if (probed.version_text.empty() && !p.kernel_version.empty()) {
    probed.version_text = p.kernel_version;
    probed.version = Version::parse(p.kernel_version).value_or(Version{});
    if (probed.source.empty()) probed.source = "/proc/driver/nvidia/version";
  }
  return probed;
}

// A probe speaks for the copy only when every cuDNN file it mapped is the copy's own
// (core/child/mapped_files.h); otherwise its numbers are another copy's and the copy keeps what
// its files say. The first foreign file is named, with the copy it belongs to.
void attribute_probe(LibraryProbe& probe, const CudnnCopy& copy, const Report& report) {
  const bool windows = report.os == "windows";
  std::vector<std::string> own_files;
  for (const auto& lib : copy.libraries) own_files.push_back(lib.real_path);
  auto foreign = foreign_cudnn_files(probe.mapped_files, copy.lib_dir, windows, own_files);
  if (!foreign.empty()) {
    std::vector<std::string> dirs;
    for (const auto& c : report.copies) dirs.push_back(c.lib_dir);
    const MappedCudnnFile file = attribute_cudnn_files({foreign[0].path}, dirs, windows).at(0);
    std::string answer;
    if (probe.version.known()) {
      answer = " (its answer, cuDNN " + probe.version.str() +
               (probe.cudart_version.known() ? " for CUDA " + std::to_string(probe.cudart_version.major()) : "") +
               ", is not this copy's)";
    }
    probe.isolated = false;
    probe.isolation_problem = "could not be probed in isolation: " + file.path + " came from " +
                              (file.copy >= 0 ? "the copy in " + file.directory
                                              : file.directory + ", which holds no copy doctor lists") +
                              answer;
  }
  if (probe.isolated) return;
  probe.version = Version{};
  probe.version_number = 0;
  probe.cudart_version = Version{};
  probe.max_device_version = 0;
}

void apply_probe(CudnnCopy& copy, LibraryProbe probe, const Report& report) {
  attribute_probe(probe, copy, report);
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
  // The parse the loader model makes too (read_ld_so_cache_shared keeps it): ~1 M instructions.
  if (auto cache = read_ld_so_cache_shared(fs)) {
    for (const auto& e : (*cache)->entries) {
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


std::vector<int> majors_found(const Report& report) {
  std::vector<int> majors;
  for (const auto& c : report.copies) {
    if (c.major() > 0 && std::find(majors.begin(), majors.end(), c.major()) == majors.end()) majors.push_back(c.major());
  }
  std::sort(majors.rbegin(), majors.rend());
  return majors;
}

bool is_framework(const std::string& name) {
  const auto& known = known_frameworks();
  return std::find(known.begin(), known.end(), name) != known.end();
}

// The loader model's answers under one environment.
struct LoadModel {
  std::vector<WhichReport> plain, for_program;
  std::vector<FrameworkReport> frameworks;
};

// A plain program's load of cuDNN 9, modelled on a second thread from doctor's start: it reads only
// the loader's own files (ld.so, its cache and configuration, the directories it searches), never
// the scan's results, and is the longest single piece of doctor's work. The scan decides whether it
// is used: only when the machine has cuDNN 9 copies (nearly every machine), else it is dropped.
//
// A promise, not std::async: the future of std::async joins its thread in get(), so doctor also
// waited for the thread's end (mimalloc cleaning up the thread's heap, ~1 M instructions;
// docs/benchmarks.md 2026-12-07, stop 40). The work runs beside doctor (DoctorInputs::run_beside),
// else on a thread of its own, else (no thread can be started) here; it refers to the inputs, so
// the model waits for its answer before it goes.
struct EarlyPlainModel {
  int major = 0;
  std::future<WhichReport> answer;
  std::jthread own_thread;  // without run_beside

  EarlyPlainModel() = default;
  EarlyPlainModel(EarlyPlainModel&&) = default;
  ~EarlyPlainModel() {
    if (answer.valid()) answer.wait();
  }
};

EarlyPlainModel start_plain_model(const DoctorInputs& in) {
  constexpr int kMajor = 9;
  EarlyPlainModel early;
  if (in.env.windows()) return early;
  std::string lib = cudnn_library_file_name("cudnn", kMajor, false);
  // Shared: the work is a std::function, which copies; a promise does not.
  auto promise = std::make_shared<std::promise<WhichReport>>();
  early.major = kMajor;
  early.answer = promise->get_future();
  auto work = [&in, lib, promise] {
    try {
      promise->set_value(which_plain_program(in.fs, in.env, lib));
    } catch (...) {
      promise->set_exception(std::current_exception());
    }
  };
  try {
    if (in.run_beside) {
      in.run_beside(work);
    } else {
      early.own_thread = std::jthread(work);
    }
  } catch (const std::system_error&) {
    work();
  }
  return early;
}

LoadModel model_loads(const DoctorInputs& in, const Environment& env, const std::vector<PythonEnv>& python_envs,
                      const std::vector<int>& majors, std::vector<ScanIssue>* issues, EarlyPlainModel* early = nullptr) {
  LoadModel m;
  bool for_framework = is_framework(in.for_target);
  for (int major : majors) {
    std::string lib = cudnn_library_file_name("cudnn", major, false);
    bool started = early && early->answer.valid() && early->major == major;
    m.plain.push_back(started ? early->answer.get() : which_plain_program(in.fs, env, lib));
    if (in.for_target.empty() || for_framework) continue;
    auto w = which_for_file(in.fs, env, in.for_target, lib);
    if (w) {
      m.for_program.push_back(std::move(*w));
    } else if (issues) {
      issues->push_back({in.for_target, w.error().message});
    }
  }
  m.frameworks = inspect_frameworks(in.fs, env, python_envs,
                                    for_framework ? std::vector<std::string>{in.for_target} : std::vector<std::string>{});
  return m;
}

// Every target of "What loads", paired with its answer without LD_LIBRARY_PATH / LD_PRELOAD.
std::vector<LoadTarget> load_targets(const DoctorOutcome& outcome, const LoadModel* without, const std::string& for_target) {
  std::vector<LoadTarget> out;
  for (size_t i = 0; i < outcome.plain_program.size(); ++i) {
    const WhichReport& w = outcome.plain_program[i];
    out.push_back({w.target, {"which", w.library}, &w, without ? &without->plain[i] : nullptr, true, true});
  }
  for (size_t i = 0; i < outcome.for_program.size(); ++i) {
    const WhichReport& w = outcome.for_program[i];
    const WhichReport* other = without && i < without->for_program.size() ? &without->for_program[i] : nullptr;
    out.push_back({for_target, {"which", w.library, "--for", for_target}, &w, other, false, true});
  }
  for (const auto& fw : outcome.frameworks) {
    if (!fw.load) continue;
    const WhichReport* other = nullptr;
    for (const auto& o : without ? without->frameworks : std::vector<FrameworkReport>{}) {
      if (o.framework == fw.framework && o.site_packages == fw.site_packages && o.load) other = &*o.load;
    }
    std::string interp = fw.interpreter.empty() ? "python3" : fw.interpreter;
    // The mix itself is framework.cudnn_rejected's to report.
    out.push_back({fw.framework + " " + fw.version + " in " + fw.env_prefix,
                   {"which", "--for", fw.framework, "--python", interp}, &*fw.load, other, false,
                   false});
  }
  return out;
}

// At most this many probes start before the scan is complete (the rest start together after it,
// ChildProber::kParallel at a time): the copies seen early are the ones a user's programs load.
constexpr size_t kEarlyProbes = 2;

// Where copies can be seen before any discovery: the ld.so.cache's directories that hold cuDNN, and
// LD_LIBRARY_PATH's absolute entries (candidate_library_dirs has the whole list, in ld.so's terms).
std::vector<CandidateDir> early_candidates(const Environment& env, const std::vector<std::string>& cache_dirs) {
  std::vector<CandidateDir> out;
  if (env.windows()) return out;
  for (const auto& d : env.get_list("LD_LIBRARY_PATH")) {
    if (paths::is_absolute(d)) out.push_back({d, "LD_LIBRARY_PATH"});
  }
  for (const auto& d : cache_dirs) out.push_back({d, "ld.so.cache"});
  return out;
}

std::vector<CandidateDir> toolkit_candidates(const std::vector<Toolkit>& toolkits) {
  std::vector<CandidateDir> out;
  for (const auto& tk : toolkits) {
    for (const char* sub : {"/lib64", "/lib", "/bin", "/bin/x64"}) out.push_back({tk.root + sub, "toolkit " + tk.root});
  }
  return out;
}

}  // namespace

Report run_doctor(const DoctorInputs& in) { return run_doctor_full(in).report; }

DoctorOutcome run_doctor_full(const DoctorInputs& in) {
  DoctorOutcome outcome;
  Report& report = outcome.report;
  report.os = in.env.windows() ? "windows" : "linux";

  // Children (the driver's probe, the first copies' probes) start as soon as what they load is
  // known and run while doctor discovers and models; their answers are read at the end.
  EarlyPlainModel early_plain = start_plain_model(in);
  LoaderDirs loader = loader_dirs(in.fs, in.env);
  PendingDriver driver = start_driver(in, loader.cache);
  EarlyProbes early(in.prober, kEarlyProbes);
  auto start_early = [&](const std::vector<CandidateDir>& dirs) {
    for (const auto& d : dirs) early.start_in_dir(in.fs, d.path, in.env.windows());
  };
  start_early(early_candidates(in.env, loader.cache));
  report.toolkits = find_toolkits(in.fs, in.env, &report.scan_issues);
  start_early(toolkit_candidates(report.toolkits));
  auto python_envs = find_python_envs(in.fs, in.env, &report.scan_issues);
  for (const auto& e : python_envs) outcome.python_envs.push_back(e.prefix);

  DiscoveryInputs di{in.fs, in.env, report.toolkits, python_envs, loader.cache,
                     StoreLayout::for_environment(in.env).root};
  auto candidates = candidate_library_dirs(di);
  for (const auto& d : loader.conf) candidates.push_back({d, "ld.so.conf"});
  report.copies = scan_cudnn_copies(di, candidates, &report.searched_dirs, &report.scan_issues,
                                    [&](const CudnnCopy& copy) { early.start_for({copy}); });

  // What is probed is decided by the complete list, exactly as without the early starts.
  std::vector<ProbeRequest> all, requests;  // every probe; those not started early
  std::vector<CudnnCopy*> probed;
  for (auto& copy : report.copies) {
    std::string shim = shim_to_probe(copy);
    if (shim.empty()) continue;
    probed.push_back(&copy);
    all.push_back({shim, copy.lib_dir});
    if (!early.has(all.back())) requests.push_back(all.back());
  }
  // The probes run in child processes; model the loaders meanwhile (they only read files):
  // under the user's environment, and without LD_LIBRARY_PATH/LD_PRELOAD to tell their effect.
  auto pending = in.prober.start_cudnn_probes(requests);
  std::optional<LoadModel> without;
  if (!in.env.windows()) {
    std::vector<int> majors = majors_found(report);
    if (majors.empty() && !in.for_target.empty()) majors = {9};
    LoadModel with = model_loads(in, in.env, python_envs, majors, &report.scan_issues, &early_plain);
    outcome.plain_program = std::move(with.plain);
    outcome.for_program = std::move(with.for_program);
    outcome.frameworks = std::move(with.frameworks);
    if (sets_loader_variables(in.env)) {
      without = model_loads(in, without_loader_variables(in.env), python_envs, majors, nullptr);
    }
  } else {
    outcome.windows_loads = model_windows_loads(in.fs, in.env, report);
    // The frameworks by Windows' rules (loader/windows/frameworks_windows.h); --for FRAMEWORK limits them.
    outcome.frameworks = inspect_frameworks(in.fs, in.env, python_envs,
                                            is_framework(in.for_target) ? std::vector<std::string>{in.for_target}
                                                                        : std::vector<std::string>{});
  }
  std::vector<LibraryProbe> later = pending();
  size_t next_later = 0;
  std::vector<LibraryProbe> probes;
  for (const auto& r : all) probes.push_back(early.has(r) ? early.take(r) : std::move(later.at(next_later++)));
  report.driver = finish_driver(std::move(driver));
  for (size_t i = 0; i < probed.size(); ++i) apply_probe(*probed[i], probes[i], report);

  auto add = [&](std::vector<Finding> more) {
    for (auto& f : more) report.findings.push_back(std::move(f));
  };
  const Rules& rules = in.rules.get();  // the rules given; they may have been parsed meanwhile
  report.rules_version = rules.data_version;
  add(check_driver(report, rules, in.env));
  add(check_toolkits(report, rules, in.env));
  for (const auto& copy : report.copies) add(check_copy(copy, report, rules, in.env));
  add(check_copies_together(report, in.env));
  add(check_windows_paths(report, in.env));
  add(check_installed_files(in, report));
  add(check_windows_loads(outcome.windows_loads));
  add(check_windows_path_reach(in.fs, in.env, report, outcome.windows_loads));
  add(check_zlibwapi(in.fs, in.env, report, rules));
  add(check_jit_cache(in.fs, in.env));

  add(check_loads(load_targets(outcome, without ? &*without : nullptr, in.for_target), report, in.fs, in.env));
  add(check_frameworks(outcome.frameworks, report, in.fs, in.env));
  std::stable_sort(report.findings.begin(), report.findings.end(),
                   [](const Finding& a, const Finding& b) { return int(a.severity) > int(b.severity); });
  return outcome;
}

}  // namespace cudnnup
