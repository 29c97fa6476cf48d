#include "diagnose/windows_checks.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "base/paths.h"
#include "base/strings.h"
#include "facts/finding_ids.h"

namespace cudnnup {
namespace {

// Windows paths compare without case and without a trailing separator.
std::string key(const std::string& path) {
  return ascii_lower(paths::normalize(path));
}

std::set<std::string> path_keys(const std::vector<std::string>& entries) {
  std::set<std::string> out;
  for (const auto& e : entries) {
    if (!e.empty()) out.insert(key(e));
  }
  return out;
}

bool found_only_via_path(const CudnnCopy& c) {
  return std::all_of(c.found_via.begin(), c.found_via.end(), [](const std::string& w) { return w == "PATH"; });
}

// setx and old installers cut values at 1024 characters (nvm-windows #224, volta #1931).
constexpr size_t kSetxLimit = 1024;
// cmd.exe cannot handle command lines (and so `set PATH=...`) beyond 8191 characters.
constexpr size_t kCmdLineLimit = 8191;

}  // namespace

bool is_windows_system_dir(const Environment& env, const std::string& dir) {
  std::string d = ascii_lower(paths::normalize(dir)), r = ascii_lower(env.windows_dir());
  return d == r || d == r + "/system32" || d == r + "/syswow64";
}

std::vector<FixStep> move_cudnn_dlls_aside(const CudnnCopy& c, const Environment& env) {
  std::string dir = paths::to_native(c.lib_dir, true);
  std::vector<FixStep> out;
  std::string aside;
  if (is_windows_system_dir(env, c.lib_dir)) {
    // The system drive's root, searched by nothing; one folder per system folder, so the copies
    // in System32 and SysWOW64 (often both) never overwrite each other there.
    aside = dir.substr(0, 2) + "\\cudnn-aside\\" + std::string(paths::basename(c.lib_dir));
    out.push_back(fix::step("In a terminal run as administrator, move these DLLs out of " + dir +
                            " (a stray hand copy: no installer puts cuDNN there, and it is searched before PATH):"));
  } else {
    aside = dir + ".cudnn-moved-aside";  // beside the folder, outside every search
    out.push_back(fix::step("Move this copy's DLLs out of " + dir + " (in a terminal run as administrator where the "
                            "folder is under Program Files); nothing is deleted:"));
  }
  out.push_back(fix::run({"mkdir", aside}));
  for (const auto& lib : c.libraries) out.push_back(fix::run({"move", paths::to_native(lib.path, true), aside}));
  return out;
}

std::vector<Finding> check_windows_paths(const Report& report, const Environment& env) {
  std::vector<Finding> out;
  if (!env.windows()) return out;
  const std::string session_path = env.get("PATH").value_or("");
  const auto session = path_keys(paths::split_list(session_path, ';'));

  // 1. The registry's PATH changed after this terminal started (an installer added CUDA/cuDNN).
  if (env.persistent_machine_path || env.persistent_user_path) {
    std::vector<std::string> persistent = paths::split_list(env.persistent_machine_path.value_or(""), ';');
    auto user = paths::split_list(env.persistent_user_path.value_or(""), ';');
    persistent.insert(persistent.end(), user.begin(), user.end());
    std::vector<std::string> missing;
    for (const auto& dir : persistent) {
      if (dir.empty() || session.count(key(dir))) continue;
      std::string k = key(dir);
      bool relevant = k.find("cuda") != std::string::npos || k.find("cudnn") != std::string::npos;
      for (const auto& c : report.copies) relevant |= key(c.lib_dir) == k;
      if (relevant) missing.push_back(dir);
    }
    if (!missing.empty()) {
      Finding f;
      f.id = finding_id::kWindowsStaleSessionPath;
      f.severity = Severity::kWarning;
      f.subject = "PATH";
      f.title = "This terminal's PATH is older than the system's: it lacks " + std::to_string(missing.size()) +
                " CUDA/cuDNN director" + (missing.size() == 1 ? "y" : "ies") + " added since it started";
      f.detail = "Windows gives each program the PATH of the moment it started. Terminals, Jupyter, VS Code and "
                 "their children keep the old one until restarted, so `cudnn64_9.dll` is \"not found\" there.";
      for (const auto& m : missing) f.evidence.push_back(paths::to_native(m, true));
      f.fix = {fix::step("Close and reopen the terminal (and restart Jupyter / the IDE that started it)"),
               fix::step("or for this PowerShell session only:"),
               fix::shell_in(ShellDialect::kPowerShell,
                             "$env:PATH = [Environment]::GetEnvironmentVariable('PATH','Machine') + ';' + "
                             "[Environment]::GetEnvironmentVariable('PATH','User')")};
      out.push_back(f);
    }
    if (env.persistent_user_path && env.persistent_user_path->size() == kSetxLimit) {
      Finding f;
      f.id = finding_id::kWindowsPathTruncated;
      f.severity = Severity::kWarning;
      f.subject = "PATH";
      f.title = "The user PATH in the registry is exactly 1024 characters long: probably cut short by setx";
      f.detail = "setx and some installers truncate values at 1024 characters; the entries after the cut are lost.";
      f.fix = {fix::step("Edit the user PATH in System Properties > Environment Variables and restore the lost entries"),
               fix::step("Never use setx PATH %PATH%...; use the Environment Variables dialog, or let cudnnup add its entries:"),
               fix::cudnnup({"env", "--persist"})};
      out.push_back(f);
    }
  }
  if (session_path.size() > kCmdLineLimit) {
    Finding f;
    f.id = finding_id::kWindowsPathTooLong;
    f.severity = Severity::kWarning;
    f.subject = "PATH";
    f.title = "PATH is " + std::to_string(session_path.size()) + " characters long; cmd.exe handles at most 8191";
    f.detail = "Batch files and `set PATH=%PATH%;...` fail or truncate beyond that.";
    f.fix = {fix::step("Remove stale entries (old CUDA versions, uninstalled tools) from PATH")};
    out.push_back(f);
  }

  // 2. A copy reachable only through PATH: Python 3.8+ extension modules never look there.
  for (const auto& c : report.copies) {
    // System32 is among the default DLL directories Python 3.8+ searches: found there, not "PATH only".
    if (!found_only_via_path(c) || is_windows_system_dir(env, c.lib_dir)) continue;
    Finding f;
    f.id = finding_id::kWindowsPathOnlyCopy;
    f.severity = Severity::kWarning;
    f.subject = c.lib_dir;
    f.title = "cuDNN in " + paths::to_native(c.lib_dir, true) +
              " is found through PATH only, which Python 3.8+ ignores for extension modules";
    f.detail = "Plain programs find it; PyTorch, TensorFlow and ONNX Runtime imported in Python 3.8+ do not, unless "
               "the directory is added with os.add_dll_directory() or the DLLs sit next to the module "
               "(LoadLibraryExW with LOAD_LIBRARY_SEARCH_DEFAULT_DIRS). The load then fails with error 126.";
    f.evidence = {"found via PATH"};
    f.fix = {fix::run({"pip", "install", "nvidia-cudnn-cu12"}, "a copy Python frameworks find on their own"),
             fix::step("or in Python before importing the framework: os.add_dll_directory(r\"" + paths::to_native(c.lib_dir, true) +
                       "\")"),
             fix::cudnnup({"which", "--for", "python"}, "what a Python 3.8+ extension module loads, and why PATH loses")};
    out.push_back(f);
  }
  return out;
}

}  // namespace cudnnup
