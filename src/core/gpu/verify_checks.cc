#include "gpu/verify_checks.h"

#include <algorithm>
#include <regex>

#include "facts/cudnn_status.h"
#include "base/paths.h"
#include "base/strings.h"

namespace cudnnup {

namespace {

Finding make_finding(std::string id, Severity severity, std::string title, std::string detail,
                     std::vector<std::string> evidence, std::vector<std::string> fix) {
  Finding f;
  f.id = std::move(id);
  f.severity = severity;
  f.title = std::move(title);
  f.detail = std::move(detail);
  f.evidence = std::move(evidence);
  f.fix = std::move(fix);
  return f;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// toolkit

std::optional<Version> parse_nvcc_version(std::string_view output) {
  static const std::regex full(R"(, V(\d+\.\d+\.\d+))");
  static const std::regex release(R"(release (\d+\.\d+))");
  std::string text(output);
  std::smatch m;
  if (std::regex_search(text, m, full)) return Version::parse(m[1].str());
  if (std::regex_search(text, m, release)) return Version::parse(m[1].str());
  return std::nullopt;
}

StageResult check_toolkit(const ToolkitFacts& facts, std::optional<Version>* toolkit_version) {
  const char* title = "CUDA toolkit (nvcc)";
  if (facts.nvcc_path.empty()) {
    return stage_skip("toolkit", title,
                      "no nvcc found (PATH, CUDA_HOME, CUDA_PATH, /usr/local/cuda); only needed to build CUDA code");
  }
  if (!facts.ran) {
    return stage_fail("toolkit", title, "nvcc could not run: " + facts.error,
                      make_finding("verify.toolkit.nvcc_broken", Severity::kError, "nvcc is present but does not run",
                                   "Building CUDA or cuDNN code with this toolkit will fail.",
                                   {facts.nvcc_path, facts.error},
                                   {"Reinstall the CUDA toolkit, or take " + paths::parent(facts.nvcc_path) +
                                    " off PATH."}));
  }
  auto v = parse_nvcc_version(facts.output);
  if (!v) {
    return stage_fail("toolkit", title, "nvcc ran but printed no version",
                      make_finding("verify.toolkit.nvcc_unreadable", Severity::kError, "nvcc printed no version",
                                   "The toolkit may be damaged.", {facts.nvcc_path, facts.output},
                                   {"Run `" + facts.nvcc_path + " --version` and reinstall the toolkit if it fails."}));
  }
  if (toolkit_version) *toolkit_version = v;
  StageResult s = stage_pass("toolkit", title, "nvcc " + v->str());
  s.evidence.push_back(facts.nvcc_path);
  return s;
}

// ---------------------------------------------------------------------------------------------
// headers

std::vector<std::string> header_candidates(const std::string& lib_dir) {
  std::vector<std::string> out;
  std::string dir = paths::normalize(lib_dir);
  std::string root = paths::parent(dir);
  std::string leaf(paths::basename(dir));
  // lib/x64 (Windows archives) and targets/<arch>/lib (toolkits) keep include one level up.
  if (leaf == "x64") root = paths::parent(root);
  const std::vector<std::string> names = cudnn_version_header_names(0);
  for (const auto& name : names) out.push_back(paths::join(paths::join(root, "include"), name));
  // Debian/Ubuntu: /usr/lib/<triplet> -> /usr/include/<triplet> and /usr/include.
  if (paths::parent(dir) == "/usr/lib" && leaf.find("-linux-gnu") != std::string::npos) {
    for (const auto& name : names) {
      if (name != "cudnn.h") out.push_back("/usr/include/" + leaf + "/" + name);
    }
  }
  if (dir == "/usr/lib64" || dir == "/usr/lib" || (paths::parent(dir) == "/usr/lib")) {
    out.push_back("/usr/include/cudnn_version.h");
  }
  return out;
}

StageResult check_headers(const HeaderFacts& facts, std::optional<Version>* header_version) {
  const char* title = "cuDNN headers (cudnn_version.h)";
  if (facts.path.empty()) {
    StageResult s = stage_skip("headers", title,
                               "no cudnn_version.h next to the copy (a runtime-only install); needed only to build code");
    s.evidence = facts.searched;
    return s;
  }
  auto parsed = parse_cudnn_header_version(facts.text);
  if (!parsed) {
    return stage_fail("headers", title, "cannot read CUDNN_MAJOR/MINOR/PATCHLEVEL from " + facts.path,
                      make_finding("verify.headers.unreadable", Severity::kError, "cuDNN version header is damaged",
                                   "Code built against it may not compile or may mismatch the library.",
                                   {facts.path}, {"Reinstall the copy's development files (headers)."}));
  }
  if (header_version) *header_version = parsed->version;
  StageResult s = stage_pass("headers", title, "cudnn_version.h says " + parsed->version.str());
  s.evidence.push_back(facts.path);
  if (parsed->max_sm_major >= 0) {
    s.evidence.push_back("CUDNN_MAX_SM " + std::to_string(parsed->max_sm_major) + "." +
                         std::to_string(parsed->max_sm_minor));
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// library set

std::vector<std::string> required_sublibraries(int major, const Version& version) {
  return required_cudnn_sublibraries(version.major() == major ? version : Version{major});
}

std::string explain_load_error(const std::string& msg) {
  if (contains(msg, "truncated") || contains(msg, "file too short") || contains(msg, "invalid ELF header") ||
      contains(msg, "failed to map segment") || contains(msg, "ELF load command") ||
      contains(msg, "unexpected reloc type") || contains(msg, "ELF file") || contains(msg, "not a dynamic"))
    return "the file is truncated or corrupt";
  if (contains(msg, "wrong ELF class") || contains(msg, "Exec format error") || contains(msg, "%1 is not a valid"))
    return "the file is for another CPU architecture";
  if (contains(msg, "undefined symbol")) return "it needs a symbol that the libraries loaded with it lack (mixed versions?)";
  static const std::regex dependency(R"(^([^:]+): cannot open shared object file)");
  std::smatch m;
  if (std::regex_search(msg, m, dependency)) return "a library it needs is missing: " + m[1].str();
  if (contains(msg, "No such file")) return "the file does not exist";
  if (contains(msg, "Permission denied")) return "permission denied";
  return "the loader refused it";
}

namespace {

// "/x/libcudnn_cnn.so.9.14.0" -> 9.14.0; unknown when the name carries only the major.
Version version_from_file_name(const std::string& path) {
  auto name = parse_cudnn_library_name(paths::basename(path));
  return name && !name->windows && name->version.parts.size() == 3 ? name->version : Version{};
}

bool is_cudnn_module(std::string_view path) { return parse_cudnn_library_name(paths::basename(path)).has_value(); }

std::string describe_load(const LibraryLoad& l) {
  std::string out = l.path;
  if (!l.real_path.empty() && l.real_path != l.path) out += " -> " + l.real_path;
  return out;
}

}  // namespace

StageResult check_library_set(const LibrarySetFacts& f) {
  const char* title = "Library and sub-libraries load from the copy";
  const std::string fix_reinstall = "Reinstall this copy (`cudnnup install " +
                                    (f.version.known() ? f.version.str() : std::string("<version>")) +
                                    "`, or your package manager), then run `cudnnup verify` again.";
  if (!f.shim.present) {
    return stage_fail("library", title, "no cuDNN library at " + f.shim.path,
                      make_finding("verify.library.missing", Severity::kError, "cuDNN library not found",
                                   "The path given is not a cuDNN copy (or its lib directory).", {f.shim.path},
                                   {"Point --copy at a cuDNN lib directory or copy root; `cudnnup doctor` lists "
                                    "the copies on this machine."}));
  }
  if (!f.shim.loaded) {
    std::string why = explain_load_error(f.shim.error);
    std::vector<std::string> evidence = {describe_load(f.shim), f.shim.error};
    evidence.insert(evidence.end(), f.shim.elf_problems.begin(), f.shim.elf_problems.end());
    return stage_fail("library", title, paths::basename(f.shim.path).data() + std::string(" does not load: ") + why,
                      make_finding("verify.library.load_failed", Severity::kError,
                                   std::string(paths::basename(f.shim.path)) + " does not load: " + why,
                                   "No program can use this copy.", evidence, {fix_reinstall}));
  }

  std::vector<std::string> evidence;
  evidence.push_back("cudnn " + describe_load(f.shim));
  for (const auto& l : f.sublibraries) {
    if (l.present) evidence.push_back(l.component + " " + describe_load(l));
  }

  // Missing or unloadable sub-libraries.
  std::vector<std::string> missing, broken, broken_evidence;
  for (const auto& l : f.sublibraries) {
    if (!l.present) {
      missing.push_back(std::string(paths::basename(l.path)));
    } else if (!l.loaded) {
      broken.push_back(std::string(paths::basename(l.path)) + " (" + explain_load_error(l.error) + ")");
      broken_evidence.push_back(describe_load(l) + ": " + l.error);
      for (const auto& p : l.elf_problems) broken_evidence.push_back(std::string(paths::basename(l.path)) + ": " + p);
    }
  }
  // A sub-library that needs symbols its siblings lack was built for another release: the
  // loader says "undefined symbol: ..., version libcudnn_graph.so.9".
  std::vector<std::string> foreign;
  for (const auto& l : f.sublibraries) {
    if (l.present && !l.loaded && contains(l.error, "undefined symbol") && contains(l.error, "version libcudnn")) {
      foreign.push_back(std::string(paths::basename(l.path)));
    }
  }
  if (!foreign.empty()) {
    std::string list;
    for (const auto& m : foreign) list += (list.empty() ? "" : ", ") + m;
    return stage_fail("library", title, "sub-library from another cuDNN release: " + list,
                      make_finding("verify.library.sublibrary_version_mismatch", Severity::kError,
                                   "cuDNN sub-libraries come from different versions: " + list,
                                   list + " needs symbols that the other sub-libraries of this copy (" +
                                       (f.version.known() ? f.version.str() : std::string("?")) +
                                       ") do not have, so it belongs to another release. Programs fail with "
                                       "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED or abort.",
                                   broken_evidence,
                                   {"Replace " + list + " with the file from the same release as the rest of " +
                                        f.lib_dir + ", or " + fix_reinstall}));
  }
  if (!broken.empty()) {
    std::string list;
    for (const auto& b : broken) list += (list.empty() ? "" : ", ") + b;
    return stage_fail("library", title, "sub-library does not load: " + list,
                      make_finding("verify.library.sublibrary_broken", Severity::kError,
                                   "cuDNN sub-library does not load: " + list,
                                   "cuDNN loads its sub-libraries on first use; programs fail with "
                                   "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED or abort when they reach it.",
                                   broken_evidence, {fix_reinstall}));
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    return stage_fail("library", title, "sub-library missing from " + f.lib_dir + ": " + list,
                      make_finding("verify.library.sublibrary_missing", Severity::kError,
                                   "cuDNN sub-library missing: " + list,
                                   "cuDNN loads its sub-libraries by name from the shim's directory; without them "
                                   "it falls back to whatever the loader finds elsewhere, or fails.",
                                   {f.lib_dir}, {fix_reinstall}));
  }

  // Every libcudnn* in the process must come from the copy's directory.
  std::vector<std::string> strays;
  for (const auto& m : f.loaded_modules) {
    if (is_cudnn_module(m) && paths::normalize(paths::parent(m)) != paths::normalize(f.lib_dir)) strays.push_back(m);
  }
  if (!strays.empty()) {
    std::vector<std::string> ev = strays;
    ev.insert(ev.begin(), "copy directory: " + f.lib_dir);
    return stage_fail("library", title, "cuDNN libraries from another directory were loaded",
                      make_finding("verify.library.mixed_copies", Severity::kError,
                                   "cuDNN libraries from two copies are mixed in one process",
                                   "Sub-libraries from another copy answer calls meant for this one; results and "
                                   "version checks become unpredictable.",
                                   ev, {"Remove the other copy's directory from LD_LIBRARY_PATH (or PATH on Windows), "
                                        "or install the missing files into " + f.lib_dir + "."}));
  }

  // Sub-library versions: the 9.x version-check entry points, and versions in file names.
  for (const auto& [name, status] : f.version_checks) {
    if (status == 0) continue;
    CudnnStatusDecoded info = decode_cudnn_status(status, f.major);
    std::vector<std::string> ev = {name + "() returned " + std::to_string(status) + " (" + info.name + ")"};
    ev.insert(ev.end(), evidence.begin(), evidence.end());
    return stage_fail("library", title, name + " failed: " + info.name,
                      make_finding("verify.library.sublibrary_version_mismatch", Severity::kError,
                                   "cuDNN sub-libraries come from different versions",
                                   info.meaning + ". Programs fail with " + info.name + ".", ev,
                                   {fix_reinstall, info.fix}));
  }
  if (f.version.known()) {
    for (const auto& l : f.sublibraries) {
      Version v = version_from_file_name(l.real_path.empty() ? l.path : l.real_path);
      if (v.known() && !(v.truncated(3) == f.version.truncated(3))) {
        return stage_fail("library", title,
                          std::string(paths::basename(l.path)) + " is " + v.str() + " but the shim is " +
                              f.version.str(),
                          make_finding("verify.library.sublibrary_version_mismatch", Severity::kError,
                                       "cuDNN sub-libraries come from different versions",
                                       "A sub-library's file name says another release than the shim reports.",
                                       {describe_load(l), "shim cudnnGetVersion(): " + f.version.str()},
                                       {fix_reinstall}));
      }
    }
  }
  int loaded_count = 0;
  for (const auto& l : f.sublibraries) loaded_count += l.loaded ? 1 : 0;
  StageResult s = stage_pass("library", title,
                             std::string(paths::basename(f.shim.path)) + " and " + std::to_string(loaded_count) +
                                 " sub-libraries loaded from " + f.lib_dir);
  s.evidence = evidence;
  for (const auto& [name, status] : f.version_checks) s.evidence.push_back(name + "() = " + std::to_string(status));
  if (!f.missing_symbols.empty()) {
    std::string list;
    for (const auto& m : f.missing_symbols) list += (list.empty() ? "" : ", ") + m;
    s.evidence.push_back("missing API symbols: " + list);
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// versions

StageResult check_versions(const VersionFacts& f) {
  const char* title = "Versions agree (header, library, CUDA runtime, driver, GPU)";
  Version lib = decode_cudnn_version_number(f.library_number);
  Version cudart = decode_cuda_version_number(f.cudart_number);
  std::vector<std::string> ev;
  ev.push_back("cudnnGetVersion() = " + std::to_string(f.library_number) + " (" + lib.str() + ")");
  ev.push_back("cudnnGetCudartVersion() = " + std::to_string(f.cudart_number) + " (CUDA " + cudart.str() + ")");
  if (f.max_device_version) ev.push_back("cudnnGetMaxDeviceVersion() = " + std::to_string(f.max_device_version));
  if (f.header) ev.push_back("header " + f.header->str());
  if (f.toolkit) ev.push_back("nvcc " + f.toolkit->str());
  Version driver_cuda = f.driver_cuda_number ? decode_cuda_version_number(f.driver_cuda_number) : Version{};
  if (f.driver_cuda_number) ev.push_back("driver supports CUDA " + driver_cuda.str());
  if (f.gpu_cc) ev.push_back("GPU " + f.gpu_name + " compute capability " + f.gpu_cc->str());

  if (f.header && !(f.header->truncated(3) == lib.truncated(3))) {
    return stage_fail("versions", title, "header says " + f.header->str() + ", library is " + lib.str(),
                      make_finding("verify.versions.header_library_mismatch", Severity::kError,
                                   "cuDNN header and library versions differ",
                                   "Code compiled with these headers calls a library of another version; "
                                   "frameworks refuse to start or fail at the first cuDNN call.",
                                   ev, {"Use headers and libraries from the same copy: reinstall the copy's "
                                        "development files, or point the include path at the copy's include/."}));
  }
  if (f.driver_cuda_number && cudart.known() && driver_cuda.major() < cudart.major()) {
    return stage_fail("versions", title,
                      "cuDNN was built for CUDA " + cudart.str() + " but the driver supports only CUDA " +
                          driver_cuda.str(),
                      make_finding("verify.versions.driver_too_old", Severity::kError,
                                   "The NVIDIA driver is too old for this cuDNN",
                                   "cuDNN needs a driver that supports its CUDA major version.", ev,
                                   {"Update the NVIDIA driver to one that supports CUDA " +
                                        std::to_string(cudart.major()) + ".",
                                    "Or install the cuDNN build for CUDA " + std::to_string(driver_cuda.major()) +
                                        " (`cudnnup install <version> --cuda " +
                                        std::to_string(driver_cuda.major()) + "`)."}));
  }
  if (f.gpu_cc && f.max_device_version) {
    long long gpu = f.gpu_cc->major() * 100LL + f.gpu_cc->minor() * 10LL;
    if (gpu > f.max_device_version) {
      return stage_fail("versions", title,
                        "GPU compute capability " + f.gpu_cc->str() + " is newer than this cuDNN supports (" +
                            std::to_string(f.max_device_version) + ")",
                        make_finding("verify.versions.gpu_too_new", Severity::kError,
                                     "This cuDNN does not support the GPU",
                                     "cudnnGetMaxDeviceVersion() is below the GPU's compute capability.", ev,
                                     {"Install a newer cuDNN (`cudnnup install latest`)."}));
    }
  }
  StageResult s = stage_pass("versions", title, "cuDNN " + lib.str() + " for CUDA " + cudart.str());
  s.evidence = ev;
  if (f.toolkit && cudart.known() && f.toolkit->major() != cudart.major()) {
    s.finding = make_finding("verify.versions.toolkit_cuda_major", Severity::kWarning,
                             "nvcc is CUDA " + f.toolkit->str() + " but this cuDNN was built for CUDA " + cudart.str(),
                             "Fine for running programs; code you build with this nvcc should use a cuDNN built for "
                             "its CUDA major.",
                             ev, {"Install the cuDNN build for CUDA " + std::to_string(f.toolkit->major()) +
                                  " to build with this toolkit."});
    s.finding->subject = "versions";
  }
  return s;
}

}  // namespace cudnnup
