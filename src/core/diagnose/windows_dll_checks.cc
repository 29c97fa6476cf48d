#include "diagnose/windows_dll_checks.h"

#include <algorithm>

#include "base/paths.h"
#include "base/strings.h"
#include "binfmt/dll_inspect.h"
#include "binfmt/pe.h"
#include "facts/cudnn_files.h"
#include "facts/finding_ids.h"

namespace cudnnup {
namespace {

Version copy_version(const CudnnCopy& c) { return c.library_version.known() ? c.library_version : c.header_version; }

std::string error_text(int code) {
  switch (code) {
    case 126: return "error 126 (ERROR_MOD_NOT_FOUND)";
    case 127: return "error 127 (ERROR_PROC_NOT_FOUND)";
    case 193: return "error 193 (ERROR_BAD_EXE_FORMAT)";
    default: return "error " + std::to_string(code);
  }
}

}  // namespace

std::vector<WhichReport> model_windows_loads(const FileSystem& fs, const Environment& env, const Report& report) {
  std::vector<WhichReport> out;
  if (!env.windows()) return out;
  std::vector<int> majors;
  std::vector<std::string> places;
  for (const auto& c : report.copies) {
    if (c.major() > 0 && std::find(majors.begin(), majors.end(), c.major()) == majors.end()) majors.push_back(c.major());
    places.push_back(c.lib_dir);
  }
  std::sort(majors.rbegin(), majors.rend());
  for (int m : majors) {
    WindowsWhichTarget plain;
    if (auto r = which_windows(fs, env, plain, std::to_string(m), places)) out.push_back(std::move(*r));
  }
  if (!majors.empty()) {
    for (const char* var : {"CONDA_PREFIX", "VIRTUAL_ENV"}) {
      auto prefix = env.get(var);
      if (!prefix || prefix->empty()) continue;
      WindowsWhichTarget py;
      py.kind = "python";
      py.python_prefix = *prefix;
      if (auto r = which_windows(fs, env, py, std::to_string(majors.front()), places)) out.push_back(std::move(*r));
      break;
    }
  }
  return out;
}

std::vector<Finding> check_windows_loads(const std::vector<WhichReport>& loads) {
  std::vector<Finding> out;
  for (const auto& w : loads) {
    const Resolution& r = w.resolution;
    const Candidate* picked = nullptr;
    for (const auto& c : r.candidates) {
      if (!r.failed_at.empty() && c.path == r.failed_at) picked = &c;
    }
    if (picked) {
      Finding f;
      f.id = finding_id::kWindowsDllLoadFails;
      f.severity = Severity::kError;
      f.subject = picked->path;
      f.title = r.name + " for " + w.target + " fails with " + error_text(r.win32_error) + ": " + paths::to_windows(picked->path) +
                " " + picked->problem_detail;
      f.detail = "Windows takes the first " + r.name + " in the search order (" + picked->source +
                 ") and does not try the next one when it cannot load it. ";
      if (r.win32_error == 193) {
        f.detail += "193 means the file is not a loadable 64-bit DLL: 0 bytes, cut short, or built for another "
                    "machine (a 32-bit DLL in a 64-bit process).";
      } else if (r.win32_error == 126) {
        f.detail += "126 means the DLL or one of the DLLs it imports was not found.";
      }
      f.evidence.push_back(r.rule_detail);
      for (const auto& c : r.candidates) {
        if (&c != picked && c.problem == LoadProblem::kNone && c.search_position > picked->search_position) {
          f.evidence.push_back("would load instead: " + paths::to_windows(c.path) + " (" + c.source + ")");
        }
      }
      f.fix = {fix::step("Replace or remove " + paths::to_windows(picked->path) + " (a whole x64 copy of the same cuDNN set belongs there)"),
               fix::cudnnup({"which", r.name, "-v"}, "every copy and why it lost")};
      out.push_back(f);
    }
    if (w.cudnn && w.cudnn->mixed) {
      Finding f;
      f.id = finding_id::kWindowsMixedCudnnDlls;
      f.severity = Severity::kWarning;
      f.subject = r.found ? r.path : r.name;
      f.title = "cuDNN for " + w.target + " would take sub-libraries from another folder than " +
                (r.found ? paths::to_windows(r.path) : r.name);
      f.detail = "Different cuDNN versions mixed in one process fail with CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH, "
                 "or with error 127 (ERROR_PROC_NOT_FOUND) when an entry point is missing.";
      for (const auto& s : w.cudnn->sub_libraries) {
        if (s.from_other_copy && s.resolution.found) {
          f.evidence.push_back(s.component + ": " + paths::to_windows(s.resolution.path) + " (" + s.resolution.candidates.front().source + ")");
        }
      }
      f.fix = {fix::step("Keep one cuDNN folder on PATH, or copy the whole cuDNN bin set next to the program")};
      out.push_back(f);
    }
  }
  return out;
}

namespace {

constexpr const char* kZlibwapi = "zlibwapi.dll";

// The copy's DLLs whose import (or delay-load) table names zlibwapi.dll: their file names.
std::vector<std::string> zlibwapi_importers(const FileSystem& fs, const CudnnCopy& c) {
  std::vector<std::string> out;
  for (const auto& lib : c.libraries) {
    DllInspection dll = inspect_dll(fs, lib.real_path.empty() ? lib.path : lib.real_path);
    auto names = [](const std::string& n) { return iequals(n, kZlibwapi); };
    if (std::any_of(dll.imports.begin(), dll.imports.end(), names) ||
        std::any_of(dll.delay_imports.begin(), dll.delay_imports.end(), names)) {
      out.emplace_back(paths::basename(lib.path));
    }
  }
  return out;
}

// The finding's text, in the copy's own file names: which of its DLLs import zlibwapi.dll, the
// shim of its own major, and the releases that need zlibwapi.dll (rules.json).
Finding zlibwapi_finding(const CudnnCopy& c, const std::vector<std::string>& importers, const ZlibwapiReleases& releases) {
  Finding f;
  f.subject = c.lib_dir;
  f.severity = Severity::kError;
  const Version v = copy_version(c);
  const std::string label = "cuDNN " + (v.known() ? v.str() : std::to_string(c.major()) + ".x");
  f.evidence.push_back(label + " in " + paths::to_windows(c.lib_dir));
  for (const auto& dll : importers) f.evidence.push_back(dll + " imports " + kZlibwapi + " (its import table)");
  f.detail = join(importers, ", ") + " import" + (importers.size() == 1 ? "s " : " ") + kZlibwapi +
             " (zlib's Windows API build), which Windows looks up by name with the same search as the DLL. Without a "
             "loadable 64-bit " + kZlibwapi + ", loading " + importers.front() + " fails with error 126 (\"Could not "
             "load library " + importers.front() + ". Error code 126\" / \"Could not locate zlibwapi.dll\"). On Windows " +
             releases.describe() + " import it; later releases link zlib in (" + releases.source + ").";
  std::string shim = cudnn_library_file_name("cudnn", c.major() > 0 ? c.major() : 9, true);
  f.fix = {fix::step("Put the 64-bit zlibwapi.dll (NVIDIA's cuDNN installation guide, \"Installing Zlib\": "
                     "zlib123dllx64.zip, dll_x64\\zlibwapi.dll) next to " + shim + " in " + paths::to_windows(c.lib_dir))};
  if (releases.linked_in_from.known() && (!v.known() || v < releases.linked_in_from)) {
    f.fix.push_back(fix::step("or move to cuDNN " + releases.linked_in_from.str() + " or newer, which links zlib in"));
  }
  return f;
}

}  // namespace

std::vector<Finding> check_zlibwapi(const FileSystem& fs, const Environment& env, const Report& report, const Rules& rules) {
  std::vector<Finding> out;
  if (!env.windows()) return out;
  for (const auto& c : report.copies) {
    // The import table decides, not the version: a release outside the known range that
    // imports zlibwapi.dll still needs it, one inside it that does not, does not.
    std::vector<std::string> importers = zlibwapi_importers(fs, c);
    if (importers.empty()) continue;
    // A DLL's imports are found by module name: the copy's own folder counts when the loading
    // process searches it (an app shipping cuDNN, torch's preload); otherwise the standard
    // search (System32, Windows, current dir, PATH).
    DllSearchContext ctx = windows_base_context(env);
    ctx.application_dir = c.lib_dir;
    DllResolution r = resolve_dll(fs, kZlibwapi, ctx);
    Finding f = zlibwapi_finding(c, importers, rules.windows_zlibwapi);
    const std::string label = f.evidence.front();
    if (!r.winner) {
      f.id = finding_id::kWindowsZlibwapiMissing;
      f.title = std::string(kZlibwapi) + ", which " + join(importers, ", ") + " of " + label + " import" +
                (importers.size() == 1 ? "s" : "") + ", is neither next to it nor on the DLL search path";
      f.evidence.push_back("searched: " + paths::to_windows(c.lib_dir) + ", System32, the Windows folder, the current folder and " +
                           std::to_string(ctx.path.size()) + " PATH entries");
      out.push_back(f);
    } else if (r.winner->problem == DllLoadProblem::kWrongMachine || r.winner->problem == DllLoadProblem::kEmpty ||
               r.winner->problem == DllLoadProblem::kNotPe || r.winner->problem == DllLoadProblem::kTruncated) {
      f.id = finding_id::kWindowsZlibwapiWrongMachine;
      f.title = "The " + std::string(kZlibwapi) + " that " + label + " would load cannot load: " + r.winner->problem_detail +
                " (error 193, ERROR_BAD_EXE_FORMAT)";
      f.evidence.push_back(paths::to_windows(r.winner->path) + " (" + r.winner->rule + ")");
      f.fix[0] = fix::step("Replace " + paths::to_windows(r.winner->path) + " with the 64-bit zlibwapi.dll (zlib123dllx64.zip, dll_x64)");
      out.push_back(f);
    }
  }
  return out;
}

}  // namespace cudnnup
