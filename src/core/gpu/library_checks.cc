// verify's library stage and its re-check after the GPU stages (gpu/verify_checks.h).
#include <algorithm>
#include <optional>

#include "base/paths.h"
#include "child/mapped_files.h"
#include "facts/cudnn_status.h"
#include "gpu/cudnn_symbols.h"
#include "gpu/verify_checks.h"

namespace cudnnup {

namespace {

constexpr const char* kTitle = "Library and sub-libraries load from the copy";

Finding library_finding(std::string id, std::string title, std::string detail, std::vector<std::string> evidence,
                     std::vector<FixStep> fix) {
  return Finding{std::move(id), Severity::kError, "", std::move(title), std::move(detail), std::move(evidence),
                 std::move(fix)};
}

std::string join(const std::vector<std::string>& items, const std::string& separator = ", ") {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : separator) + i;
  return out;
}

std::vector<FixStep> with_first(FixStep first, std::vector<FixStep> rest) {
  rest.insert(rest.begin(), std::move(first));
  return rest;
}

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

std::string name_of(const std::string& path) { return std::string(paths::basename(path)); }

std::string describe_load(const LibraryLoad& l) {
  std::string out = l.path;
  if (!l.real_path.empty() && l.real_path != l.path) out += " -> " + l.real_path;
  return out;
}

// The version a cuDNN file's name carries (libcudnn_cnn.so.9.14.0), else unknown.
Version version_in_name(const std::string& path) {
  auto name = parse_cudnn_library_name(paths::basename(path));
  return name ? name->version : Version{};
}

// Reinstall, then check again: verify of this very copy.
std::vector<FixStep> reinstall_fix(const LibrarySetFacts& f) {
  return {fix::step("Reinstall this copy (" + (f.version.known() ? "cuDNN " + f.version.str() + " from NVIDIA's archive"
                                                                : std::string("from where it came")) +
                    ", or with your package manager), then check it again:"),
          fix::cudnnup({"verify", "--copy", f.lib_dir})};
}

std::optional<StageResult> check_shim(const LibrarySetFacts& f) {
  if (!f.shim.present) {
    return stage_fail("library", kTitle, "no cuDNN library at " + f.shim.path,
                      library_finding("verify.library.missing", "cuDNN library not found",
                                   "The path given is not a cuDNN copy (or its lib directory).", {f.shim.path},
                                   {fix::step("Point --copy at a cuDNN lib directory or copy root."),
                                    fix::cudnnup({"doctor"}, "lists the copies on this machine")}));
  }
  if (f.shim.loaded) return std::nullopt;
  std::string why = explain_load_error(f.shim.error);
  std::vector<std::string> evidence = {describe_load(f.shim), f.shim.error};
  evidence.insert(evidence.end(), f.shim.elf_problems.begin(), f.shim.elf_problems.end());
  return stage_fail("library", kTitle, name_of(f.shim.path) + " does not load: " + why,
                    library_finding("verify.library.load_failed", name_of(f.shim.path) + " does not load: " + why,
                                 "No program can use this copy.", evidence, reinstall_fix(f)));
}

// A cuDNN file from another directory in the process: the loader brought in another copy, even in
// the loader environment verify controls (no LD_LIBRARY_PATH but the copy's, no LD_PRELOAD). The
// copy's own files are not at fault, whatever errors follow.
std::optional<StageResult> foreign_modules_stage(const std::string& stage, const std::string& title,
                                                 const std::string& lib_dir, const std::string& version_text,
                                                 const std::vector<std::string>& mapped, bool windows,
                                                 const std::string& when) {
  auto foreign = foreign_cudnn_files(mapped, lib_dir, windows);
  if (foreign.empty()) return std::nullopt;
  std::vector<std::string> others;
  for (const auto& dir : directories_of(foreign)) {
    std::string label = dir;
    for (const auto& file : foreign) {
      Version v = version_in_name(file.path);
      if (file.directory == dir && v.known()) {
        label += " (cuDNN " + v.str() + ")";
        break;
      }
    }
    others.push_back(label);
  }
  std::vector<std::string> evidence = {"copy under test: " + lib_dir + (version_text.empty() ? "" : " (" + version_text + ")")};
  for (const auto& file : foreign) evidence.push_back("mapped from another copy: " + file.path);
  evidence.push_back("checked " + when);
  return stage_fail(stage, title, "cuDNN files of another copy were loaded: " + join(others),
                    library_finding("verify.library.mixed_copies",
                                 "Another cuDNN copy (" + join(others) + ") was loaded into the process testing " +
                                     lib_dir,
                                 "verify runs with only the copy's directory as the library path and nothing "
                                 "preloaded, so something in the files or the system points the loader at the "
                                 "other copy: a DT_RPATH/DT_RUNPATH in one of the libraries, a missing file "
                                 "found through /etc/ld.so.conf, or a link into the other copy. Its results "
                                 "cannot be attributed to this copy; the copy's own files are not shown to be "
                                 "damaged.",
                                 evidence,
                                 {fix::step("Look for the path of the other copy in the libraries' search paths "
                                            "(readelf -d FILE | grep -i path, for each file of " + lib_dir + ")."),
                                  fix::step("cudnnup's which, given --for and a program, shows what that program would load.")}));
}

std::optional<StageResult> check_sublibraries(const LibrarySetFacts& f) {
  std::vector<std::string> missing, broken, foreign, evidence;
  for (const auto& l : f.sublibraries) {
    if (!l.present) {
      missing.push_back(name_of(l.path));
      continue;
    }
    if (l.loaded) continue;
    broken.push_back(name_of(l.path) + " (" + explain_load_error(l.error) + ")");
    evidence.push_back(describe_load(l) + ": " + l.error);
    for (const auto& p : l.elf_problems) evidence.push_back(name_of(l.path) + ": " + p);
    // A sub-library that needs symbols its siblings lack was built for another release: the
    // loader says "undefined symbol: ..., version libcudnn_graph.so.9".
    if (contains(l.error, "undefined symbol") && contains(l.error, "version libcudnn")) foreign.push_back(name_of(l.path));
  }
  if (!foreign.empty()) {
    std::string list = join(foreign);
    return stage_fail("library", kTitle, "sub-library from another cuDNN release: " + list,
                      library_finding("verify.library.sublibrary_version_mismatch",
                                   "cuDNN sub-libraries come from different versions: " + list,
                                   list + " needs symbols that the other sub-libraries of this copy (" +
                                       (f.version.known() ? f.version.str() : std::string("?")) +
                                       ") do not have, so it belongs to another release. Programs fail with "
                                       "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED or abort.",
                                   evidence,
                                   with_first(fix::step("Replace " + list + " with the file from the same release as the rest of " +
                                                        f.lib_dir + ", or:"),
                                              reinstall_fix(f))));
  }
  if (!broken.empty()) {
    std::string list = join(broken);
    return stage_fail("library", kTitle, "sub-library does not load: " + list,
                      library_finding("verify.library.sublibrary_broken", "cuDNN sub-library does not load: " + list,
                                   "cuDNN loads its sub-libraries on first use; programs fail with "
                                   "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED or abort when they reach it.",
                                   evidence, reinstall_fix(f)));
  }
  if (missing.empty()) return std::nullopt;
  std::string list = join(missing);
  return stage_fail("library", kTitle, "sub-library missing from " + f.lib_dir + ": " + list,
                    library_finding("verify.library.sublibrary_missing", "cuDNN sub-library missing: " + list,
                                 "cuDNN loads its sub-libraries by name from the shim's directory; without them "
                                 "it falls back to whatever the loader finds elsewhere, or fails.",
                                 {f.lib_dir}, reinstall_fix(f)));
}

std::optional<StageResult> check_symbols(const LibrarySetFacts& f) {
  if (f.missing_symbols.empty()) return std::nullopt;
  std::vector<std::string> evidence;
  for (const auto& group : required_cudnn_symbols(f.major)) {
    std::vector<std::string> lacking;
    for (const auto& s : group.symbols) {
      for (const auto& m : f.missing_symbols) {
        if (m == s) lacking.push_back(s);
      }
    }
    if (!lacking.empty()) evidence.push_back(group.name + " (" + group.used_by + "): " + join(lacking));
  }
  return stage_fail("library", kTitle,
                    name_of(f.shim.path) + " lacks " + std::to_string(f.missing_symbols.size()) +
                        " cuDNN API functions: " + join(f.missing_symbols),
                    library_finding("verify.library.symbols_missing",
                                 "cuDNN library lacks API functions: " + join(f.missing_symbols),
                                 "The shim loads, but it is not a complete cuDNN " + std::to_string(f.major) +
                                     " library (a stub, a damaged file or a cut-down build); programs that call "
                                     "the missing functions fail.",
                                 evidence, reinstall_fix(f)));
}

// The file names first (they name the file and its version), then the version checks.
std::optional<StageResult> check_versions_of_parts(const LibrarySetFacts& f, const std::vector<std::string>& evidence) {
  for (const auto& l : f.sublibraries) {
    Version v = version_in_name(l.real_path.empty() ? l.path : l.real_path);
    if (!f.version.known() || !v.known() || v.truncated(3) == f.version.truncated(3)) continue;
    return stage_fail("library", kTitle, name_of(l.path) + " is " + v.str() + " but the shim is " + f.version.str(),
                      library_finding("verify.library.sublibrary_version_mismatch",
                                   "cuDNN sub-libraries come from different versions",
                                   "A sub-library's file name says another release than the shim reports.",
                                   {describe_load(l), "shim cudnnGetVersion(): " + f.version.str()},
                                   reinstall_fix(f)));
  }
  for (const auto& [name, status] : f.version_checks) {
    if (status == 0) continue;
    CudnnStatusDecoded info = decode_cudnn_status(status, f.major);
    std::vector<std::string> ev = {name + "() returned " + std::to_string(status) + " (" + info.name + ")"};
    ev.insert(ev.end(), evidence.begin(), evidence.end());
    return stage_fail("library", kTitle, name + " failed: " + info.name,
                      library_finding("verify.library.sublibrary_version_mismatch",
                                   "cuDNN sub-libraries come from different versions",
                                   info.meaning + ". Programs fail with " + info.name + ".", ev,
                                   info.fix.empty() ? reinstall_fix(f) : with_first(fix::step(info.fix), reinstall_fix(f))));
  }
  return std::nullopt;
}

}  // namespace

