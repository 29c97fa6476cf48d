#include "diagnose/checks.h"

#include <algorithm>
#include <map>
#include <set>

#include "facts/cudnn_files.h"
#include "base/paths.h"

namespace cudnnup {
namespace {

Finding make_finding(const char* id, Severity sev, const std::string& subject, std::string title) {
  Finding f;
  f.id = id;
  f.severity = sev;
  f.subject = subject;
  f.title = std::move(title);
  return f;
}

std::string copy_label(const CudnnCopy& c) {
  Version v = c.library_version.known() ? c.library_version : c.header_version;
  return "cuDNN " + (v.known() ? v.str() : std::string("(unknown version)")) + " in " + c.lib_dir;
}

bool on_default_search_path(const CudnnCopy& c) {
  for (const auto& why : c.found_via) {
    if (why == "LD_LIBRARY_PATH" || why == "ld.so.cache" || why == "system library directory" || why == "PATH") {
      return true;
    }
  }
  return false;
}

// The version the copy should be judged by: what the library says, else the header.
Version effective_version(const CudnnCopy& c) {
  return c.library_version.known() ? c.library_version : c.header_version;
}

}  // namespace

std::vector<Finding> check_driver(const Report& report, const Rules&, const Environment& env) {
  std::vector<Finding> out;
  const DriverInfo& d = report.driver;
  if (!d.present) {
    auto f = make_finding("driver.not_found", Severity::kWarning, "driver", "No NVIDIA driver found");
    f.detail = d.problem.empty() ? "GPU work (and `cudnnup verify`) cannot run on this machine. cuDNN files can still be checked."
                                 : d.problem;
    if (env.windows()) {
      f.fix = {"Install the NVIDIA display driver for your GPU from https://www.nvidia.com/Download/index.aspx, then reboot"};
    } else {
      f.fix = {"Check for a GPU: lspci | grep -i nvidia",
               "Install the driver from your distribution, e.g. on Debian: sudo apt-get install nvidia-driver, then reboot",
               "In a container: run it with the GPU exposed (docker run --gpus all ...)"};
    }
    out.push_back(f);
    return out;
  }
  if (d.gpus.empty() && !d.cuda_version.known() && !d.problem.empty()) {
    auto f = make_finding("driver.unusable", Severity::kError, "driver", "The NVIDIA driver is installed but does not answer");
    f.detail = d.problem;
    f.evidence = {d.libcuda_path, d.nvml_path};
    f.fix = {"nvidia-smi   # shows whether the kernel module and the GPU are visible",
             "If the driver was just upgraded, reboot so the kernel module matches the user-space libraries"};
    out.push_back(f);
  }
  return out;
}

std::vector<Finding> check_toolkits(const Report& report, const Rules& rules, const Environment& env) {
  std::vector<Finding> out;
  for (const auto& tk : report.toolkits) {
    if (!tk.version.known()) {
      auto f = make_finding("toolkit.version_unknown", Severity::kWarning, tk.root,
                            "Cannot tell the version of the CUDA toolkit in " + tk.root);
      f.detail = "It has no version.json, version.txt or cuda.h with CUDA_VERSION.";
      f.fix = {tk.nvcc.empty() ? "Reinstall the toolkit" : tk.nvcc + " --version"};
      out.push_back(f);
      continue;
    }
    if (!report.driver.present || !report.driver.version.known()) continue;
    const DriverMinimum* min = rules.driver_minimum_for(tk.version);
    const MajorDriverMinimum* major_min = rules.major_driver_minimum_for(tk.version.major());
    Version needed = min ? (env.windows() ? min->windows_driver : min->linux_driver) : Version{};
    Version floor = major_min ? (env.windows() ? major_min->windows_driver : major_min->linux_driver) : Version{};
    if (floor.known() && report.driver.version < floor) {
      auto f = make_finding("toolkit.driver_too_old", Severity::kError, tk.root,
                            "Driver " + report.driver.version_text + " is too old for CUDA " + tk.version.str());
      f.detail = "CUDA " + std::to_string(tk.version.major()) + ".x needs driver " + floor.str() +
                 " or newer (minor-version compatibility). Programs built with this toolkit will fail with "
                 "\"CUDA driver version is insufficient for CUDA runtime version\".";
      f.evidence = {"driver " + report.driver.version_text, "toolkit " + tk.root + " " + tk.version.str(),
                    "rule: " + major_min->source};
      f.fix = {"Install NVIDIA driver " + (needed.known() ? needed.str() : floor.str()) + " or newer"};
      out.push_back(f);
    } else if (needed.known() && report.driver.version < needed) {
      auto f = make_finding("toolkit.driver_below_release", Severity::kInfo, tk.root,
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
  std::vector<Finding> out;
  const std::string subject = copy.lib_dir;
  const Version version = effective_version(copy);
  const int major = copy.libraries.empty() ? version.major() : copy.libraries.front().major;

  // 1. Files that are damaged, empty, for another CPU, or links that lead nowhere.
  for (const auto& lib : copy.libraries) {
    if (lib.problems.empty()) continue;
    auto name = parse_cudnn_library_name(paths::basename(lib.path));
    bool dev_only = name && name->shim() && name->dev_link;
    auto f = make_finding(lib.dangling ? "cudnn.dangling_link" : "cudnn.library_damaged",
                          lib.dangling && dev_only ? Severity::kWarning : Severity::kError, subject,
                          std::string(paths::basename(lib.path)) + ": " + lib.problems.front());
    f.detail = lib.dangling ? "The link's target is missing, so anything that loads this name fails."
                            : "A program that loads this file will fail or crash.";
    f.evidence = {lib.path};
    if (!lib.real_path.empty() && lib.real_path != lib.path) f.evidence.push_back("-> " + lib.real_path);
    for (size_t i = 1; i < lib.problems.size(); ++i) f.evidence.push_back(lib.problems[i]);
    f.fix = {"Reinstall this cuDNN copy (cudnnup install " + (version.known() ? version.str() : std::string("VERSION")) +
             "), or remove the broken file: rm '" + lib.path + "'"};
    out.push_back(f);
  }

  // 2. The sub-libraries the release must have.
  if (version.known()) {
    std::set<std::string> present;
    for (const auto& lib : copy.libraries) {
      if (!lib.dangling && lib.problems.empty()) present.insert(lib.component);
      else if (!lib.dangling) present.insert(lib.component);  // damaged files are reported above
    }
    std::vector<std::string> missing;
    for (const auto& c : rules.expected_components(version)) {
      if (!present.count(c)) missing.push_back(cudnn_library_file_name(c, major, env.windows()));
    }
    if (!missing.empty()) {
      auto f = make_finding("cudnn.sublibrary_missing", Severity::kError, subject,
                            copy_label(copy) + " is missing " + std::to_string(missing.size()) + " sub-librar" +
                                (missing.size() == 1 ? "y" : "ies"));
      f.detail = "cuDNN " + std::to_string(major) + " loads its sub-libraries at run time; a missing one fails with "
                 "\"Unable to load any of {...}\" or CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED, or another copy's file "
                 "is picked up (CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH).";
      f.evidence = missing;
      f.fix = {"Reinstall the complete cuDNN " + version.str() + " (cudnnup install " + version.truncated(3).str() + ")"};
      if (copy.form == PackageForm::kPipWheel && !copy.package.empty()) {
        std::string pkg = copy.package.substr(0, copy.package.find(' '));
        f.fix = {"pip install --force-reinstall " + pkg + "==" + copy.package.substr(copy.package.find(' ') + 1)};
      }
      out.push_back(f);
    }
  }

  // 3. Sub-libraries of different versions side by side (visible where names carry versions).
  std::map<std::string, std::vector<std::string>> versions;
  for (const auto& lib : copy.libraries) {
    if (lib.version_from_name.known()) versions[lib.version_from_name.truncated(3).str()].push_back(std::string(paths::basename(lib.path)));
  }
  if (versions.size() > 1) {
    auto f = make_finding("cudnn.mixed_sublibrary_versions", Severity::kError, subject,
                          "Sub-libraries of " + std::to_string(versions.size()) + " different cuDNN versions in " + copy.lib_dir);
    f.detail = "cuDNN refuses to mix sub-library versions (CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH).";
    for (const auto& [v, files] : versions) {
      std::string line = v + ":";
      for (const auto& file : files) line += " " + file;
      f.evidence.push_back(line);
    }
    f.fix = {"Remove the stray files and reinstall one version completely (cudnnup install VERSION --into DIR)"};
    out.push_back(f);
  }

  // 4. The header and the library disagree.
  if (copy.header_version.known() && copy.library_version.known() &&
      copy.header_version.truncated(3) != copy.library_version.truncated(3)) {
    auto f = make_finding("cudnn.header_library_mismatch", Severity::kError, subject,
                          "Header says cuDNN " + copy.header_version.str() + " but the library is " +
                              copy.library_version.str());
    f.detail = "Code compiled against this header expects another library: builds break or fail at run time with "
               "version errors. Usually an old header left behind by a manual copy.";
    f.evidence = {copy.header_path + ": " + copy.header_version.str(),
                  copy.lib_dir + ": " + copy.library_version.str() + " (" + copy.library_version_source + ")"};
    f.fix = {"Reinstall headers and libraries together: cudnnup install " + copy.library_version.truncated(3).str() +
             (copy.form == PackageForm::kToolkitMerged ? " --into " + copy.root : std::string()),
             "or remove the stale header files in " + copy.include_dir};
    out.push_back(f);
  }

  // 5. The probe: the library could not be loaded, or crashed while loading.
  if (copy.probe.attempted && !copy.probe.loaded) {
    bool crashed = copy.probe.failure.find("crashed") != std::string::npos ||
                   copy.probe.failure.find("did not finish") != std::string::npos;
    auto f = make_finding(crashed ? "cudnn.load_crashed" : "cudnn.load_failed", Severity::kError, subject,
                          copy_label(copy) + (crashed ? " crashes when loaded" : " cannot be loaded"));
    f.detail = copy.probe.failure;
    f.evidence = {cudnn_library_file_name("cudnn", major, env.windows())};
    f.fix = {"Reinstall this copy; if it persists, check its dependencies: ldd '" + copy.lib_dir + "/" +
             cudnn_library_file_name("cudnn", major, env.windows()) + "'"};
    out.push_back(f);
  }

  // 6. Built for another CUDA major than the toolkit it was merged into.
  int built_for = copy.cuda_major;
  if (copy.probe.cudart_version.known()) built_for = copy.probe.cudart_version.major();
  if (copy.form == PackageForm::kToolkitMerged && built_for > 0) {
    for (const auto& tk : report.toolkits) {
      if (tk.root != copy.root || !tk.version.known() || tk.version.major() == built_for) continue;
      auto f = make_finding("cudnn.cuda_major_mismatch", Severity::kError, subject,
                            copy_label(copy) + " was built for CUDA " + std::to_string(built_for) + " but sits in the CUDA " +
                                tk.version.str() + " toolkit");
      f.detail = "A cuDNN build runs only with the CUDA major it was built for.";
      f.evidence = {"built for CUDA " + std::to_string(built_for) + " (" +
                        (copy.probe.cudart_version.known() ? "cudnnGetCudartVersion" : copy.cuda_major_source) + ")",
                    "toolkit " + tk.root + " is CUDA " + tk.version.str()};
      f.fix = {"cudnnup install " + version.truncated(3).str() + " --cuda " + std::to_string(tk.version.major()) +
               " --into " + tk.root};
      out.push_back(f);
    }
  }

  // 7. A build variant that NVIDIA never shipped (e.g. cuda13 before 9.12): a mislabelled copy.
  if (built_for > 0 && version.known()) {
    if (const CudaVariantRange* range = rules.cuda_variant_for(built_for)) {
      bool inside = version.truncated(3) >= range->first && (!range->last.known() || version.truncated(3) <= range->last);
      if (!inside) {
        auto f = make_finding("cudnn.unknown_build_variant", Severity::kWarning, subject,
                              "cuDNN " + version.str() + " was never released for CUDA " + std::to_string(built_for));
        f.detail = "The copy may be mislabelled or assembled from different releases.";
        f.evidence = {"CUDA " + std::to_string(built_for) + " builds: " + range->first.str() + " to " +
                          (range->last.known() ? range->last.str() : std::string("current")),
                      "rule: " + range->source};
        out.push_back(f);
      }
    }
  }

  // 8. The driver is too old for the CUDA major this copy was built for.
  if (built_for > 0 && report.driver.present && report.driver.version.known()) {
    if (const MajorDriverMinimum* min = rules.major_driver_minimum_for(built_for)) {
      Version need = env.windows() ? min->windows_driver : min->linux_driver;
      if (need.known() && report.driver.version < need) {
        auto f = make_finding("cudnn.driver_too_old", Severity::kError, subject,
                              copy_label(copy) + " (CUDA " + std::to_string(built_for) + " build) needs driver " +
                                  need.str() + "+; this machine has " + report.driver.version_text);
        f.evidence = {"rule: " + min->source};
        f.fix = {"Install NVIDIA driver " + need.str() + " or newer",
                 "or use a cuDNN build for an older CUDA major: cudnnup install " + version.truncated(2).str() +
                     " --cuda " + std::to_string(built_for - 1)};
        out.push_back(f);
      }
    }
  }

  // 9. A GPU older than this release supports.
  if (version.known()) {
    if (const ComputeCapabilityRule* rule = rules.compute_capability_rule_for(version, built_for)) {
      for (const auto& gpu : report.driver.gpus) {
        if (!gpu.compute_capability.known() || gpu.compute_capability >= rule->min_cc) continue;
        auto f = make_finding("cudnn.gpu_unsupported", Severity::kError, subject,
                              "GPU " + std::to_string(gpu.index) + " (" + gpu.name + ", compute capability " +
                                  gpu.compute_capability.str() + ") is not supported by cuDNN " + version.str());
        f.detail = "This release needs compute capability " + rule->min_cc.str() + " or higher.";
        f.evidence = {"rule: " + rule->source};
        f.fix = {"Use an older cuDNN that still supports this GPU (e.g. cudnnup install 9.10 --cuda 12)"};
        out.push_back(f);
      }
    }
  }

  // 10. Releases with known defects.
  for (const auto& bad : rules.known_bad) {
    if (!version.known()) break;
    Version full = version;
    if (!copy.package.empty()) {
      if (auto pv = Version::parse(copy.package.substr(copy.package.rfind(' ') + 1))) full = *pv;
    }
    if (!full.has_prefix(bad.cudnn)) continue;
    if (!bad.platform.empty() && bad.platform != (env.windows() ? "windows" : "linux")) continue;
    auto f = make_finding("cudnn.known_bad_release", Severity::kWarning, subject, copy_label(copy) + ": " + bad.problem);
    f.evidence = {"rule: " + bad.source};
    f.fix = {bad.fix};
    out.push_back(f);
  }

  // 11. A versioned real file without its SONAME link (the loader asks for libcudnn.so.9).
  if (!env.windows()) {
    std::set<std::string> soname_present;
    std::set<std::string> real_only;
    for (const auto& lib : copy.libraries) {
      std::string base(paths::basename(lib.path));
      std::string soname = cudnn_library_file_name(lib.component, lib.major, false);
      if (base == soname) soname_present.insert(lib.component);
      else if (lib.version_from_name.known()) real_only.insert(lib.component);
    }
    std::vector<std::string> missing;
    for (const auto& c : real_only) {
      if (!soname_present.count(c)) missing.push_back(cudnn_library_file_name(c, major, false));
    }
    if (!missing.empty()) {
      auto f = make_finding("cudnn.soname_link_missing", Severity::kWarning, subject,
                            "Missing SONAME links in " + copy.lib_dir + ": programs ask for names that are not there");
      f.evidence = missing;
      f.fix = {"sudo ldconfig -n '" + copy.lib_dir + "'   # creates the " + cudnn_library_glob(major, false) + " links"};
      out.push_back(f);
    }
  }

  // 12. Listed in ld.so.conf but missing from the cache: ldconfig was not re-run after install.
  if (!env.windows()) {
    bool conf = std::find(copy.found_via.begin(), copy.found_via.end(), "ld.so.conf") != copy.found_via.end();
    bool cache = std::find(copy.found_via.begin(), copy.found_via.end(), "ld.so.cache") != copy.found_via.end();
    if (conf && !cache) {
      auto f = make_finding("cudnn.ldconfig_stale", Severity::kWarning, subject,
                            copy.lib_dir + " is listed in ld.so.conf but the loader's cache has no cuDNN there");
      f.detail = "Programs that rely on the system search path will not find this copy until the cache is rebuilt.";
      f.fix = {"sudo ldconfig"};
      out.push_back(f);
    }
  }

  // 13. No header: fine for running, not for building.
  if (!copy.header_version.known()) {
    auto f = make_finding("cudnn.no_header", Severity::kInfo, subject, copy_label(copy) + " has no cudnn_version.h");
    f.detail = "Enough to run programs; building against this copy needs the headers (the -dev package).";
    out.push_back(f);
  }
  return out;
}

std::vector<Finding> check_copies_together(const Report& report, const Environment& env) {
  std::vector<Finding> out;
  if (report.copies.empty()) {
    auto f = make_finding("cudnn.not_found", Severity::kError, "cudnn", "No cuDNN found on this machine");
    f.detail = "Looked in " + std::to_string(report.searched_dirs.size()) +
               " directories (toolkits, library paths, Python and conda environments, cudnnup's store).";
    f.fix = {"cudnnup install 9 --cuda " +
                 (report.toolkits.empty() || !report.toolkits.front().version.known()
                      ? std::string("12")
                      : std::to_string(report.toolkits.front().version.major())),
             "or: pip install nvidia-cudnn-cu12"};
    out.push_back(f);
    return out;
  }
  // Two majors in one directory: usually an old 8.x left behind by a manual copy.
  std::map<std::string, std::vector<const CudnnCopy*>> by_dir;
  for (const auto& c : report.copies) by_dir[c.lib_dir].push_back(&c);
  for (const auto& [dir, copies] : by_dir) {
    if (copies.size() < 2) continue;
    auto f = make_finding("cudnn.mixed_majors", Severity::kWarning, dir,
                          "cuDNN " + std::to_string(copies[0]->major()) + " and " + std::to_string(copies[1]->major()) +
                              " files share " + dir);
    f.detail = "Leftovers of an earlier install. Frameworks pick the major they were built for, but headers and the "
               "libcudnn.so link can belong to only one of them.";
    for (const auto* c : copies) {
      for (const auto& lib : c->libraries) f.evidence.push_back(lib.path);
    }
    f.fix = {"Move the older major's files aside: mkdir -p '" + dir + "/cudnn-old' && mv '" + dir + "'/" +
             cudnn_library_glob(std::min(copies[0]->major(), copies[1]->major()), false) + "* '" + dir + "/cudnn-old/'"};
    out.push_back(f);
  }
  // Copies of one major that a plain program could both reach: the first one wins.
  std::map<int, std::vector<const CudnnCopy*>> reachable;
  for (const auto& c : report.copies) {
    if (on_default_search_path(c)) reachable[c.major()].push_back(&c);
  }
  for (const auto& [major, copies] : reachable) {
    if (copies.size() < 2) continue;
    const CudnnCopy* winner = copies.front();  // candidates are ordered as the loader searches
    auto f = make_finding("cudnn.shadowed", Severity::kWarning, winner->lib_dir,
                          std::to_string(copies.size()) + " copies of cuDNN " + std::to_string(major) +
                              " are on the library search path; programs get " + copy_label(*winner));
    f.detail = "The others are shadowed. A framework built for another version, or a sub-library taken from the "
               "wrong copy, gives version errors. `cudnnup which` explains the choice.";
    for (const auto* c : copies) {
      std::string via;
      for (const auto& w : c->found_via) via += (via.empty() ? "" : ", ") + w;
      f.evidence.push_back((c == winner ? "wins: " : "shadowed: ") + copy_label(*c) + " (via " + via + ")");
    }
    f.fix = {env.windows() ? "Remove the unwanted directory from PATH" : "Remove the unwanted directory from LD_LIBRARY_PATH",
             "or select one copy per shell: eval \"$(cudnnup env --shell bash)\""};
    out.push_back(f);
  }
  return out;
}

}  // namespace cudnnup
