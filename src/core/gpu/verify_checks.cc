#include "gpu/verify_checks.h"

#include <algorithm>
#include <regex>

#include "facts/cudnn_status.h"
#include "facts/install_fix.h"
#include "base/paths.h"
#include "base/strings.h"

namespace cudnnup {

namespace {

Finding make_finding(std::string id, Severity severity, std::string title, std::string detail,
                     std::vector<std::string> evidence, std::vector<FixStep> fix) {
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
                                   {fix::step("Reinstall the CUDA toolkit, or take " + paths::parent(facts.nvcc_path) +
                                              " off PATH.")}));
  }
  auto v = parse_nvcc_version(facts.output);
  if (!v) {
    return stage_fail("toolkit", title, "nvcc ran but printed no version",
                      make_finding("verify.toolkit.nvcc_unreadable", Severity::kError, "nvcc printed no version",
                                   "The toolkit may be damaged.", {facts.nvcc_path, facts.output},
                                   {fix::run({facts.nvcc_path, "--version"}), fix::step("Reinstall the toolkit if it fails.")}));
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
                                   {facts.path}, {fix::step("Reinstall the copy's development files (headers).")}));
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
  if (contains(msg, ", which is damaged")) return "it needs a damaged sub-library";
  static const std::regex dependency(R"(^([^:]+): cannot open shared object file)");
  std::smatch m;
  if (std::regex_search(msg, m, dependency)) return "a library it needs is missing: " + m[1].str();
  if (contains(msg, "No such file")) return "the file does not exist";
  if (contains(msg, "Permission denied")) return "permission denied";
  return "the loader refused it";
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
                                   ev, {fix::step("Use headers and libraries from the same copy: reinstall the copy's "
                                                  "development files, or point the include path at the copy's include/.")}));
  }
  if (f.driver_cuda_number && cudart.known() && driver_cuda.major() < cudart.major()) {
    return stage_fail("versions", title,
                      "cuDNN was built for CUDA " + cudart.str() + " but the driver supports only CUDA " +
                          driver_cuda.str(),
                      make_finding("verify.versions.driver_too_old", Severity::kError,
                                   "The NVIDIA driver is too old for this cuDNN",
                                   "cuDNN needs a driver that supports its CUDA major version.", ev,
                                   {fix::step("Update the NVIDIA driver to one that supports CUDA " +
                                              std::to_string(cudart.major()) + "."),
                                    fix::step("Or install the cuDNN build for CUDA " + std::to_string(driver_cuda.major()) + ":"),
                                    install_fix(lib, driver_cuda.major())}));
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
                                     {fix::step("Install a newer cuDNN:"),
                                      install_newest_fix(lib.major(), cudart.major(), f.windows)}));
    }
  }
  StageResult s = stage_pass("versions", title, "cuDNN " + lib.str() + " for CUDA " + cudart.str());
  s.evidence = ev;
  if (f.toolkit && cudart.known() && f.toolkit->major() != cudart.major()) {
    s.finding = make_finding("verify.versions.toolkit_cuda_major", Severity::kWarning,
                             "nvcc is CUDA " + f.toolkit->str() + " but this cuDNN was built for CUDA " + cudart.str(),
                             "Fine for running programs; code you build with this nvcc should use a cuDNN built for "
                             "its CUDA major.",
                             ev, {fix::step("Install the cuDNN build for CUDA " + std::to_string(f.toolkit->major()) +
                                            " to build with this toolkit:"),
                                  install_fix(lib, f.toolkit->major())});
    s.finding->subject = "versions";
  }
  return s;
}

}  // namespace cudnnup