StageResult check_library_set(const LibrarySetFacts& f) {
  if (auto failed = check_shim(f)) return *failed;
  const std::string version_text = f.version.known() ? "cuDNN " + f.version.str() : std::string();
  if (auto failed = foreign_modules_stage("library", kTitle, f.lib_dir, version_text, f.loaded_modules, f.windows,
                                          "after loading the copy")) {
    return *failed;
  }
  if (auto failed = check_sublibraries(f)) return *failed;
  if (auto failed = check_symbols(f)) return *failed;
  std::vector<std::string> evidence = {"cudnn " + describe_load(f.shim)};
  for (const auto& l : f.sublibraries) {
    if (l.present) evidence.push_back(l.component + " " + describe_load(l));
  }
  if (auto failed = check_versions_of_parts(f, evidence)) return *failed;
  int loaded_count = 0;
  for (const auto& l : f.sublibraries) loaded_count += l.loaded ? 1 : 0;
  StageResult s = stage_pass("library", kTitle,
                             name_of(f.shim.path) + " and " + std::to_string(loaded_count) +
                                 " sub-libraries loaded from " + f.lib_dir);
  s.evidence = evidence;
  for (const auto& [name, status] : f.version_checks) s.evidence.push_back(name + "() = " + std::to_string(status));
  return s;
}

StageResult check_mapped_modules(const std::string& lib_dir, bool windows,
                                 const std::vector<std::pair<std::string, std::vector<std::string>>>& snapshots) {
  const std::string title = "Every cuDNN file mapped during the run came from the copy";
  size_t files = 0;
  for (const auto& [when, mapped] : snapshots) {
    if (auto failed = foreign_modules_stage("modules", title, lib_dir, "", mapped, windows, when)) return *failed;
    files = std::max(files, attribute_cudnn_files(mapped, {lib_dir}, windows).size());
  }
  if (snapshots.empty()) return stage_skip("modules", title, "skipped: nothing was loaded");
  StageResult s = stage_pass("modules", title, std::to_string(files) + " cuDNN files mapped, all from " + lib_dir);
  for (const auto& [when, mapped] : snapshots) s.evidence.push_back("checked " + when);
  return s;
}

}  // namespace cudnnup
