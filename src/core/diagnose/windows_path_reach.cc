#include "diagnose/windows_path_reach.h"

#include <algorithm>
#include <optional>

#include "base/paths.h"
#include "base/strings.h"
#include "diagnose/finding_text.h"
#include "diagnose/windows_checks.h"
#include "facts/cudnn_files.h"
#include "facts/finding_ids.h"
#include "loader/windows/which_windows.h"
#include "shell/persistent_path.h"

namespace cudnnup {
namespace {

// Windows compares folders without case and without a trailing separator.
std::string dir_key(const std::string& d) { return ascii_lower(paths::normalize(d)); }

// Copies a user puts on PATH for programs: merged into a toolkit, an unpacked archive, NVIDIA's
// installer, a loose folder. Not a Python environment's (its frameworks find it without PATH),
// not the store's (`cudnnup env`, `exec` and `env --persist` put it on PATH), not a Windows
// system folder's (a stray copy: windows.stray_system_dll).
int program_copy_rank(const CudnnCopy& c, const Environment& env) {
  if (is_windows_system_dir(env, c.lib_dir)) return -1;
  switch (c.form) {
    case PackageForm::kToolkitMerged: return 0;
    case PackageForm::kInstaller: return 1;
    case PackageForm::kArchiveTree: return 2;
    case PackageForm::kUnknown: return 3;
    default: return -1;
  }
}

// The registry's PATH as Windows builds it for a new process: the machine PATH, then the user PATH.
struct RegistryPath {
  std::vector<std::string> entries;
  size_t machine_entries = 0;
};

std::optional<RegistryPath> registry_path(const Environment& env) {
  if (!env.persistent_machine_path && !env.persistent_user_path) return std::nullopt;
  RegistryPath out;
  for (const auto& e : paths::split_list(env.persistent_machine_path.value_or(""), ';')) {
    out.entries.push_back(e.empty() ? e : paths::normalize(e));
  }
  out.machine_entries = out.entries.size();
  for (const auto& e : paths::split_list(env.persistent_user_path.value_or(""), ';')) {
    out.entries.push_back(e.empty() ? e : paths::normalize(e));
  }
  return out;
}

// What a program started now gets: this machine's search with the registry's PATH.
DllResolution fresh_resolution(const FileSystem& fs, const Environment& env, const RegistryPath& rp, const std::string& name) {
  DllSearchContext ctx = windows_base_context(env);
  ctx.path = rp.entries;
  return resolve_dll(fs, name, ctx);
}

// The first entry of `entries` that names `dir`, or -1.
int entry_of(const std::vector<std::string>& entries, const std::string& dir) {
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i].empty() && dir_key(entries[i]) == dir_key(dir)) return int(i);
  }
  return -1;
}

const CudnnCopy* copy_in(const Report& report, const std::string& dir, int major) {
  for (const auto& c : report.copies) {
    if (dir_key(c.lib_dir) == dir_key(dir) && c.major() == major) return &c;
  }
  return nullptr;
}

// The fix that puts `copy`'s folder on the user PATH for every program started later: through
// `cudnnup env --persist --dir` (REG_EXPAND_SZ kept, no 1024-character cut, WM_SETTINGCHANGE),
// never setx.
std::vector<FixStep> persist_fix(const CudnnCopy& copy, const std::string& name) {
  if (copy.lib_dir.find_first_of(kNotInPathEntry) != std::string::npos) {  // env --persist refuses it
    return {fix::step("Move this copy to a folder whose name has no ';', '%' or '\"' (a PATH entry cannot hold "
                      "them), put that folder on your PATH, and open a new terminal")};
  }
  return {fix::cudnnup({"env", "--persist", "--dir", paths::to_windows(copy.lib_dir)},
                       "puts it first in your user PATH (registry) for every program started from now on"),
          fix::step("Then open a new terminal (and restart Jupyter or the IDE): running programs keep their old PATH"),
          fix::cudnnup({"which", name, "-v"}, "in the new terminal: which " + name + " a program gets, and why")};
}

Finding not_on_path(const std::string& name, const std::vector<const CudnnCopy*>& copies, const WhichReport& here,
                    const std::optional<DllResolution>& fresh, bool registry_known) {
  const CudnnCopy& first = *copies.front();
  const bool stale = fresh && fresh->loads;
  Finding f = make_finding(finding_id::kWindowsCudnnNotOnPath, Severity::kError, first.lib_dir,
                           stale ? "This terminal's programs find no " + name + ": its PATH is older than the " +
                                       "registry's, which has " + paths::to_windows(paths::parent(fresh->winner->path))
                                 : "No program finds " + name + ": the folder of " + copy_label(first) +
                                       " is not on PATH");
  f.detail = "A program that loads " + name + " by name gets it from its own folder, System32, the Windows folder, "
             "the current folder or a PATH folder (the standard DLL search); cuDNN's folder is none of them, so "
             "LoadLibrary fails with error 126 (ERROR_MOD_NOT_FOUND), and TensorFlow, ONNX Runtime or your own "
             "program say they cannot load " + name + ".";
  if (stale) {
    f.detail += " Windows gives each program the PATH of the moment it started: terminals, Jupyter and IDEs "
                "started before the change keep the old one.";
  }
  for (const auto* c : copies) f.evidence.push_back("not found: " + copy_label(*c) + " (" + paths::to_windows(c->lib_dir) + ")");
  f.evidence.push_back("searched " + std::to_string(here.resolution.search_dirs.size()) +
                       " folders: System32, the Windows folder, the current folder and this terminal's PATH");
  if (stale) {
    f.evidence.push_back("a new program finds " + paths::to_windows(fresh->winner->path) + " (" + fresh->winner->rule +
                         " of the registry's machine PATH then user PATH)");
    f.fix = {fix::step("Close and reopen the terminal (and restart Jupyter / the IDE that started it)"),
             fix::cudnnup({"which", name, "-v"}, "in the new terminal: which " + name + " a program gets, and why")};
    return f;
  }
  if (registry_known) f.evidence.push_back("the registry's machine and user PATH do not reach it either");
  f.fix = persist_fix(first, name);
  return f;
}

