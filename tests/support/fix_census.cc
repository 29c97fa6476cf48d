#include "support/fix_census.h"

#include <map>

#include "base/paths.h"
#include "diagnose/checks.h"
#include "diagnose/install_integrity.h"
#include "diagnose/jit_cache_check.h"
#include "diagnose/windows_checks.h"
#include "explain/error_catalogue.h"
#include "facts/cudnn_files.h"
#include "facts/install_fix.h"
#include "install/permission_hint.h"
#include "store/version_spec.h"
#include "support/memory_fs.h"

namespace cudnnup::testing {

const char* const kHostileLinuxRoot = "/opt/my cuda/it's $(x) `y` & 100% ^!\xc3\xbc";
const char* const kHostileWindowsRoot = "C:/a&b/%PATH%/it's ^! \xc3\xbc";

namespace {

const char* const kProgramFilesToolkit = "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4";

std::string os_name(bool windows) { return windows ? "windows" : "linux"; }

void add(FixCensus& c, const std::string& origin, bool windows, const std::vector<FixStep>& steps) {
  for (const auto& s : steps) c.entries.push_back({origin + " (" + os_name(windows) + ")", windows, s});
}

void add_findings(FixCensus& c, const std::vector<Finding>& findings, bool windows) {
  for (const auto& f : findings) {
    if (f.fix.empty()) continue;
    c.finding_ids.insert(f.id);
    add(c, "finding " + f.id, windows, f.fix);
  }
}

// --- the explain catalogue, every placeholder filled ------------------------------------------

std::string filled(std::string text) {
  static const std::map<std::string, std::string> vars = {
      {"major", "9"}, {"required", "9.1.0"}, {"release", "9.19.0"}, {"cuda_major", "12"}, {"lib", "libcudnn_ops.so.9"},
      {"component", "ops"}, {"lib_version", "9.1.0"}, {"platform", "linux"}, {"driver_cuda_version", "12.2"},
      {"framework", "pytorch"}, {"found", "8.9.7"}, {"status", "CUDNN_STATUS_NOT_INITIALIZED"},
      {"status_meaning", "not initialized"}, {"status_codes", "1001"}, {"installable_major", "9"},
      {"builds", "CUDA 11 and 12"}};
  for (const auto& [k, v] : vars) {
    for (size_t at = text.find("{" + k + "}"); at != std::string::npos; at = text.find("{" + k + "}")) text.replace(at, k.size() + 2, v);
  }
  return text;
}

FixStep filled(FixStep s) {
  for (auto& w : s.argv) w = filled(w);
  s.name = filled(s.name);
  s.value = filled(s.value);
  s.text = filled(s.text);
  s.note = filled(s.note);
  return s;
}

void add_catalogue(FixCensus& c) {
  const auto& cat = builtin_error_catalogue();
  if (!cat.ok()) return;
  for (const auto& e : cat->entries) {
    for (const auto& f : e.fixes) {
      for (bool windows : {false, true}) {
        for (const auto& cs : windows ? f.windows_steps : f.linux_steps) add(c, "catalogue " + e.id, windows, {filled(cs.step)});
      }
    }
  }
}

// --- doctor's checks on hostile machines -----------------------------------------------------

CudnnLibrary library(const std::string& dir, const std::string& component, bool windows) {
  CudnnLibrary l;
  l.component = component;
  l.path = dir + "/" + cudnn_library_file_name(component, 9, windows);
  l.real_path = l.path;
  l.major = 9;
  l.soname = cudnn_library_file_name(component, 9, windows);
  l.size = 4096;
  return l;
}

// cuDNN 9.19.0 for CUDA 13 merged into a toolkit at `root`, healthy, found through the library path.
CudnnCopy copy_at(const std::string& root, bool windows) {
  CudnnCopy c;
  c.root = root;
  c.lib_dir = root + (windows ? "/bin" : "/lib");
  c.include_dir = root + "/include";
  c.form = PackageForm::kToolkitMerged;
  c.found_via = {windows ? "PATH" : "LD_LIBRARY_PATH"};
  c.header_version = Version::parse("9.19.0").value();
  c.header_path = c.include_dir + "/cudnn_version.h";
  c.library_version = c.header_version;
  c.library_version_source = "cudnnGetVersion()";
  c.cuda_major = 13;
  c.cuda_major_source = "cudnnGetCudartVersion()";
  for (const char* comp : {"cudnn", "graph", "ops", "cnn", "adv", "heuristic", "engines_precompiled", "engines_runtime_compiled"}) {
    c.libraries.push_back(library(c.lib_dir, comp, windows));
  }
  c.probe.attempted = true;
  c.probe.loaded = true;
  c.probe.version = c.library_version;
  c.probe.version_number = 91900;
  c.probe.cudart_version = Version::parse("13.0").value();
  return c;
}

Report machine(bool windows, const std::string& toolkit_root, const std::string& toolkit_version) {
  Report r;
  r.os = os_name(windows);
  Toolkit tk;
  tk.root = toolkit_root;
  tk.version = Version::parse(toolkit_version).value();
  tk.nvcc = toolkit_root + (windows ? "/bin/nvcc.exe" : "/bin/nvcc");
  r.toolkits.push_back(tk);
  r.driver.present = true;
  r.driver.version_text = "580.95.05";
  r.driver.version = Version::parse("580.95.05").value();
  r.driver.cuda_version = Version::parse("13.0").value();
  r.driver.gpus.push_back(Gpu{0, "NVIDIA H200", Version::parse("9.0").value(), 0});
  return r;
}

Environment environment(bool windows) {
  Environment env;
  env.os = windows ? OsKind::kWindows : OsKind::kLinux;
  env.home = windows ? "C:/Users/me" : "/home/me";
  env.cwd = env.home;
  return env;
}

// One copy, broken one way, and what every copy check says about it.
void add_copy(FixCensus& c, CudnnCopy copy, bool windows, const std::string& toolkit_version = "13.0.2") {
  Report r = machine(windows, copy.root, toolkit_version);
  r.copies.push_back(copy);
  add_findings(c, check_copy(copy, r, builtin_rules(), environment(windows)), windows);
}

void add_broken_copies(FixCensus& c, const std::string& root, bool windows) {
  const CudnnCopy healthy = copy_at(root, windows);
  for (PackageForm form : {PackageForm::kToolkitMerged, PackageForm::kArchiveTree, PackageForm::kPipWheel}) {
    for (bool shares : {false, true}) {
      CudnnCopy damaged = healthy;
      damaged.form = form;
      damaged.shares_folder = shares;
      if (form == PackageForm::kPipWheel) damaged.package = "nvidia-cudnn-cu13 9.19.0.56";
      damaged.libraries[2].problems = {"empty file (0 bytes)"};
      add_copy(c, damaged, windows);
    }
  }
  CudnnCopy dangling = healthy;
  CudnnLibrary dev = library(healthy.lib_dir, "cudnn", windows);
  dev.path = healthy.lib_dir + (windows ? "/cudnn.lib" : "/libcudnn.so");
  dev.is_link = true;
  dev.dangling = true;
  dev.problems = {"dangling link: its target does not exist"};
  dangling.libraries.push_back(dev);
  add_copy(c, dangling, windows);
  CudnnCopy missing = healthy;
  missing.libraries.erase(missing.libraries.begin() + 2);
  add_copy(c, missing, windows);
  CudnnCopy mixed = healthy;
  mixed.libraries[3].version_from_name = Version::parse("9.14.0").value();
  add_copy(c, mixed, windows);
  CudnnCopy stale_header = healthy;
  stale_header.header_version = Version::parse("9.1.0").value();
  add_copy(c, stale_header, windows);
  CudnnCopy no_header = healthy;
  no_header.header_version = Version{};
  no_header.header_path.clear();
  add_copy(c, no_header, windows);
  CudnnCopy fails = healthy;
  fails.probe.loaded = false;
  fails.probe.failure = windows ? "LoadLibrary failed: error 126" : "libcudnn_graph.so.9: cannot open shared object file";
  add_copy(c, fails, windows);
  add_copy(c, healthy, windows, "12.4.1");  // a CUDA 13 build merged into a CUDA 12 toolkit
  CudnnCopy old_driver = healthy;
  Report r = machine(windows, healthy.root, "13.0.2");
  r.driver.version = Version::parse("470.0").value();
  r.driver.version_text = "470.0";
  r.driver.cuda_version = Version::parse("11.4").value();
  r.copies.push_back(old_driver);
  add_findings(c, check_copy(old_driver, r, builtin_rules(), environment(windows)), windows);
  add_findings(c, check_toolkits(r, builtin_rules(), environment(windows)), windows);
}

void add_machines(FixCensus& c) {
  for (bool windows : {false, true}) {
    std::string root = windows ? kHostileWindowsRoot : kHostileLinuxRoot;
    add_broken_copies(c, root, windows);
    if (windows) add_broken_copies(c, kProgramFilesToolkit, windows);
    Report none = machine(windows, root, "13.0.2");
    none.driver = DriverInfo{};
    add_findings(c, check_driver(none, builtin_rules(), environment(windows)), windows);
    add_findings(c, check_copies_together(none, environment(windows)), windows);  // no cuDNN at all
    Toolkit unknown;
    unknown.root = root;
    none.toolkits = {unknown};
    add_findings(c, check_toolkits(none, builtin_rules(), environment(windows)), windows);
  }
  // Linux: two majors in one folder.
  Report two = machine(false, kHostileLinuxRoot, "13.0.2");
  CudnnCopy nine = copy_at(kHostileLinuxRoot, false);
  CudnnCopy eight = nine;
  eight.header_version = eight.library_version = Version::parse("8.9.7").value();
  for (auto& l : eight.libraries) l.major = 8;
  two.copies = {nine, eight};
  add_findings(c, check_copies_together(two, environment(false)), false);
  // Windows: two copies on PATH, then one of them in System32.
  Environment win = environment(true);
  win.vars["SYSTEMROOT"] = "C:\\Windows";
  Report shadow = machine(true, kProgramFilesToolkit, "12.4.1");
  shadow.copies = {copy_at(kHostileWindowsRoot, true), copy_at(kProgramFilesToolkit, true)};
  add_findings(c, check_copies_together(shadow, win), true);
  CudnnCopy stray = copy_at("C:/Windows", true);
  stray.lib_dir = "C:/Windows/System32";
  for (auto& l : stray.libraries) l.path = stray.lib_dir + "/" + std::string(paths::basename(l.path));
  shadow.copies = {stray, copy_at(kHostileWindowsRoot, true)};
  add_findings(c, check_copies_together(shadow, win), true);
  // Windows: a terminal started before the toolkit's bin folder was put on PATH; setx's 1024.
  win.vars["PATH"] = "C:\\Windows\\System32";
  win.persistent_machine_path = paths::to_native(std::string(kProgramFilesToolkit) + "/bin", true);
  win.persistent_user_path = std::string(1024, 'y');
  Report stale = machine(true, kProgramFilesToolkit, "12.4.1");
  stale.copies = {copy_at(kProgramFilesToolkit, true)};
  add_findings(c, check_windows_paths(stale, win), true);
  // Installs whose files changed: a store version and a merge into a hostile toolkit.
  for (bool windows : {false, true}) {
    std::string root = windows ? kHostileWindowsRoot : kHostileLinuxRoot;
    IntegrityReport merge{{root + "/.cudnnup/manifest.json", root, "merge"}, "9.19.0.56+cuda13", 8, false,
                          {{root + "/lib/libcudnn_ops.so.9", FileDamage::kMissing, 100, 0}}, ""};
    IntegrityReport store{{root + "/store/versions/9.19.0.56+cuda13/cudnnup-manifest.json", root + "/store/versions/9.19.0.56+cuda13", "store"},
                          "9.19.0.56+cuda13", 8, false, {{root + "/x", FileDamage::kEmpty, 100, 0}}, ""};
    add_findings(c, integrity_findings({merge, store}, windows), windows);
  }
  // In hostile homes: a CUDA JIT cache with a file of another user (its deletion), and a ~/.nv of
  // another user with no cache in it (its chown).
  MemoryFileSystem fs;
  std::string home = std::string(kHostileLinuxRoot) + "/home";
  fs.add_dir(home + "/.nv/ComputeCache");
  fs.add_file(home + "/.nv/ComputeCache/index", "x");
  fs.set_other_owner(home + "/.nv/ComputeCache/index");
  fs.add_dir(home + "/other/.nv");
  fs.set_other_owner(home + "/other/.nv");
  Environment user = environment(false);
  user.effective_uid = 1000;
  for (const std::string& h : {home, home + "/other"}) {
    user.home = h;
    add_findings(c, check_jit_cache(fs, user), false);
  }
}

// --- errors' fixes -----------------------------------------------------------------------------

void add_errors(FixCensus& c) {
  for (bool windows : {false, true}) {
    std::string root = windows ? kHostileWindowsRoot : kHostileLinuxRoot;
    InstallOptions o;
    o.windows = windows;
    o.archive = root + "/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
    o.into = windows ? std::string(kProgramFilesToolkit) : root;
    add(c, "error: toolkit not writable", windows,
        with_permission_hint(make_error(ErrorCode::kPermission, "denied"), *o.into, o).fix);
    add(c, "error: elevated uninstall", windows, elevated_cudnnup_steps({"uninstall", "--into", paths::to_native(root, windows)}, windows));
    // What the app prints around its own commands (cmd_install, cmd_link, cmd_bench, cmd_check).
    std::string native = paths::to_native(root, windows);
    add(c, "app: undo lines and hints", windows,
        {fix::cudnnup({"uninstall", "--into", native}), fix::cudnnup({"link", "--undo", "--into", native}),
         fix::cudnnup({"link", "--into", native, "--move-aside"}), fix::cudnnup({"verify", "--copy", native + (windows ? "\\bin" : "/lib")}),
         fix::cudnnup({"use", "--local", "9.19.0.56+cuda13"}), fix::cudnnup({"install", "--locked"}), fix::cudnnup_eval({"env"}),
         fix::set_env("CUDNNUP_HOME", native), fix::unset_env("CUDNNUP_HOME")});
  }
  auto spec = VersionSpec::parse("9.19+cuda13");
  if (spec) add(c, "error: not installed", false, resolve_spec(*spec, {}).error().fix);
}

}  // namespace

const FixCensus& fix_census() {
  static const FixCensus census = [] {
    FixCensus c;
    add_catalogue(c);
    add_machines(c);
    add_errors(c);
    return c;
  }();
  return census;
}

}  // namespace cudnnup::testing
