#include "explain/explain_checks.h"

#include <algorithm>
#include <functional>
#include <set>

#include "base/numbers.h"
#include "explain/check_helpers.h"
#include "explain/more_checks.h"
#include "base/paths.h"
#include "facts/cudnn_files.h"
#include "facts/finding_ids.h"
#include "facts/rules.h"

namespace cudnnup {
namespace {

using CheckFn = std::function<CheckResult(const MachineView&, const Variables&, const CheckParams&)>;
using namespace check_helpers;

// --- the checks -------------------------------------------------------------------------------

CheckResult cudnn_major_absent(const MachineView& m, const Variables& vars, const CheckParams&) {
  const Report& r = *m.report;
  int major = wanted_major(vars);
  auto copies = copies_of(r, major);
  if (copies.empty()) {
    return holds(major ? "No cuDNN " + std::to_string(major) + ".x on this machine; " + all_copies_sentence(r) + "."
                       : "No cuDNN on this machine (" + std::to_string(r.searched_dirs.size()) + " directories searched).");
  }
  return ruled_out("Installed: " + list_copies(copies) + ".");
}

CheckResult cudnn_off_search_path(const MachineView& m, const Variables& vars, const CheckParams&) {
  const Report& r = *m.report;
  int major = wanted_major(vars);
  auto copies = copies_of(r, major);
  if (copies.empty()) return ruled_out("There is no cuDNN " + (major ? std::to_string(major) + ".x " : std::string()) + "copy to be off the path.");
  std::vector<const CudnnCopy*> on, off;
  bool unknown_reason = false;
  for (const auto* c : copies) {
    if (copy_on_search_path(*c, m)) on.push_back(c);
    else off.push_back(c);
    if (c->found_via.empty()) unknown_reason = true;
  }
  if (r.os == "windows") {
    // Windows specifics the doctor already found: a terminal started before PATH was changed,
    // and Python >= 3.8 ignoring PATH for the DLLs of extension modules.
    if (const Finding* f = finding_for_major(r, finding_id::kWindowsStaleSessionPath, 0)) return holds(f->title + ".");
    static const std::set<std::string> python_frameworks = {"pytorch", "tensorflow", "onnxruntime", "paddle",
                                                            "ctranslate2", "jax"};
    if (python_frameworks.count(var(vars, "framework"))) {
      if (const Finding* f = finding_for_major(r, finding_id::kWindowsPathOnlyCopy, major)) {
        return holds(f->title + " (this message comes from " + var(vars, "framework") + ").");
      }
    }
  }
  if (!on.empty()) return ruled_out("On the search path: " + list_copies(on) + ".");
  if (unknown_reason && !m.loader) return unknown("Found " + list_copies(copies) + ", but not how a loader would reach it.");
  std::string where = m.loader ? "the search path of " + m.loader->consumer
                               : std::string("LD_LIBRARY_PATH, ld.so.cache, the system library directories or PATH");
  return holds("Installed but not in " + where + ": " + list_copies(off) + ".");
}

CheckResult cudnn_sublibrary_missing(const MachineView& m, const Variables& vars, const CheckParams&) {
  const Report& r = *m.report;
  std::string component = var(vars, "component");
  int major = wanted_major(vars);
  auto copies = copies_of(r, major);
  if (copies.empty()) return ruled_out("No cuDNN " + (major ? std::to_string(major) + ".x " : std::string()) + "copy is installed at all.");
  // Judge the copies a program would reach first; fall back to all of them.
  std::vector<const CudnnCopy*> judged;
  for (const auto* c : copies) {
    if (copy_on_search_path(*c, m)) judged.push_back(c);
  }
  if (judged.empty()) judged = copies;
  std::vector<std::string> lacking, complete;
  for (const auto* c : judged) {
    bool missing = finding_about(r, *c, finding_id::kCudnnSublibraryMissing) && component.empty();
    if (!component.empty() && component != "cudnn") {
      const CudnnLibrary* lib = find_component(*c, component);
      missing = lib == nullptr || lib->dangling;
      if (!missing && finding_about(r, *c, finding_id::kCudnnSublibraryMissing)) {
        for (const auto& f : r.findings) {
          if (f.id != finding_id::kCudnnSublibraryMissing || (f.subject != c->lib_dir && f.subject != c->root)) continue;
          for (const auto& e : f.evidence) {
            auto name = parse_cudnn_library_name(paths::basename(e));
            if (name && name->component == component) missing = true;
          }
        }
      }
    }
    if (missing) lacking.push_back(c->lib_dir);
    else complete.push_back(c->lib_dir);
  }
  if (component.empty() && lacking.empty()) return unknown("The message does not name the sub-library; " + list_copies(judged) + ".");
  if (!lacking.empty()) {
    return holds("Missing " + (component.empty() ? std::string("sub-libraries") : "the " + component + " library") + " in " +
                 lacking.front() + (lacking.size() > 1 ? " (and " + std::to_string(lacking.size() - 1) + " more)" : "") + ".");
  }
  return ruled_out("The " + component + " library is present in " + complete.front() + ".");
}

CheckResult cudnn_library_damaged(const MachineView& m, const Variables& vars, const CheckParams&) {
  const Report& r = *m.report;
  std::string component = var(vars, "component");
  auto copies = copies_of(r, wanted_major(vars));
  if (copies.empty()) return ruled_out("No matching cuDNN copy is installed.");
  for (const auto* c : copies) {
    for (const auto& lib : c->libraries) {
      if (!component.empty() && lib.component != component) continue;
      if (lib.dangling) return holds(lib.path + " is a link to a missing file.");
      if (!lib.problems.empty()) return holds(lib.path + ": " + lib.problems.front() + ".");
    }
  }
  for (std::string_view id : {finding_id::kCudnnLoadFailed, finding_id::kCudnnLoadCrashed}) {
    if (const Finding* f = finding_for_major(r, id, wanted_major(vars))) return holds(f->title + ".");
  }
  return ruled_out("The " + (component.empty() ? std::string("cuDNN") : component) + " library files look intact.");
}

CheckResult cudnn_mixed_versions(const MachineView& m, const Variables& vars, const CheckParams&) {
  const Report& r = *m.report;
  int major = wanted_major(vars);
  for (const auto& f : r.findings) {
    if (f.id == finding_id::kCudnnMixedSublibraryVersions || f.id == finding_id::kCudnnHeaderLibraryMismatch ||
        f.id == finding_id::kCudnnMixedMajors) {
      return holds(f.title + ".");
    }
  }
  auto copies = copies_of(r, major);
  std::vector<const CudnnCopy*> on;
  for (const auto* c : copies) {
    if (copy_on_search_path(*c, m)) on.push_back(c);
  }
  std::set<std::string> versions_on, versions_all;
  for (const auto* c : on) versions_on.insert(same_minor(copy_version(*c)));
  for (const auto* c : copies) versions_all.insert(same_minor(copy_version(*c)));
  if (versions_on.size() > 1) return holds("Copies of different versions are all on the search path: " + list_copies(on) + ".");
  if (versions_all.size() > 1) {
    return unknown("Copies of different versions exist (" + list_copies(copies) +
                   "); they mix only if a program reaches both, e.g. one through its RUNPATH and one through LD_LIBRARY_PATH.");
  }
  if (copies.empty()) return ruled_out("No matching cuDNN copy is installed.");
  // "9" and "9" are not the same version: a copy known only by its major cannot rule a mix out.
  bool versions_known = std::all_of(copies.begin(), copies.end(), [](const CudnnCopy* c) { return copy_version(*c).parts.size() >= 2; });
  if (copies.size() > 1 && !versions_known) {
    return unknown("The exact versions of " + list_copies(copies) + " are not known, so whether they differ is not known.");
  }
  return ruled_out("All cuDNN " + (major ? std::to_string(major) + ".x " : std::string()) + "files here are one version: " + list_copies(copies) + ".");
}

// With the parameter unless_newer_installed, a copy new enough elsewhere rules this out: the older
// one is then found first, which is the search-path cause, not a missing upgrade.
CheckResult cudnn_older_than_required(const MachineView& m, const Variables& vars, const CheckParams& params) {
  const Report& r = *m.report;
  Version required = var_version(vars, "required");
  Version found = var_version(vars, "found");
  if (!required.known()) return unknown("The message does not say which version the program was built against.");
  auto copies = copies_of(r, required.major());
  if (copies.empty()) return ruled_out("No cuDNN " + std::to_string(required.major()) + ".x is installed here; " + all_copies_sentence(r) + ".");
  if (params.count("unless_newer_installed")) {
    for (const auto* c : copies) {
      Version v = copy_version(*c);
      if (v.known() && !older_minor(v, required)) {
        return ruled_out(describe(*c) + " is new enough and installed; an older copy is found before it (the search-path cause).");
      }
    }
  }
  // The copy the message says was loaded, when it is here.
  if (found.known()) {
    for (const auto* c : copies) {
      Version v = copy_version(*c);
      if (v.known() && v.truncated(2) == found.truncated(2) && older_minor(v, required)) {
        return holds("The loaded version " + found.str() + " is here: " + describe(*c) + "; the program needs " +
                     same_minor(required) + " or newer.");
      }
    }
  }
  std::vector<const CudnnCopy*> older, ok;
  for (const auto* c : copies) {
    Version v = copy_version(*c);
    if (!v.known()) continue;
    (older_minor(v, required) ? older : ok).push_back(c);
  }
  if (!older.empty()) {
    bool reachable = std::any_of(older.begin(), older.end(), [&](const CudnnCopy* c) { return copy_on_search_path(*c, m); });
    return holds("Older than " + same_minor(required) + (reachable ? " and on the search path: " : ": ") + list_copies(older) + ".");
  }
  if (!ok.empty()) {
    return ruled_out("Every cuDNN " + std::to_string(required.major()) + ".x here is " + same_minor(required) +
                     " or newer (" + list_copies(ok) + "); the message may come from another environment or from before a change.");
  }
  return unknown("The versions of the cuDNN copies here are unknown.");
}

CheckResult cudnn_major_differs(const MachineView& m, const Variables& vars, const CheckParams&) {
  const Report& r = *m.report;
  Version required = var_version(vars, "required");
  int major = required.known() ? required.major() : var_int(vars, "major");
  if (!major) return unknown("The message does not name the cuDNN major the program needs.");
  if (r.copies.empty()) return ruled_out("No cuDNN at all is installed here.");
  auto same = copies_of(r, major);
  if (same.empty()) return holds("The program needs cuDNN " + std::to_string(major) + ".x; " + all_copies_sentence(r) + ".");
  return ruled_out("cuDNN " + std::to_string(major) + ".x is installed: " + list_copies(same) + ".");
}

CheckResult search_path_shadowing(const MachineView& m, const Variables& vars, const CheckParams&) {
  const Report& r = *m.report;
  Version required = var_version(vars, "required");
  std::vector<const CudnnCopy*> via_env;
  for (const auto& c : r.copies) {
    if (via_env_list(c)) via_env.push_back(&c);
  }
  if (via_env.empty()) return ruled_out("LD_LIBRARY_PATH/PATH lead to no cuDNN copy here.");
  for (const auto* c : via_env) {
    Version v = copy_version(*c);
    if (required.known() && v.known() && (v.major() != required.major() || older_minor(v, required))) {
      return holds(describe(*c) + " comes first and is not the " + same_minor(required) + " the program was built with.");
    }
  }
  if (const Finding* f = finding_for_major(r, finding_id::kCudnnShadowed, 0)) return holds(f->title + ".");
  for (const auto* c : via_env) {
    for (const auto& other : r.copies) {
      if (&other == c || other.major() != c->major()) continue;
      Version a = copy_version(*c), b = copy_version(other);
      if (a.known() && b.known() && a.truncated(3) != b.truncated(3)) {
        return holds(describe(*c) + " is ahead of " + describe(other) + ".");
      }
    }
  }
  return unknown("LD_LIBRARY_PATH/PATH lead to " + list_copies(via_env) + ", which is not in conflict with another copy here.");
}

// With the parameter built_for_missing_toolkit, the message names a CUDA library a cuDNN copy asks
// for: the mismatch is a copy built for that CUDA major on a machine whose CUDA is another one.
CheckResult cuda_library_of_a_foreign_build(const Report& r, int cuda) {
  if (!cuda) return unknown("The message does not name the CUDA major of the library.");
  std::vector<const CudnnCopy*> built_for;
  for (const auto& c : r.copies) {
    if (c.cuda_major == cuda) built_for.push_back(&c);
  }
  if (built_for.empty()) return ruled_out("No cuDNN here is built for CUDA " + std::to_string(cuda) + ".");
  std::string toolkits;
  for (const auto& tk : r.toolkits) {
    if (tk.version.major() == cuda) return ruled_out("CUDA " + tk.version.truncated(2).str() + " is installed at " + tk.root + ".");
    toolkits += (toolkits.empty() ? "" : ", ") + tk.version.truncated(2).str();
  }
  return holds(list_copies(built_for) + " is built for CUDA " + std::to_string(cuda) + ", but the CUDA here is " +
               (toolkits.empty() ? std::string("none") : toolkits) + ".");
}

CheckResult cudnn_cuda_major_mismatch(const MachineView& m, const Variables& vars, const CheckParams& params) {
  const Report& r = *m.report;
  int cuda = var_int(vars, "cuda_major");
  if (params.count("built_for_missing_toolkit")) return cuda_library_of_a_foreign_build(r, cuda);
  auto copies = copies_of(r, wanted_major(vars));
  if (copies.empty()) return ruled_out("No matching cuDNN copy is installed.");
  for (const auto& f : r.findings) {
    if (f.id == finding_id::kCudnnCudaMajorMismatch) return holds(f.title + ".");
  }
  if (!cuda) {
    return unknown("The message does not name the CUDA major; the copies here are built for CUDA " +
                   [&] {
                     std::string s;
                     for (const auto* c : copies) s += (s.empty() ? "" : ", ") + (c->cuda_major ? std::to_string(c->cuda_major) : std::string("?"));
                     return s;
                   }() + ".");
  }
  std::vector<const CudnnCopy*> match, other;
  for (const auto* c : copies) {
    if (c->cuda_major == cuda) match.push_back(c);
    else if (c->cuda_major) other.push_back(c);
  }
  if (!match.empty()) return ruled_out("Built for CUDA " + std::to_string(cuda) + ": " + list_copies(match) + ".");
  if (!other.empty()) return holds("The program needs CUDA " + std::to_string(cuda) + " builds; these are built for another CUDA major: " + list_copies(other) + ".");
  return unknown("The CUDA major of the copies here is unknown.");
}

CheckResult driver_absent(const MachineView& m, const Variables&, const CheckParams&) {
  const DriverInfo& d = m.report->driver;
  if (!d.present) return holds("No NVIDIA driver found" + (d.problem.empty() ? std::string(".") : ": " + d.problem));
  if (const Finding* f = finding_for_major(*m.report, finding_id::kDriverUnusable, 0)) return holds(f->title + ".");
  return ruled_out("NVIDIA driver " + (d.version_text.empty() ? d.version.str() : d.version_text) + " is present (" +
                   d.source + ").");
}

CheckResult no_gpu(const MachineView& m, const Variables&, const CheckParams&) {
  const DriverInfo& d = m.report->driver;
  if (!d.present) return holds("No NVIDIA driver, so no GPU is visible.");
  if (d.gpus.empty()) return holds("The driver is present but reports no GPU" + (d.problem.empty() ? std::string(".") : ": " + d.problem));
  std::string s;
  for (const auto& g : d.gpus) s += (s.empty() ? "" : ", ") + g.name;
  return ruled_out(std::to_string(d.gpus.size()) + " GPU(s) visible: " + s + ".");
}

CheckResult driver_too_old(const MachineView& m, const Variables& vars, const CheckParams&) {
  const Report& r = *m.report;
  const DriverInfo& d = r.driver;
  if (!d.present) return unknown("No NVIDIA driver found, so its age cannot be judged.");
  for (const auto& f : r.findings) {
    if (f.id == finding_id::kToolkitDriverTooOld || f.id == finding_id::kCudnnDriverTooOld) return holds(f.title + ".");
  }
  if (!d.cuda_version.known()) return unknown("The driver's CUDA version is unknown (" + d.version_text + ").");
  const std::string here = "The driver here (" + d.version_text + ") supports CUDA " + d.cuda_version.truncated(2).str();
  if (Version said = var_version(vars, "driver_cuda_version"); said.known()) {
    if (d.cuda_version.truncated(2) <= said.truncated(2)) return holds(here + ", as old as the message says.");
    return ruled_out(here + ", newer than the CUDA " + said.str() +
                     " in the message: the driver was upgraded since, or the message is from another machine or container.");
  }
  if (int cuda = var_int(vars, "cuda_major")) {
    if (d.cuda_version.major() < cuda) return holds(here + "; the program needs CUDA " + std::to_string(cuda) + ".");
    return ruled_out(here + ", enough for CUDA " + std::to_string(cuda) + ".");
  }
  Version newest;
  for (const auto& tk : r.toolkits) newest = std::max(newest, tk.version);
  if (newest.known() && d.cuda_version.truncated(2) < newest.truncated(2)) {
    return holds(here + ", older than the CUDA " + newest.truncated(2).str() + " toolkit installed here.");
  }
  for (const auto& c : r.copies) {
    if (c.cuda_major > d.cuda_version.major()) return holds(here + "; " + describe(c) + " is built for CUDA " + std::to_string(c.cuda_major) + ".");
  }
  return unknown(here + "; whether that is enough depends on the CUDA runtime the program bundles.");
}

// The lowest compute capability each cuDNN release supports is data (rules.json,
// cudnn_min_compute_capability, with its sources); the catalogue names no thresholds. The cuDNN
// judged is the one the message names (PyTorch's "cuDNN version 91900"), else the copies here.
struct CcFloor {
  Version cudnn;
  int cuda_major = 0;
  std::string what;  // "cuDNN 9.19.0" or a copy's description
  const ComputeCapabilityRule* rule = nullptr;
};

std::vector<CcFloor> cc_floors(const Report& r, const Variables& vars) {
  const Rules& rules = builtin_rules();
  std::vector<CcFloor> out;
  if (Version found = var_version(vars, "found"); found.known() && found.major() >= 7) {
    int cuda = var_int(vars, "cuda_major");
    out.push_back({found, cuda, "cuDNN " + found.str(), rules.compute_capability_rule_for(found, cuda)});
    return out;
  }
  for (const auto& c : r.copies) {
    Version v = copy_version(c);
    if (!v.known()) continue;
    out.push_back({v, c.cuda_major, describe(c), rules.compute_capability_rule_for(v, c.cuda_major)});
  }
  return out;
}

// The first URL of a rule's sources, for evidence that stays one line.
std::string first_source(const std::string& sources) { return sources.substr(0, sources.find_first_of(" ;")); }

std::string gpu_words(const Gpu& g) { return g.name + " (compute capability " + g.compute_capability.str() + ")"; }

CheckResult gpu_cc_below(const MachineView& m, const Variables& vars, const CheckParams&) {
  const Report& r = *m.report;
  if (const Finding* f = finding_for_major(r, finding_id::kCudnnGpuUnsupported, 0)) return holds(f->title + ".");
  if (r.driver.gpus.empty()) return unknown("No GPU information (no driver, or it was not asked).");
  std::vector<CcFloor> floors = cc_floors(r, vars);
  const CcFloor* strictest_here = nullptr;
  for (const auto& f : floors) {
    if (!f.rule) continue;
    if (!strictest_here || f.rule->min_cc > strictest_here->rule->min_cc) strictest_here = &f;
    for (const auto& g : r.driver.gpus) {
      if (!g.compute_capability.known() || g.compute_capability >= f.rule->min_cc) continue;
      return holds(gpu_words(g) + " is below " + f.rule->min_cc.str() + ", the lowest compute capability " + f.what +
                   " supports (" + first_source(f.rule->source) + ").");
    }
  }
  bool every_cc_known = std::all_of(r.driver.gpus.begin(), r.driver.gpus.end(),
                                    [](const Gpu& g) { return g.compute_capability.known(); });
  if (!every_cc_known) return unknown("The compute capability of a GPU here is not known.");
  if (strictest_here) {
    return ruled_out("Every GPU here has compute capability " + strictest_here->rule->min_cc.str() + " or higher, which " +
                     strictest_here->what + " needs (" + gpu_words(r.driver.gpus.front()) + ").");
  }
  // No cuDNN to judge: compare with the strictest floor of any release cudnnup knows.
  const ComputeCapabilityRule* strictest = nullptr;
  for (const auto& rule : builtin_rules().compute_capability) {
    if (!strictest || rule.min_cc > strictest->min_cc) strictest = &rule;
  }
  if (!strictest) return unknown("cudnnup knows no compute capability floor.");
  for (const auto& g : r.driver.gpus) {
    if (g.compute_capability.known() && g.compute_capability < strictest->min_cc) {
      return unknown(gpu_words(g) + " is below " + strictest->min_cc.str() + ", which cuDNN " + strictest->cudnn_first.str() +
                     " and newer require; whether that matters depends on the cuDNN the program loads.");
    }
  }
  return ruled_out("Every GPU here has compute capability " + strictest->min_cc.str() +
                   " or higher, enough for every cuDNN release cudnnup knows (" + gpu_words(r.driver.gpus.front()) + ").");
}

// Doctor looks for zlibwapi.dll on Windows (diagnose/windows_dll_checks.h: for every cuDNN DLL
// whose import table names it, next to the copy, then the standard DLL search), so its silence
// is an answer. Which releases import it is data (rules.json windows_zlibwapi).
CheckResult zlib_missing(const MachineView& m, const Variables&, const CheckParams&) {
  const Report& r = *m.report;
  const ZlibwapiReleases& releases = builtin_rules().windows_zlibwapi;
  if (r.os != "windows") {
    return ruled_out("Only Windows cuDNN DLLs import zlibwapi.dll (" + releases.describe() + "); this is " +
                     (r.os.empty() ? std::string("not Windows") : r.os) + ".");
  }
  for (const auto& f : r.findings) {
    if (f.id.find("zlib") != std::string::npos) return holds(f.title + ".");
  }
  std::vector<const CudnnCopy*> needing;
  for (const auto& c : r.copies) {
    if (releases.covers(copy_version(c))) needing.push_back(&c);
  }
  if (needing.empty()) {
    return ruled_out("No cuDNN here is of the releases that import zlibwapi.dll (" + releases.describe() + ").");
  }
  return ruled_out("doctor found no cuDNN DLL here that imports zlibwapi.dll without a loadable 64-bit copy of it (" +
                   list_copies(needing) + " checked by their import tables).");
}

CheckResult nvrtc_missing(const MachineView& m, const Variables&, const CheckParams&) {
  const Report& r = *m.report;
  for (const auto& f : r.findings) {
    if (f.id.find("nvrtc") != std::string::npos) return holds(f.title + ".");
  }
  if (r.toolkits.empty()) return holds("No CUDA toolkit here; libnvrtc.so (unversioned) ships with the toolkit's nvrtc package.");
  std::string s;
  for (const auto& tk : r.toolkits) s += (s.empty() ? "" : ", ") + tk.root;
  return unknown("CUDA toolkit(s) at " + s + " provide libnvrtc.so; whether the program's loader reaches their lib64 is not known.");
}

CheckResult cuda_library_absent(const MachineView& m, const Variables& vars, const CheckParams&) {
  const Report& r = *m.report;
  int cuda = var_int(vars, "cuda_major");
  std::string majors;
  for (const auto& tk : r.toolkits) majors += (majors.empty() ? "" : ", ") + tk.version.truncated(2).str() + " at " + tk.root;
  if (!cuda) return unknown(r.toolkits.empty() ? "No CUDA toolkit here." : "CUDA toolkits here: " + majors + ".");
  for (const auto& tk : r.toolkits) {
    if (tk.version.major() == cuda) return ruled_out("CUDA " + tk.version.truncated(2).str() + " is installed at " + tk.root + ".");
  }
  return holds("No CUDA " + std::to_string(cuda) + " toolkit here" + (majors.empty() ? std::string(".") : "; toolkits: " + majors + ".") +
               " (pip's nvidia-*-cu" + std::to_string(cuda) + " wheels are not counted).");
}

CheckResult windows_native_tf(const MachineView& m, const Variables&, const CheckParams&) {
  if (m.report->os == "windows") return unknown("This is native Windows: TensorFlow 2.11 and newer run on the CPU only here (check `pip show tensorflow`).");
  return ruled_out("Not native Windows.");
}

CheckResult gpu_memory(const MachineView& m, const Variables&, const CheckParams&) {
  const DriverInfo& d = m.report->driver;
  if (!d.present || d.gpus.empty()) return ruled_out("No GPU visible here, so GPU memory is not the limit.");
  std::string s;
  for (const auto& g : d.gpus) {
    s += (s.empty() ? "" : ", ") + g.name + (g.memory_bytes ? " " + std::to_string(g.memory_bytes >> 20) + " MiB" : std::string());
  }
  return unknown("Free GPU memory at the time of the error is not known (" + s + "); check nvidia-smi while the program runs.");
}

// Error 193 from a DLL of the wrong machine (or an empty / cut-short one): doctor judges every
// cuDNN DLL the search picks and the zlibwapi.dll cuDNN 8.3-9.1 would load (windows_dll_checks.h).
CheckResult dll_wrong_machine(const MachineView& m, const Variables&, const CheckParams&) {
  const Report& r = *m.report;
  if (r.os != "windows") return ruled_out("Error 193 is a Windows loader error; this is " + (r.os.empty() ? std::string("not Windows") : r.os) + ".");
  for (const auto& f : r.findings) {
    if (f.id == finding_id::kWindowsZlibwapiWrongMachine ||
        (f.id == finding_id::kWindowsDllLoadFails && f.title.find("error 193") != std::string::npos)) {
      return holds(f.title + ".");
    }
  }
  return unknown("The cuDNN DLLs and zlibwapi.dll the search picks load as x64 here; another DLL of the program may still be 32-bit.");
}

CheckResult not_checkable(const MachineView&, const Variables&, const CheckParams&) {
  return unknown("cudnnup cannot check this from outside the program.");
}

const std::map<std::string, CheckFn, std::less<>>& registry() {
  static const std::map<std::string, CheckFn, std::less<>> checks = {
      {"cudnn_major_absent", cudnn_major_absent},
      {"cudnn_off_search_path", cudnn_off_search_path},
      {"cudnn_sublibrary_missing", cudnn_sublibrary_missing},
      {"cudnn_library_damaged", cudnn_library_damaged},
      {"cudnn_mixed_versions", cudnn_mixed_versions},
      {"cudnn_older_than_required", cudnn_older_than_required},
      {"cudnn_major_differs", cudnn_major_differs},
      {"search_path_shadowing", search_path_shadowing},
      {"cudnn_cuda_major_mismatch", cudnn_cuda_major_mismatch},
      {"driver_absent", driver_absent},
      {"no_gpu", no_gpu},
      {"driver_too_old", driver_too_old},
      {"gpu_cc_below", gpu_cc_below},
      {"zlib_missing", zlib_missing},
      {"nvrtc_missing", nvrtc_missing},
      {"cuda_library_absent", cuda_library_absent},
      {"windows_native_tf", windows_native_tf},
      {"gpu_memory", gpu_memory},
      {"dll_wrong_machine", dll_wrong_machine},
      {"not_checkable", not_checkable},
      {"cudnn_newer_than_built", more_checks::cudnn_newer_than_built},
      {"cudnn_install_broken", more_checks::cudnn_install_broken},
      {"cuda_build_predates_gpu", more_checks::cuda_build_predates_gpu},
      {"cudnn_unversioned_symlink_missing", more_checks::cudnn_unversioned_symlink_missing},
      {"install_path_special_chars", more_checks::install_path_special_chars},
      {"cuda_jit_cache_unusable", more_checks::cuda_jit_cache_unusable},
  };
  return checks;
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kHolds: return "holds";
    case Verdict::kUnknown: return "unknown";
    case Verdict::kDoesNotHold: return "ruled out";
  }
  return "unknown";
}

bool copy_on_search_path(const CudnnCopy& copy, const MachineView& machine) {
  if (machine.loader) {
    for (const auto& dir : machine.loader->search_dirs) {
      if (dir == copy.lib_dir) return true;
    }
    return false;
  }
  for (const auto& why : copy.found_via) {
    if (why == "LD_LIBRARY_PATH" || why == "ld.so.cache" || why == "system library directory" || why == "PATH") return true;
  }
  return false;
}

bool is_known_check(std::string_view id) { return registry().find(id) != registry().end(); }

std::vector<std::string> known_checks() {
  std::vector<std::string> out;
  for (const auto& [id, fn] : registry()) out.push_back(id);
  return out;
}

CheckResult run_check(std::string_view id, const MachineView& machine, const Variables& vars, const CheckParams& params) {
  auto it = registry().find(id);
  if (it == registry().end()) return unknown("unknown check " + std::string(id));
  if (!machine.report) return unknown("No picture of this machine (the doctor did not run).");
  return it->second(machine, vars, params);
}

}  // namespace cudnnup