// A copy on the user PATH that loses, for every new program, to a copy on the machine PATH.
std::optional<Finding> user_path_shadowed(const Report& report, const Environment& env, const RegistryPath& rp,
                                          const DllResolution& fresh, int major) {
  if (!fresh.winner || fresh.winner->kind != SearchRule::kPathVariable) return std::nullopt;
  const std::string winner_dir = paths::parent(fresh.winner->path);
  int win_entry = entry_of(rp.entries, winner_dir);
  if (win_entry < 0 || size_t(win_entry) >= rp.machine_entries) return std::nullopt;
  for (const auto& l : fresh.losers) {
    const std::string dir = paths::parent(l.path);
    int entry = entry_of(rp.entries, dir);
    if (entry < 0 || size_t(entry) < rp.machine_entries) continue;
    const CudnnCopy* user_copy = copy_in(report, dir, major);
    const CudnnCopy* machine_copy = copy_in(report, winner_dir, major);
    std::string user_label = user_copy ? copy_label(*user_copy) : "cuDNN " + std::to_string(major) + " in " + paths::to_windows(dir);
    std::string machine_label = machine_copy ? copy_label(*machine_copy) : paths::to_windows(fresh.winner->path);
    Finding f = make_finding(finding_id::kWindowsUserPathShadowed, Severity::kWarning, dir,
                             user_label + " is on your user PATH, but the machine PATH's " + machine_label +
                                 " comes first: every new program loads that one");
    f.detail = "Windows builds a new program's PATH from the machine PATH followed by the user PATH, so a folder on the "
               "user PATH never beats one on the machine PATH. `cudnnup env --persist` writes the user PATH and cannot "
               "change that.";
    f.evidence = {"wins: " + paths::to_windows(fresh.winner->path) + " (machine PATH entry " + std::to_string(win_entry + 1) + ")",
                  "loses: " + paths::to_windows(l.path) + " (user PATH entry " + std::to_string(entry - int(rp.machine_entries) + 1) + ")"};
    f.fix = {fix::step("Remove " + paths::to_windows(winner_dir) + " from the machine PATH (System Properties > Environment "
                       "Variables > System variables, as administrator), or move its cuDNN DLLs aside:")};
    if (machine_copy) {
      for (auto& step : move_cudnn_dlls_aside(*machine_copy, env)) f.fix.push_back(std::move(step));
    }
    f.fix.push_back(fix::cudnnup({"which", cudnn_library_file_name("cudnn", major, true), "-v"},
                                 "in a new terminal: which copy a program gets, and why"));
    return f;
  }
  return std::nullopt;
}

}  // namespace

std::vector<Finding> check_windows_path_reach(const FileSystem& fs, const Environment& env, const Report& report,
                                              const std::vector<WhichReport>& loads) {
  std::vector<Finding> out;
  if (!env.windows()) return out;
  const std::optional<RegistryPath> rp = registry_path(env);
  for (const WhichReport& here : loads) {
    if (here.target_kind != "plain") continue;
    auto parsed = parse_cudnn_library_name(here.library);
    if (!parsed || !parsed->shim()) continue;
    const int major = parsed->major;
    std::optional<DllResolution> fresh;
    if (rp) fresh = fresh_resolution(fs, env, *rp, here.library);
    // A pick that fails to load is windows.dll_load_fails'; only "found nowhere" is a PATH matter.
    if (!here.resolution.found && here.resolution.failed_at.empty()) {
      std::vector<const CudnnCopy*> copies;
      for (const auto& c : report.copies) {
        if (c.major() == major && program_copy_rank(c, env) >= 0) copies.push_back(&c);
      }
      std::stable_sort(copies.begin(), copies.end(), [&](const CudnnCopy* a, const CudnnCopy* b) {
        return program_copy_rank(*a, env) < program_copy_rank(*b, env);
      });
      if (!copies.empty()) out.push_back(not_on_path(here.library, copies, here, fresh, rp.has_value()));
    }
    if (fresh) {
      if (auto f = user_path_shadowed(report, env, *rp, *fresh, major)) out.push_back(std::move(*f));
    }
  }
  return out;
}

}  // namespace cudnnup
