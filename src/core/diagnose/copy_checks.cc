#include "diagnose/copy_checks.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/paths.h"
#include "diagnose/finding_text.h"
#include "facts/cudnn_files.h"
#include "facts/finding_ids.h"

namespace cudnnup {
namespace {

namespace id = finding_id;

// The install that puts this copy back whole: into its toolkit when it was merged into one.
FixStep reinstall(const CopyCheckInput& in) {
  return install_fix(in.version, in.built_for, in.copy.form == PackageForm::kToolkitMerged ? in.copy.root : std::string());
}

// A fix that ends the finding, by the copy's form. Merged into a toolkit: install the release
// into that toolkit again (every replaced file backed up). A pip wheel: pip reinstalls it alone
// (--no-deps: its dependencies are not the finding). A loose tree reached through the library
// path (an unpacked archive, a copied folder): install the release into the store, select it
// and let `cudnnup env` put it first. `env` drops a folder that holds only cuDNN, so nothing in
// this shell loads the broken copy any more; a folder that also holds other libraries stays on
// the path, so the broken copy's own files are moved aside first (nothing is deleted). `lead` is
// the sentence before the commands.
std::vector<FixStep> reinstall_steps(const CopyCheckInput& in, const std::string& lead) {
  const CudnnCopy& copy = in.copy;
  if (copy.form == PackageForm::kPipWheel && !copy.package.empty() && copy.package.find(' ') != std::string::npos) {
    std::string pkg = copy.package.substr(0, copy.package.find(' '));
    return {fix::run({"pip", "install", "--force-reinstall", "--no-deps", pkg + "==" + copy.package.substr(copy.package.find(' ') + 1)})};
  }
  FixStep install = reinstall(in);
  bool loose = copy.form == PackageForm::kArchiveTree || copy.form == PackageForm::kUnknown;
  if (install.kind != FixKind::kCudnnup || !loose || in.env.windows()) return {fix::step(lead + ":"), install};
  std::string selection = in.version.truncated(3).str() + "+cuda" + std::to_string(in.built_for);
  if (!copy.shares_folder) {
    return {fix::step(lead + ", select it, and take this copy off the library path:"), install, fix::cudnnup({"use", selection}),
            fix::cudnnup_eval({"env"}, "puts the selected copy first and drops " + copy.lib_dir)};
  }
  std::string aside = copy.lib_dir + ".cudnn-moved-aside";
  std::vector<std::string> move = {"mv"};
  for (const auto& lib : copy.libraries) move.push_back(lib.path);
  move.push_back(aside + "/");
  return {fix::step(lead + ", select it, and move this copy's files aside (" + copy.lib_dir +
                    " also holds other libraries, so it stays on the library path):"),
          install, fix::cudnnup({"use", selection}), fix::run({"mkdir", "-p", aside}), fix::run(std::move(move)),
          fix::cudnnup_eval({"env"}, "puts the selected copy first")};
}

FixStep remove_file(const std::string& path, bool windows) {
  return windows ? fix::step("Delete " + path) : fix::run({"rm", path});
}

// Files that are damaged, empty, for another CPU, or links that lead nowhere.
std::vector<Finding> library_files(const CopyCheckInput& in) {
  std::vector<Finding> out;
  for (const auto& lib : in.copy.libraries) {
    if (lib.problems.empty()) continue;
    auto name = parse_cudnn_library_name(paths::basename(lib.path));
    bool dev_only = name && name->shim() && name->dev_link;
    auto f = make_finding(lib.dangling ? id::kCudnnDanglingLink : id::kCudnnLibraryDamaged,
                          lib.dangling && dev_only ? Severity::kWarning : Severity::kError, in.copy.lib_dir,
                          std::string(paths::basename(lib.path)) + ": " + lib.problems.front());
    f.detail = lib.dangling ? "The link leads to no file (its target is missing, or the links loop), so anything that loads this name fails."
                            : "A program that loads this file will fail or crash.";
    f.evidence = {lib.path};
    if (!lib.real_path.empty() && lib.real_path != lib.path) f.evidence.push_back("-> " + lib.real_path);
    for (size_t i = 1; i < lib.problems.size(); ++i) f.evidence.push_back(lib.problems[i]);
    // A dangling link or a development link can simply go; a damaged library is needed.
    if (lib.dangling || dev_only) {
      f.fix = {fix::step("Reinstall this cuDNN copy:"), reinstall(in), fix::step("or remove the broken file:"),
               remove_file(lib.path, in.env.windows())};
    } else {
      f.fix = reinstall_steps(in, "Reinstall cuDNN " + (in.version.known() ? in.version.str() : std::string("of this copy")));
    }
    out.push_back(f);
  }
  return out;
}

// The sub-libraries the release must have. Damaged files count as present: they are reported
// by library_files.
std::vector<Finding> sublibraries_present(const CopyCheckInput& in) {
  if (!in.version.known()) return {};
  const CudnnCopy& copy = in.copy;
  std::set<std::string> present;
  for (const auto& lib : copy.libraries) {
    if (!lib.dangling) present.insert(lib.component);
  }
  std::vector<std::string> missing;
  for (const auto& c : in.rules.expected_components(in.version)) {
    if (!present.count(c)) missing.push_back(cudnn_library_file_name(c, in.major, in.env.windows()));
  }
  if (missing.empty()) return {};
  auto f = make_finding(id::kCudnnSublibraryMissing, Severity::kError, copy.lib_dir,
                        copy_label(copy) + " is missing " + std::to_string(missing.size()) + " sub-librar" +
                            (missing.size() == 1 ? "y" : "ies"));
  f.detail = "cuDNN " + std::to_string(in.major) + " loads its sub-libraries at run time; a missing one fails with "
             "\"Unable to load any of {...}\" or CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED, or another copy's file "
             "is picked up (CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH).";
  f.evidence = missing;
  f.fix = reinstall_steps(in, "Reinstall the complete cuDNN " + in.version.str());
  return {f};
}

// Sub-libraries of different versions side by side (visible where names carry versions).
std::vector<Finding> sublibrary_versions(const CopyCheckInput& in) {
  std::map<std::string, std::vector<std::string>> versions;
  for (const auto& lib : in.copy.libraries) {
    if (lib.version_from_name.known()) {
      versions[lib.version_from_name.truncated(3).str()].push_back(std::string(paths::basename(lib.path)));
    }
  }
  if (versions.size() < 2) return {};
  auto f = make_finding(id::kCudnnMixedSublibraryVersions, Severity::kError, in.copy.lib_dir,
                        "Sub-libraries of " + std::to_string(versions.size()) + " different cuDNN versions in " +
                            in.copy.lib_dir);
  f.detail = "cuDNN refuses to mix sub-library versions (CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH).";
  for (const auto& [v, files] : versions) {
    std::string line = v + ":";
    for (const auto& file : files) line += " " + file;
    f.evidence.push_back(line);
  }
  f.fix = {fix::step("Remove the stray files and reinstall one version completely:"), reinstall(in)};
  return {f};
}

// The header and the library disagree.
std::vector<Finding> header_matches_library(const CopyCheckInput& in) {
  const CudnnCopy& copy = in.copy;
  if (!copy.header_version.known() || !copy.library_version.known() ||
      copy.header_version.truncated(3) == copy.library_version.truncated(3)) {
    return {};
  }
  auto f = make_finding(id::kCudnnHeaderLibraryMismatch, Severity::kError, copy.lib_dir,
                        "Header says cuDNN " + copy.header_version.str() + " but the library is " +
                            copy.library_version.str());
  f.detail = "Code compiled against this header expects another library: builds break or fail at run time with "
             "version errors. Usually an old header left behind by a manual copy.";
  f.evidence = {copy.header_path + ": " + copy.header_version.str(),
                copy.lib_dir + ": " + copy.library_version.str() + " (" + copy.library_version_source + ")"};
  CopyCheckInput library_release = in;
  library_release.version = copy.library_version;
  f.fix = reinstall_steps(library_release, "Reinstall headers and libraries of cuDNN " + copy.library_version.truncated(3).str() + " together");
  f.fix.push_back(fix::step("or remove the stale header files in " + copy.include_dir));
  return {f};
}

// The probe: the library could not be loaded, or crashed while loading.
std::vector<Finding> shim_loads(const CopyCheckInput& in) {
  const CudnnCopy& copy = in.copy;
  if (!copy.probe.attempted || copy.probe.loaded) return {};
  bool crashed = copy.probe.failure.find("crashed") != std::string::npos ||
                 copy.probe.failure.find("did not finish") != std::string::npos;
  auto f = make_finding(crashed ? id::kCudnnLoadCrashed : id::kCudnnLoadFailed, Severity::kError, copy.lib_dir,
                        copy_label(copy) + (crashed ? " crashes when loaded" : " cannot be loaded"));
  f.detail = copy.probe.failure;
  std::string shim = cudnn_library_file_name("cudnn", in.major, in.env.windows());
  f.evidence = {shim};
  f.fix = {fix::step("Reinstall this copy; if it persists, check its dependencies:")};
  if (!in.env.windows()) f.fix.push_back(fix::run({"ldd", copy.lib_dir + "/" + shim}));
  return {f};
}

// The probe's answer was another copy's (a mapped cuDNN file came from elsewhere): said, and the
// copy is judged by its files instead. Nothing about the copy itself is wrong for this.
std::vector<Finding> probe_isolated(const CopyCheckInput& in) {
  const LibraryProbe& p = in.copy.probe;
  if (!p.attempted || p.isolated) return {};
  auto f = make_finding(id::kCudnnProbeNotIsolated, Severity::kWarning, in.copy.lib_dir,
                        copy_label(in.copy) + " " + p.isolation_problem);
  f.detail = "The probe ran with only this copy's directory on LD_LIBRARY_PATH and no LD_PRELOAD, yet cuDNN mapped a "
             "file from elsewhere: the copy lacks it under the name cuDNN asks for first (full version, "
             "then major.minor, then major), or /etc/ld.so.preload injects it. Its version and CUDA major come from its files.";
  f.evidence = p.mapped_files;
  return {f};
}

// Built for another CUDA major than the toolkit it was merged into.
std::vector<Finding> cuda_major_matches_toolkit(const CopyCheckInput& in) {
  const CudnnCopy& copy = in.copy;
  if (copy.form != PackageForm::kToolkitMerged || in.built_for <= 0) return {};
  std::vector<Finding> out;
  for (const auto& tk : in.report.toolkits) {
    if (tk.root != copy.root || !tk.version.known() || tk.version.major() == in.built_for) continue;
    auto f = make_finding(id::kCudnnCudaMajorMismatch, Severity::kError, copy.lib_dir,
                          copy_label(copy) + " was built for CUDA " + std::to_string(in.built_for) +
                              " but sits in the CUDA " + tk.version.str() + " toolkit");
    f.detail = "A cuDNN build runs only with the CUDA major it was built for.";
    f.evidence = {"built for CUDA " + std::to_string(in.built_for) + " (" +
                      (copy.probe.cudart_version.known() ? "cudnnGetCudartVersion" : copy.cuda_major_source) + ")",
                  "toolkit " + tk.root + " is CUDA " + tk.version.str()};
    f.fix = {install_fix(in.version, tk.version.major(), tk.root)};
    out.push_back(f);
  }
  return out;
}

// A build variant that NVIDIA never shipped (e.g. cuda13 before 9.12): a mislabelled copy.
std::vector<Finding> build_variant_exists(const CopyCheckInput& in) {
  if (in.built_for <= 0 || !in.version.known()) return {};
  const CudaVariantRange* range = in.rules.cuda_variant_for(in.built_for);
  if (!range) return {};
  Version v = in.version.truncated(3);
  if (v >= range->first && (!range->last.known() || v <= range->last)) return {};
  auto f = make_finding(id::kCudnnUnknownBuildVariant, Severity::kWarning, in.copy.lib_dir,
                        "cuDNN " + in.version.str() + " was never released for CUDA " + std::to_string(in.built_for));
  f.detail = "The copy may be mislabelled or assembled from different releases.";
  f.evidence = {"CUDA " + std::to_string(in.built_for) + " builds: " + range->first.str() + " to " +
                    (range->last.known() ? range->last.str() : std::string("current")),
                "rule: " + range->source};
  return {f};
}

// The driver is too old for the CUDA major this copy was built for.
std::vector<Finding> driver_new_enough(const CopyCheckInput& in) {
  const DriverInfo& driver = in.report.driver;
  if (in.built_for <= 0 || !driver.present || !driver.version.known()) return {};
  const MajorDriverMinimum* min = in.rules.major_driver_minimum_for(in.built_for);
  if (!min) return {};
  Version need = in.env.windows() ? min->windows_driver : min->linux_driver;
  if (!need.known() || !(driver.version < need)) return {};
  auto f = make_finding(id::kCudnnDriverTooOld, Severity::kError, in.copy.lib_dir,
                        copy_label(in.copy) + " (CUDA " + std::to_string(in.built_for) + " build) needs driver " +
                            need.str() + "+; this machine has " + driver.version_text);
  f.evidence = {"rule: " + min->source};
  f.fix = {fix::step("Install NVIDIA driver " + need.str() + " or newer"),
           fix::step("or use a cuDNN build for an older CUDA major:"), install_newest_fix(in.major, in.built_for - 1, in.env.windows())};
  return {f};
}

// A GPU older than this release supports.
std::vector<Finding> gpus_supported(const CopyCheckInput& in) {
  if (!in.version.known()) return {};
  const ComputeCapabilityRule* rule = in.rules.compute_capability_rule_for(in.version, in.built_for);
  if (!rule) return {};
  std::vector<Finding> out;
  for (const auto& gpu : in.report.driver.gpus) {
    if (!gpu.compute_capability.known() || gpu.compute_capability >= rule->min_cc) continue;
    auto f = make_finding(id::kCudnnGpuUnsupported, Severity::kError, in.copy.lib_dir,
                          "GPU " + std::to_string(gpu.index) + " (" + gpu.name + ", compute capability " +
                              gpu.compute_capability.str() + ") is not supported by cuDNN " + in.version.str());
    f.detail = "This release needs compute capability " + rule->min_cc.str() + " or higher.";
    f.evidence = {"rule: " + rule->source};
    f.fix = {fix::step("Use an older cuDNN that still supports this GPU, for example:"), install_fix(Version{9, 10, 2}, 12)};
    out.push_back(f);
  }
  return out;
}

// Releases with known defects (the package's full version when it says, e.g. 9.19.0.56).
std::vector<Finding> known_bad_release(const CopyCheckInput& in) {
  if (!in.version.known()) return {};
  Version full = in.version;
  if (!in.copy.package.empty()) {
    if (auto pv = Version::parse(in.copy.package.substr(in.copy.package.rfind(' ') + 1))) full = *pv;
  }
  std::vector<Finding> out;
  for (const auto& bad : in.rules.known_bad) {
    if (!full.has_prefix(bad.cudnn)) continue;
    if (!bad.platform.empty() && bad.platform != (in.env.windows() ? "windows" : "linux")) continue;
    auto f = make_finding(id::kCudnnKnownBadRelease, Severity::kWarning, in.copy.lib_dir,
                          copy_label(in.copy) + ": " + bad.problem);
    f.evidence = {"rule: " + bad.source};
    f.fix = {fix::step(bad.fix)};
    f.fix.insert(f.fix.end(), bad.fix_steps.begin(), bad.fix_steps.end());
    out.push_back(f);
  }
  return out;
}

// A versioned real file without its SONAME link (the loader asks for libcudnn.so.9).
std::vector<Finding> soname_links(const CopyCheckInput& in) {
  if (in.env.windows()) return {};
  std::set<std::string> soname_present;
  std::set<std::string> real_only;
  for (const auto& lib : in.copy.libraries) {
    std::string base(paths::basename(lib.path));
    if (base == cudnn_library_file_name(lib.component, lib.major, false)) soname_present.insert(lib.component);
    else if (lib.version_from_name.known()) real_only.insert(lib.component);
  }
  std::vector<std::string> missing;
  for (const auto& c : real_only) {
    if (!soname_present.count(c)) missing.push_back(cudnn_library_file_name(c, in.major, false));
  }
  if (missing.empty()) return {};
  auto f = make_finding(id::kCudnnSonameLinkMissing, Severity::kWarning, in.copy.lib_dir,
                        "Missing SONAME links in " + in.copy.lib_dir + ": programs ask for names that are not there");
  f.evidence = missing;
  f.fix = {fix::sudo({"ldconfig", "-n", in.copy.lib_dir}, "creates the " + cudnn_library_glob(in.major, false) + " links")};
  return {f};
}

// Listed in ld.so.conf but missing from the cache: ldconfig was not re-run after install.
std::vector<Finding> ld_cache_current(const CopyCheckInput& in) {
  if (in.env.windows()) return {};
  const auto& via = in.copy.found_via;
  bool conf = std::find(via.begin(), via.end(), "ld.so.conf") != via.end();
  bool cache = std::find(via.begin(), via.end(), "ld.so.cache") != via.end();
  if (!conf || cache) return {};
  auto f = make_finding(id::kCudnnLdconfigStale, Severity::kWarning, in.copy.lib_dir,
                        in.copy.lib_dir + " is listed in ld.so.conf but the loader's cache has no cuDNN there");
  f.detail = "Programs that rely on the system search path will not find this copy until the cache is rebuilt.";
  f.fix = {fix::sudo({"ldconfig"})};
  return {f};
}

// No header: fine for running, not for building.
std::vector<Finding> header_present(const CopyCheckInput& in) {
  if (in.copy.header_version.known()) return {};
  auto f = make_finding(id::kCudnnNoHeader, Severity::kInfo, in.copy.lib_dir, copy_label(in.copy) + " has no cudnn_version.h");
  f.detail = "Enough to run programs; building against this copy needs the headers (the -dev package).";
  return {f};
}

}  // namespace

CopyCheckInput make_copy_check_input(const CudnnCopy& copy, const Report& report, const Rules& rules,
                                     const Environment& env) {
  CopyCheckInput in{copy, report, rules, env, effective_version(copy), 0, 0};
  in.major = copy.libraries.empty() ? in.version.major() : copy.libraries.front().major;
  in.built_for = copy.probe.cudart_version.known() ? copy.probe.cudart_version.major() : copy.cuda_major;
  return in;
}

const std::vector<CopyCheck>& copy_checks() {
  static const std::vector<CopyCheck> checks = {
      {"library_files", {id::kCudnnLibraryDamaged, id::kCudnnDanglingLink}, library_files},
      {"sublibraries_present", {id::kCudnnSublibraryMissing}, sublibraries_present},
      {"sublibrary_versions", {id::kCudnnMixedSublibraryVersions}, sublibrary_versions},
      {"header_matches_library", {id::kCudnnHeaderLibraryMismatch}, header_matches_library},
      {"shim_loads", {id::kCudnnLoadFailed, id::kCudnnLoadCrashed}, shim_loads},
      {"probe_isolated", {id::kCudnnProbeNotIsolated}, probe_isolated},
      {"cuda_major_matches_toolkit", {id::kCudnnCudaMajorMismatch}, cuda_major_matches_toolkit},
      {"build_variant_exists", {id::kCudnnUnknownBuildVariant}, build_variant_exists},
      {"driver_new_enough", {id::kCudnnDriverTooOld}, driver_new_enough},
      {"gpus_supported", {id::kCudnnGpuUnsupported}, gpus_supported},
      {"known_bad_release", {id::kCudnnKnownBadRelease}, known_bad_release},
      {"soname_links", {id::kCudnnSonameLinkMissing}, soname_links},
      {"ld_cache_current", {id::kCudnnLdconfigStale}, ld_cache_current},
      {"header_present", {id::kCudnnNoHeader}, header_present},
  };
  return checks;
}

const CopyCheck* find_copy_check(std::string_view name) {
  for (const auto& c : copy_checks()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace cudnnup
