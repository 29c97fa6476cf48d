#include "loader/windows/which_windows.h"

#include <algorithm>
#include <regex>

#include "base/paths.h"
#include "base/strings.h"
#include "binfmt/dll_inspect.h"
#include "binfmt/pe.h"
#include "facts/cudnn_components.h"
#include "facts/cudnn_files.h"

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

}  // namespace

std::string normalize_dll_name(const std::string& lib) {
  if (auto major = parse_cudnn_shorthand(lib)) return cudnn_library_file_name("cudnn", *major, true);
  if (!iends_with(lib, ".dll")) return lib + ".dll";
  return lib;
}

DllSearchContext windows_base_context(const Environment& env) {
  DllSearchContext ctx;
  std::string windir = paths::normalize(env.get("SYSTEMROOT").value_or(env.get("WINDIR").value_or("C:/Windows")));
  ctx.windows_dir = windir;
  ctx.system32_dir = windir + "/System32";
  ctx.system16_dir = windir + "/System";
  ctx.current_dir = env.cwd;
  for (const auto& p : env.get_list("PATH")) ctx.path.push_back(p.empty() ? p : paths::normalize(p));
  return ctx;
}

Result<WindowsWhichReport> which_windows(const FileSystem& fs, const Environment& env, const WindowsWhichTarget& target,
                                         const std::string& lib, const std::vector<std::string>& extra_places) {
  WindowsWhichReport report;
  report.library = normalize_dll_name(lib);
  report.target_kind = target.kind;
  DllSearchContext ctx = windows_base_context(env);
  const std::string& name = report.library;

  if (target.kind == "executable") {
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
  } else if (target.kind == "python" || target.kind == "torch") {
    if (target.python_prefix.empty()) {
      return make_error(ErrorCode::kUsage, "no Python environment: pass --python C:\\path\\to\\python.exe (or activate the environment)");
    }
    std::string prefix = paths::normalize(target.python_prefix);
    std::vector<std::string> dirs;
    bool conda = fs.is_dir(prefix + "/conda-meta");
    if (conda) {
      dirs = conda_python_dll_directories(prefix);
      report.notes.push_back("conda Python adds Library\\mingw-w64\\bin, Library\\usr\\bin, Library\\bin, Scripts and bin "
                             "of " + paths::to_native(prefix, true) + " with AddDllDirectory at start-up");
    }
    DllSearchContext py = python_extension_context(prefix, target.module_dir, {});
    if (target.kind == "torch") {
      std::string torch_dir = site_packages_of(fs, prefix) + "/torch";
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
        if (std::regex_search(*cfg, m, re)) {
          base = paths::normalize(trim(m[1].str()));
        }
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
  } else {
    report.target = "a program without cuDNN in its own folder";
    report.how_requested = "LoadLibrary(\"" + name + "\")";
    report.notes.push_back("a copy in the program's own folder would come first: give --for PROGRAM.exe to include it");
  }
  report.search_mode = ctx.mode == DllSearchMode::kStandard ? "standard (SafeDllSearchMode)"
                                                            : "LOAD_LIBRARY_SEARCH_DEFAULT_DIRS";
  report.notes.push_back("KnownDLLs and DLL redirection are not read; cuDNN is never a KnownDLL");

  report.resolution = resolve_dll(fs, name, ctx, extra_places);
  int major = shim_major(name);
  if (major > 0 && report.resolution.loads) {  // a shim that cannot load loads nothing else
    std::string shim_dir = same_dir_key(report.resolution.winner->path);
    // The sub-libraries are looked up by module name with the same search (the loader's rule for
    // a DLL's dependencies; also how LoadLibrary by name from the shim behaves), with the shim's
    // folder searched first when the process uses DLL_LOAD_DIR-style loading.
    DllSearchContext sub = ctx;
    if (sub.mode == DllSearchMode::kDefaultDirs) sub.dll_load_dir = paths::parent(report.resolution.winner->path);
    std::vector<std::string> nowhere;
    const Version release = shim_release(fs, report.resolution.winner->path, major);
    const std::vector<std::string> required = required_cudnn_sublibraries(release);
    for (const auto& component : known_cudnn_components(major)) {
      if (component == "cudnn") continue;
      WindowsSubLibrary s;
      s.component = component;
      s.resolution = resolve_dll(fs, cudnn_library_file_name(component, major, true), sub, extra_places);
      if (!s.resolution.winner && s.resolution.losers.empty()) {  // no copy anywhere
        // Only a required one is worth a note: the optional ones (ext) are absent from most sets.
        if (std::find(required.begin(), required.end(), component) != required.end()) nowhere.push_back(component);
        continue;
      }
      if (s.resolution.winner && same_dir_key(s.resolution.winner->path) != shim_dir) {
        s.from_other_copy = true;
        report.mixed = true;
      }
      if (!s.resolution.winner) {
        report.problems.push_back(s.resolution.name + " is not found by this process (error 126 when cuDNN needs it): " +
                                  s.resolution.explanation);
      }
      report.sub_libraries.push_back(std::move(s));
    }
    if (!nowhere.empty()) {
      report.notes.push_back("sub-libraries found nowhere: " + join(nowhere, ", ") +
                             " (cuDNN fails with error 126 when it needs one)");
    }
    if (report.mixed) {
      report.problems.push_back("cuDNN would mix DLLs from two folders; with different versions it fails "
                                "(CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH, or error 127 for a missing entry point)");
    }
  }
  if (!report.resolution.loads) report.problems.push_back(report.resolution.explanation);
  return report;
}

}  // namespace cudnnup
