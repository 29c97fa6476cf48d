#include "diagnose/checks.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/paths.h"
#include "base/strings.h"
#include "diagnose/copy_checks.h"
#include "diagnose/finding_text.h"
#include "diagnose/windows_checks.h"
#include "discover/discovery.h"
#include "facts/cudnn_files.h"
#include "facts/finding_ids.h"

namespace cudnnup {
namespace {

bool on_default_search_path(const CudnnCopy& c) {
  for (const auto& why : c.found_via) {
    if (why == "LD_LIBRARY_PATH" || why == "ld.so.cache" || why == "system library directory" || why == "PATH" ||
        why == kWindowsSystemFolderReason) {
      return true;
    }
  }
  return false;
}

// A copy with a file that can load: a link whose target exists, a library without problems.
bool has_loadable_file(const CudnnCopy& c) {
  return std::any_of(c.libraries.begin(), c.libraries.end(),
                     [](const CudnnLibrary& lib) { return !lib.dangling && lib.problems.empty(); });
}

// Of the copies of several majors in one folder, the one to move aside: one that cannot load
// when another can (the links of a removed major), else the lowest major.
const CudnnCopy& copy_to_set_aside(const std::vector<const CudnnCopy*>& copies) {
  const CudnnCopy* lowest = nullptr;
  const CudnnCopy* lowest_broken = nullptr;
  bool any_works = false;
  for (const auto* c : copies) {
    if (!lowest || c->name_major() < lowest->name_major()) lowest = c;
    if (has_loadable_file(*c)) any_works = true;
    else if (!lowest_broken || c->name_major() < lowest_broken->name_major()) lowest_broken = c;
  }
  return any_works && lowest_broken ? *lowest_broken : *lowest;
}

// Windows: copies of one major that a plain program could both reach (System32, the Windows
// folder, PATH), the first one winning; and a cuDNN DLL in a Windows system folder that contests
// nothing (yet): a stray hand copy all the same, moved aside, never fixed through PATH. On Linux
// the loader model decides shadowing (diagnose/load_checks.h, from `which`'s resolver).
std::vector<Finding> check_windows_copy_contests(const Report& report, const Environment& env) {
  std::vector<Finding> out;
  std::map<int, std::vector<const CudnnCopy*>> reachable;
  for (const auto& c : report.copies) {
    if (on_default_search_path(c)) reachable[c.major()].push_back(&c);
  }
  std::set<const CudnnCopy*> in_contest;
  for (const auto& [major, copies] : reachable) {
    if (copies.size() < 2) continue;
    const CudnnCopy* winner = copies.front();  // candidates are ordered as the loader searches
    auto f = make_finding(finding_id::kCudnnShadowed, Severity::kWarning, winner->lib_dir,
                          std::to_string(copies.size()) + " copies of cuDNN " + std::to_string(major) +
                              " are on the library search path; programs get " + copy_label(*winner));
    f.detail = "The others are shadowed. A framework built for another version, or a sub-library taken from the "
               "wrong copy, gives version errors. `cudnnup which` explains the choice.";
    for (const auto* c : copies) {
      std::string via;
      for (const auto& w : c->found_via) via += (via.empty() ? "" : ", ") + w;
      f.evidence.push_back((c == winner ? "wins: " : "shadowed: ") + copy_label(*c) + " (via " + via + ")");
    }
    auto stray = std::find_if(copies.begin(), copies.end(), [&](const CudnnCopy* c) { return is_windows_system_dir(env, c->lib_dir); });
    if (stray != copies.end()) {
      f.fix = move_cudnn_dlls_aside(**stray, env);
      in_contest.insert(*stray);
    } else {
      // Not `cudnnup env`: it needs a version selected in cudnnup's store, and these copies were
      // most often put on PATH by hand (the Wine procedure test ran into it).
      f.fix = {fix::step("Remove the unwanted copy's folder from PATH, or move the wanted one's folder before it"),
               fix::cudnnup({"which", cudnn_library_file_name("cudnn", major, true), "-v"},
                            "then, in a new terminal: which copy a program gets, and why")};
    }
    out.push_back(f);
  }
  for (const auto& c : report.copies) {
    if (!is_windows_system_dir(env, c.lib_dir) || in_contest.count(&c)) continue;
    auto f = make_finding(finding_id::kWindowsStraySystemDll, Severity::kWarning, c.lib_dir,
                          copy_label(c) + ": cuDNN DLLs in a Windows system folder, a stray hand copy");
    f.detail = "No installer puts cuDNN in System32, SysWOW64 or the Windows folder. Every program searches System32 "
               "and the Windows folder before PATH (Python 3.8+ extension modules search System32 too), so this copy "
               "wins over any cuDNN installed properly, now or later, and an old or partial set there breaks programs "
               "(error 126 or 127, version mismatches). SysWOW64 belongs to 32-bit programs, which cannot load cuDNN "
               "at all. Changing PATH cannot help: move the files aside.";
    for (const auto& lib : c.libraries) f.evidence.push_back(paths::to_native(lib.path, true));
    f.fix = move_cudnn_dlls_aside(c, env);
    out.push_back(f);
  }
  return out;
}

}  // namespace

std::vector<Finding> check_driver(const Report& report, const Rules&, const Environment& env) {
  std::vector<Finding> out;
  const DriverInfo& d = report.driver;
  if (!d.present) {
    auto f = make_finding(finding_id::kDriverNotFound, Severity::kWarning, "driver", "No NVIDIA driver found");
    f.detail = d.problem.empty() ? "GPU work (and `cudnnup verify`) cannot run on this machine. cuDNN files can still be checked."
                                 : d.problem;
    if (env.windows()) {
      f.fix = {fix::step("Install the NVIDIA display driver for your GPU from https://www.nvidia.com/Download/index.aspx, then reboot")};
    } else {
      f.fix = {fix::shell("lspci | grep -i nvidia", "is there an NVIDIA GPU?"),
               fix::step("Install the NVIDIA driver from your distribution (on Debian: sudo apt-get install nvidia-driver), then reboot"),
               fix::step("In a container: start it with the GPU exposed (docker run --gpus all IMAGE)")};
    }
    out.push_back(f);
    return out;
  }
  if (d.gpus.empty() && !d.cuda_version.known() && !d.problem.empty()) {
    auto f = make_finding(finding_id::kDriverUnusable, Severity::kError, "driver", "The NVIDIA driver is installed but does not answer");
    f.detail = d.problem;
    f.evidence = {d.libcuda_path, d.nvml_path};
    f.fix = {fix::run({"nvidia-smi"}, "shows whether the kernel module and the GPU are visible"),
             fix::step("If the driver was just upgraded, reboot so the kernel module matches the user-space libraries")};
    out.push_back(f);
  }
  return out;
}

std::vector<Finding> check_toolkits(const Report& report, const Rules& rules, const Environment& env) {
  std::vector<Finding> out;
  for (const auto& tk : report.toolkits) {
    if (!tk.version.known()) {
      auto f = make_finding(finding_id::kToolkitVersionUnknown, Severity::kWarning, tk.root,
                            "Cannot tell the version of the CUDA toolkit in " + tk.root);
      f.detail = "It has no version.json, version.txt or cuda.h with CUDA_VERSION.";
      f.fix = {tk.nvcc.empty() ? fix::step("Reinstall the toolkit") : fix::run({tk.nvcc, "--version"})};
      out.push_back(f);
      continue;
    }
    if (!report.driver.present || !report.driver.version.known()) continue;
    const DriverMinimum* min = rules.driver_minimum_for(tk.version);
    const MajorDriverMinimum* major_min = rules.major_driver_minimum_for(tk.version.major());
    Version needed = min ? (env.windows() ? min->windows_driver : min->linux_driver) : Version{};
    Version floor = major_min ? (env.windows() ? major_min->windows_driver : major_min->linux_driver) : Version{};
    if (floor.known() && report.driver.version < floor) {
      auto f = make_finding(finding_id::kToolkitDriverTooOld, Severity::kError, tk.root,
                            "Driver " + report.driver.version_text + " is too old for CUDA " + tk.version.str());
      f.detail = "CUDA " + std::to_string(tk.version.major()) + ".x needs driver " + floor.str() +
                 " or newer (minor-version compatibility). Programs built with this toolkit will fail with "
                 "\"CUDA driver version is insufficient for CUDA runtime version\".";
      f.evidence = {"driver " + report.driver.version_text, "toolkit " + tk.root + " " + tk.version.str(),
                    "rule: " + major_min->source};
      f.fix = {fix::step("Install NVIDIA driver " + (needed.known() ? needed.str() : floor.str()) + " or newer")};
      out.push_back(f);
    } else if (needed.known() && report.driver.version < needed) {
      auto f = make_finding(finding_id::kToolkitDriverBelowRelease, Severity::kInfo, tk.root,
                            "Driver " + report.driver.version_text + " is older than the one CUDA " + tk.version.str() +
                                " shipped with (" + needed.str() + ")");
      f.detail = "It runs under minor-version compatibility with a limited feature set (e.g. no PTX JIT of newer PTX).";
      f.evidence = {"rule: " + min->source};
      out.push_back(f);
    }
  }
  return out;
}

std::vector<Finding> check_copy(const CudnnCopy& copy, const Report& report, const Rules& rules,
                                const Environment& env) {
  const CopyCheckInput input = make_copy_check_input(copy, report, rules, env);
  std::vector<Finding> out;
  for (const auto& check : copy_checks()) {
    for (auto& f : check.run(input)) out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> check_copies_together(const Report& report, const Environment& env) {
  std::vector<Finding> out;
  if (report.copies.empty()) {
    auto f = make_finding(finding_id::kCudnnNotFound, Severity::kError, "cudnn", "No cuDNN found on this machine");
    f.detail = "Looked in " + std::to_string(report.searched_dirs.size()) +
               " directories (toolkits, library paths, Python and conda environments, cudnnup's store).";
    int cuda = report.toolkits.empty() || !report.toolkits.front().version.known() ? 12 : report.toolkits.front().version.major();
    f.fix = {install_newest_fix(9, cuda, env.windows()),
             fix::run({"pip", "install", "nvidia-cudnn-cu" + std::to_string(cuda)}, "or: the wheel Python frameworks find")};
    out.push_back(f);
    return out;
  }
  // Two majors in one directory: usually an old 8.x left behind by a manual copy, or the links of
  // a removed one. The majors are those of the file names (what programs ask the loader for).
  std::map<std::string, std::vector<const CudnnCopy*>> by_dir;
  for (const auto& c : report.copies) {
    if (c.name_major() > 0) by_dir[c.lib_dir].push_back(&c);
  }
  for (const auto& [dir, copies] : by_dir) {
    std::set<int> majors;
    for (const auto* c : copies) majors.insert(c->name_major());
    if (majors.size() < 2) continue;
    auto f = make_finding(finding_id::kCudnnMixedMajors, Severity::kWarning, dir,
                          "cuDNN " + std::to_string(*majors.rbegin()) + " and " + std::to_string(*majors.begin()) +
                              " files share " + dir);
    f.detail = "Leftovers of an earlier install. Frameworks pick the major they were built for, but headers and the "
               "libcudnn.so link can belong to only one of them.";
    for (const auto* c : copies) {
      for (const auto& lib : c->libraries) f.evidence.push_back(lib.path);
    }
    const CudnnCopy& aside = copy_to_set_aside(copies);
    const std::string major = std::to_string(aside.name_major());
    if (env.windows()) {
      std::string names;
      for (const auto& lib : aside.libraries) names += (names.empty() ? "" : ", ") + std::string(paths::basename(lib.path));
      f.fix = {fix::step("Move cuDNN " + major + "'s DLLs (" + names + ") into a folder that is not on PATH.")};
    } else {
      // Its own files, each by name: a glob could take a file of the copy that stays.
      std::vector<std::string> mv = {"mv", "-n", "--"};
      for (const auto& lib : aside.libraries) mv.push_back(lib.path);
      mv.push_back(dir + "/cudnn-old/");
      f.fix = {fix::step("Move cuDNN " + major + "'s files aside" + (has_loadable_file(aside) ? " (the older major):" : " (they do not load):")),
               fix::run({"mkdir", "-p", dir + "/cudnn-old"}), fix::run(mv)};
    }
    out.push_back(f);
  }
  if (env.windows()) {
    for (auto& f : check_windows_copy_contests(report, env)) out.push_back(std::move(f));
  }
  return out;
}

}  // namespace cudnnup
