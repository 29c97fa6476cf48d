#include "loader/windows/which_windows.h"

#include "base/numbers.h"

#include <algorithm>
#include <regex>

#include "base/paths.h"
#include "base/strings.h"
#include "binfmt/dll_inspect.h"
#include "binfmt/pe.h"
#include "facts/cudnn_components.h"
#include "facts/cudnn_files.h"
#include "loader/cudnn_load_model.h"

namespace cudnnup {
namespace {

// "cudnn64_9.dll" -> 9; 0 when the name is not a cuDNN shim.
int shim_major(const std::string& name) {
  auto parsed = parse_cudnn_library_name(name);
  return parsed && parsed->windows && parsed->shim() ? parsed->major : 0;
}

// The release of the shim that loads, from its VERSIONINFO; only the major when it has none.
Version shim_release(const FileSystem& fs, const std::string& path, int major) {
  auto v = inspect_dll(fs, path).file_version;
  if (v && (*v)[0] == major) return Version{(*v)[0], (*v)[1], (*v)[2]};
  return Version{major};
}

// torch/version.py: cuda = '12.4' (None for CPU builds).
std::string torch_cuda_version(const FileSystem& fs, const std::string& torch_dir) {
  auto text = fs.read_file(torch_dir + "/version.py", 64 << 10);
  if (!text) return {};
  static const std::regex re(R"(cuda\s*(?::\s*[^=]+)?=\s*['"]([0-9.]+)['"])");
  std::smatch m;
  return std::regex_search(*text, m, re) ? m[1].str() : std::string();
}

std::string site_packages_of(const FileSystem& fs, const std::string& prefix) {
  for (const char* sub : {"Lib/site-packages", "lib/site-packages"}) {
    std::string sp = paths::join(prefix, sub);
    if (fs.is_dir(sp)) return sp;
  }
  return paths::join(prefix, "Lib/site-packages");
}

std::string same_dir_key(const std::string& path) { return ascii_lower(paths::parent(paths::normalize(path))); }

LoadProblem load_problem_of(DllLoadProblem p) {
  switch (p) {
    case DllLoadProblem::kNone: return LoadProblem::kNone;
    case DllLoadProblem::kEmpty: return LoadProblem::kEmpty;
    case DllLoadProblem::kNotPe: return LoadProblem::kNotBinary;
    case DllLoadProblem::kWrongMachine: return LoadProblem::kWrongMachine;
    case DllLoadProblem::kTruncated: return LoadProblem::kTruncated;
    case DllLoadProblem::kMissingDependency: return LoadProblem::kMissingDependency;
    case DllLoadProblem::kBrokenDependency: return LoadProblem::kBrokenDependency;
    case DllLoadProblem::kUnreadable: return LoadProblem::kUnreadable;
  }
  return LoadProblem::kNone;
}

Candidate candidate_of(const DllCandidate& c, const std::string& outcome, bool exists) {
  Candidate out;
  out.path = c.path;
  out.rule = c.kind;
  out.source = c.rule;
  out.outcome = outcome;
  out.exists = exists;
  out.problem = load_problem_of(c.problem);
  out.problem_detail = c.problem_detail;
  out.search_position = c.search_position;
  if (c.file_version) out.file_version = pe_version_string(*c.file_version);
  static const std::regex entry_re(R"(PATH entry (\d+))");
  std::smatch m;
  if (std::regex_search(c.rule, m, entry_re)) out.entry_index = checked_int(m[1].str(), 1).value_or(1) - 1;
  return out;
}

std::optional<Version> file_version_of(const Resolution& r) {
  for (const Candidate& c : r.candidates) {
    if (c.path == r.path && !c.file_version.empty()) return Version::parse(c.file_version);
  }
  return std::nullopt;
}

// The process set-up for --for APP.exe.
Status setup_executable(const FileSystem& fs, const WindowsWhichTarget& target, const std::string& name,
                        DllSearchContext& ctx, WhichReport& report) {
  std::string exe = paths::normalize(target.program);
  auto info = fs.stat(exe);
  if (!info) return make_error(ErrorCode::kNotFound, "no such file: " + target.program + " (give the path to a program .exe)", target.program);
  auto pe = parse_pe([&](uint64_t o, size_t n) { return fs.read_range(exe, o, n); }, info->size);
  if (!pe) return make_error(ErrorCode::kUsage, target.program + " is not a Windows program (PE image): " + pe.error().message, target.program);
  report.target = exe;
  ctx.application_dir = paths::parent(exe);
  ctx.machine = pe->machine;
  bool imported = std::any_of(pe->imports.begin(), pe->imports.end(), [&](const std::string& i) { return iequals(i, name); });
  report.how_requested = imported ? "import table of " + exe : "LoadLibrary(\"" + name + "\") called by " + exe;
  if (!imported) report.notes.push_back(name + " is not in the import table of " + exe + ": modelled as LoadLibrary(\"" + name + "\") from it");
  if (pe->machine != kPeMachineX64) {
    report.notes.push_back(exe + " is a " + pe_machine_name(pe->machine) + " program: it can load only " +
                           pe_machine_name(pe->machine) + " DLLs (cuDNN ships x64 only)");
  }
  return ok_status();
}

// The process set-up for --for python and --for torch.
Status setup_python(const FileSystem& fs, const Environment& env, const WindowsWhichTarget& target, const std::string& name,
                    DllSearchContext& ctx, WhichReport& report) {
  if (target.python_prefix.empty()) {
    return make_error(ErrorCode::kUsage, "no Python environment: pass --python C:\\path\\to\\python.exe (or activate the environment)");
  }
  std::string prefix = paths::normalize(target.python_prefix);
  std::vector<std::string> dirs;
  if (fs.is_dir(prefix + "/conda-meta")) {
    dirs = conda_python_dll_directories(prefix);
    report.notes.push_back("conda Python adds Library\\mingw-w64\\bin, Library\\usr\\bin, Library\\bin, Scripts and bin "
                           "of " + paths::to_native(prefix, true) + " with AddDllDirectory at start-up");
  }
  DllSearchContext py = python_extension_context(prefix, target.module_dir, {});
  if (target.kind == "torch") {
    std::string site = target.site_packages.empty() ? site_packages_of(fs, prefix) : paths::normalize(target.site_packages);
    std::string torch_dir = site + "/torch";
    if (!fs.is_dir(torch_dir)) {
      return make_error(ErrorCode::kNotFound, "no torch in " + paths::to_native(prefix, true) + " (looked for " +
                                                  paths::to_native(torch_dir, true) + ")", torch_dir);
    }
    std::string cuda = torch_cuda_version(fs, torch_dir);
    // The base prefix of a venv is in pyvenv.cfg ("home = C:\Python311"); conda envs are their own base.
    std::string base = prefix;
    if (auto cfg = fs.read_file(prefix + "/pyvenv.cfg", 64 << 10)) {
      static const std::regex re(R"(home\s*=\s*(.+))");
      std::smatch m;
      if (std::regex_search(*cfg, m, re)) base = paths::normalize(trim(m[1].str()));
    }
    for (const auto& d : torch_dll_directories(fs, env, torch_dir, prefix, base, cuda)) dirs.push_back(d);
    py.already_loaded = torch_preloaded_dlls(fs, torch_dir);
    if (py.dll_load_dir.empty()) py.dll_load_dir = torch_dir + "/lib";
    report.target = "import torch in " + paths::to_native(prefix, true);
    report.how_requested = "LoadLibraryExW(\"" + name + "\", LOAD_LIBRARY_SEARCH_DEFAULT_DIRS) by torch's DLLs";
    report.notes.push_back("torch adds with os.add_dll_directory: torch\\lib, Library\\bin" +
                           std::string(cuda.empty() ? "" : ", the CUDA " + cuda + " toolkit's bin when torch\\lib has no cudart64*.dll") +
                           "; then it preloads every torch\\lib\\*.dll (" + std::to_string(py.already_loaded.size()) + " found)");
  } else {
    report.target = "a Python >= 3.8 extension module in " + paths::to_native(prefix, true);
    report.how_requested = "LoadLibraryExW(\"" + name + "\", LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | DLL_LOAD_DIR)";
  }
  for (const auto& d : target.dll_dirs) dirs.push_back(paths::normalize(d));
  py.user_dirs = dirs;
  py.path = ctx.path;
  py.current_dir = ctx.current_dir;
  py.system32_dir = ctx.system32_dir;
  py.system16_dir = ctx.system16_dir;
  py.windows_dir = ctx.windows_dir;
  ctx = py;
  report.notes.push_back("Python 3.8+ loads extension modules' DLLs without PATH or the current directory; "
                         "os.add_dll_directory() or a copy next to the module is what counts");
  return ok_status();
}

// What each sub-library's imports of other cuDNN DLLs bind to: a module name is loaded once per
// process, so an import binds the copy that name resolved to (read from its import table).
void add_windows_bindings(const FileSystem& fs, int major, CudnnLoad& load) {
  for (CudnnSubLibrary& s : load.sub_libraries) {
    if (!s.resolution.found) continue;
    for (const std::string& import : inspect_dll(fs, s.resolution.path).imports) {
      auto name = parse_cudnn_library_name(import);
      if (!name || !name->windows || name->shim()) continue;
      auto d = std::find_if(load.sub_libraries.begin(), load.sub_libraries.end(),
                            [&](const CudnnSubLibrary& x) { return x.component == name->component; });
      if (d == load.sub_libraries.end() || !d->resolution.found) continue;
      CudnnBinding b;
      b.dependency = d->component;
      b.file = d->resolution.path;
      b.version = d->version;
      b.checked = cudnn_checks_version_of(major, s.component, d->component);
      b.from_other_copy = same_dir_key(d->resolution.path) != same_dir_key(s.resolution.path);
      b.how = "its import of " + import + " (one module of that name per process)";
      s.bindings.push_back(b);
    }
  }
  for (const CudnnSubLibrary& s : load.sub_libraries) {
    if (s.from_other_copy) load.mixed = true;
    for (const CudnnBinding& b : s.bindings) {
      if (b.from_other_copy) load.mixed = load.binding_mixed = true;
    }
    if (s.component == kCudnnGraphComponent) load.reported_version = s.version;
  }
}

// cuDNN's sub-libraries, looked up by module name with the same search (the loader's rule for a
// DLL's dependencies; also how LoadLibrary by name from the shim behaves), with the shim's
// folder searched first when the process uses DLL_LOAD_DIR-style loading. A module name is
// loaded once per process, so each sub-library's imports of another cuDNN DLL bind the copy
// that name resolved to.
CudnnLoad model_windows_sub_libraries(const FileSystem& fs, const DllSearchContext& ctx, const DllResolution& shim,
                                      const std::vector<std::string>& extra_places, int major, WhichReport& report) {
  CudnnLoad load;
  load.shim = report.resolution;
  std::string shim_dir = same_dir_key(shim.winner->path);
  DllSearchContext sub = ctx;
  if (sub.mode == DllSearchMode::kDefaultDirs) sub.dll_load_dir = paths::parent(shim.winner->path);
  std::vector<std::string> nowhere;
  const Version release = shim_release(fs, shim.winner->path, major);
  const std::vector<std::string> required = required_cudnn_sublibraries(release);
  for (const auto& component : known_cudnn_components(major)) {
    if (component == "cudnn") continue;
    std::string dll = cudnn_library_file_name(component, major, true);
    DllResolution r = resolve_dll(fs, dll, sub, extra_places);
    if (!r.winner && r.losers.empty()) {  // no copy anywhere
      // Only a required one is worth a note: the optional ones (ext) are absent from most sets.
      if (std::find(required.begin(), required.end(), component) != required.end()) nowhere.push_back(component);
      continue;
    }
    CudnnSubLibrary s;
    s.component = component;
    s.requested_by = shim.winner->path;
    s.names_tried = {dll};
    s.resolution = to_resolution(r, "LoadLibrary", shim.winner->path);
    if (r.winner && same_dir_key(r.winner->path) != shim_dir) s.from_other_copy = true;
    if (!r.winner) {
      report.problems.push_back(r.name + " is not found by this process (error 126 when cuDNN needs it): " + r.explanation);
    }
    s.version = file_version_of(s.resolution);
    if (s.version) s.version_source = "file version of " + paths::to_native(s.resolution.path, true);
    load.sub_libraries.push_back(std::move(s));
  }
  add_windows_bindings(fs, major, load);
  if (!nowhere.empty()) {
    report.notes.push_back("sub-libraries found nowhere: " + join(nowhere, ", ") + " (cuDNN fails with error 126 when it needs one)");
  }
  judge_cudnn_versions(load);
  if (load.mixed) {
    report.problems.push_back("cuDNN would mix DLLs from two folders; with different versions it fails "
                              "(CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH, or error 127 for a missing entry point)");
  }
  return load;
}

}  // namespace

std::string normalize_dll_name(const std::string& lib) {
  if (auto major = parse_cudnn_shorthand(lib)) return cudnn_library_file_name("cudnn", *major, true);
  if (!iends_with(lib, ".dll")) return lib + ".dll";
  return lib;
}

DllSearchContext windows_base_context(const Environment& env) {
  DllSearchContext ctx;
  std::string windir = env.windows_dir();
  ctx.windows_dir = windir;
  ctx.system32_dir = windir + "/System32";
  ctx.system16_dir = windir + "/System";
  ctx.current_dir = env.cwd;
  for (const auto& p : env.get_list("PATH")) ctx.path.push_back(p.empty() ? p : paths::normalize(p));
  return ctx;
}

Resolution to_resolution(const DllResolution& r, const std::string& kind, const std::string& requester) {
  Resolution out;
  out.name = r.name;
  out.kind = kind;
  out.requester = requester;
  out.found = r.loads;
  out.win32_error = r.win32_error;
  out.rule_detail = r.explanation;
  if (r.winner) {
    out.rule = r.winner->kind;
    if (r.loads) {
      out.path = out.canonical = r.winner->path;
    } else {
      out.failed_at = r.winner->path;
      out.error = "LoadLibrary fails with error " + std::to_string(r.win32_error) + ": " + r.explanation;
    }
    std::string outcome = r.loads ? "loads" : "picked, but fails: " + r.winner->problem_detail;
    out.candidates.push_back(candidate_of(*r.winner, outcome, r.loads));
  } else {
    out.error = r.explanation;
  }
  for (const auto& l : r.losers) {
    std::string outcome = "loses: " + l.why_not;
    if (l.problem != DllLoadProblem::kNone) outcome += " (and it would fail itself: " + l.problem_detail + ")";
    out.candidates.push_back(candidate_of(l, outcome, l.problem == DllLoadProblem::kNone));
  }
  for (const auto& d : r.search_dirs) out.search_dirs.push_back({d.dir, d.kind, d.rule});
  return out;
}

Result<WhichReport> which_windows(const FileSystem& fs, const Environment& env, const WindowsWhichTarget& target,
                                  const std::string& lib, const std::vector<std::string>& extra_places) {
  WhichReport report;
  report.windows = true;
  report.loader = "Windows LoadLibrary";
  report.library = normalize_dll_name(lib);
  report.target_kind = target.kind;
  DllSearchContext ctx = windows_base_context(env);
  const std::string& name = report.library;
  if (target.kind == "executable") {
    if (auto s = setup_executable(fs, target, name, ctx, report); !s) return s.error();
  } else if (target.kind == "python" || target.kind == "torch") {
    if (auto s = setup_python(fs, env, target, name, ctx, report); !s) return s.error();
  } else {
    report.target = "a program without cuDNN in its own folder";
    report.how_requested = "LoadLibrary(\"" + name + "\")";
    report.notes.push_back("a copy in the program's own folder would come first: give --for PROGRAM.exe to include it");
  }
  return which_windows_in(fs, ctx, std::move(report), extra_places);
}

WhichReport which_windows_in(const FileSystem& fs, const DllSearchContext& ctx, WhichReport report,
                             const std::vector<std::string>& extra_places) {
  report.windows = true;
  report.loader = "Windows LoadLibrary";
  const std::string& name = report.library;
  report.search_mode = ctx.mode == DllSearchMode::kStandard ? "standard (SafeDllSearchMode)" : "LOAD_LIBRARY_SEARCH_DEFAULT_DIRS";
  report.notes.push_back("KnownDLLs and DLL redirection are not read; cuDNN is never a KnownDLL");

  DllResolution shim = resolve_dll(fs, name, ctx, extra_places);
  report.resolution = to_resolution(shim, "LoadLibrary", report.target);
  int major = shim_major(name);
  if (major > 0 && shim.loads) {  // a shim that cannot load loads nothing else
    report.cudnn = model_windows_sub_libraries(fs, ctx, shim, extra_places, major, report);
    report.cudnn->shim_version = file_version_of(report.resolution);
    if (report.cudnn->shim_version) report.cudnn->version_source = "file version of " + paths::to_native(shim.winner->path, true);
    for (const auto& s : report.cudnn->sub_libraries) {
      if (s.resolution.found) report.loaded_cudnn_files.push_back(s.resolution.path);
    }
    report.loaded_cudnn_files.insert(report.loaded_cudnn_files.begin(), shim.winner->path);
  }
  if (!shim.loads) report.problems.push_back(shim.explanation);
  return report;
}

}  // namespace cudnnup
