// The nouns of cudnnup (docs/design.md): plain structs, no I/O. Discovery fills them, checks read
// them, renderers print them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/fix.h"
#include "base/version.h"

namespace cudnnup {

enum class Severity { kInfo, kWarning, kError };
const char* severity_name(Severity s);

// One thing cudnnup has to say, with the evidence and the fix as commands.
struct Finding {
  std::string id;        // stable, e.g. "cudnn.header_library_mismatch" (docs/json-schema.md)
  Severity severity = Severity::kInfo;
  std::string subject;   // what it is about: "driver", a toolkit root, a cuDNN copy root
  std::string title;     // one line
  std::string detail;    // why it matters
  std::vector<std::string> evidence;  // paths and versions
  std::vector<FixStep> fix;           // commands or steps, in order (base/fix.h)
};

struct Gpu {
  int index = 0;
  std::string name;
  Version compute_capability;  // 9.0 for H200
  uint64_t memory_bytes = 0;
};

struct DriverInfo {
  bool present = false;
  Version version;          // 580.159.4 (numeric parts; display keeps the original string)
  std::string version_text; // "580.159.04" as the driver prints it
  Version cuda_version;     // highest CUDA the driver supports (cuDriverGetVersion)
  std::vector<Gpu> gpus;
  std::string source;       // "nvml", "cuda driver api", "/proc/driver/nvidia/version"
  std::string libcuda_path;
  std::string nvml_path;
  std::string problem;      // why the driver could not be asked, when it could not
};

struct Toolkit {
  std::string root;          // canonical path
  std::vector<std::string> aliases;  // other paths that lead here (/usr/local/cuda)
  Version version;
  std::string version_source;  // "version.json", "cuda.h", "dist-info", "nvcc"
  std::string nvcc;            // path to nvcc, when present
  std::vector<std::string> found_via;
};

enum class PackageForm { kToolkitMerged, kArchiveTree, kPipWheel, kConda, kSystemPackage, kStore, kInstaller, kUnknown };
const char* package_form_name(PackageForm f);

// One libcudnn*.so* / cudnn*.dll file of a copy.
struct CudnnLibrary {
  std::string component;     // "cudnn" (shim), "graph", "ops", "cnn_infer", ...
  std::string path;          // as found (not resolved)
  std::string real_path;     // after following links
  int major = 0;             // from the name: libcudnn_ops.so.9 -> 9
  Version version_from_name; // libcudnn_ops.so.9.14.0 -> 9.14.0 (when the name has it); Windows: VERSIONINFO
  std::string soname;
  uint64_t size = 0;
  bool is_link = false;
  bool dangling = false;
  std::vector<std::string> problems;  // empty file, not ELF, truncated, wrong machine
};

// What the probe child learned by loading the shim library.
struct LibraryProbe {
  bool attempted = false;
  bool loaded = false;
  std::string failure;      // dlopen error, or how the child died
  Version version;          // cudnnGetVersion()
  long long version_number = 0;
  Version cudart_version;   // cudnnGetCudartVersion()
  long long max_device_version = 0;  // cudnnGetMaxDeviceVersion(), 9.x; 0 when absent
  // Every file the probe process had mapped after loading (core/child/mapped_files.h says which
  // copy each cuDNN file belongs to). The child runs in the copy's loader environment
  // (core/child/loader_environment.h), so normally every cuDNN file among them is the copy's own.
  std::vector<std::string> mapped_files;
  // False when a mapped cuDNN file came from elsewhere: then the numbers above were cleared (they
  // are another copy's) and isolation_problem says which file came from where.
  bool isolated = true;
  std::string isolation_problem;
  // Set when the answer came from the probe cache (core/diagnose/probe_cache.h): when the child
  // that gave it ran (UTC, ISO 8601). Empty when a child ran in this run.
  std::string cached_from;
};

struct CudnnCopy {
  std::string root;        // the installation's top dir (toolkit root, site-packages/nvidia/cudnn, ...)
  std::string lib_dir;     // canonical dir holding the libraries
  bool shares_folder = false;  // lib_dir also holds libraries that are not cuDNN's (`cudnnup env` keeps such a folder)
  std::string include_dir; // where the headers are, when found
  PackageForm form = PackageForm::kUnknown;
  std::string package;     // "nvidia-cudnn-cu13 9.19.0.56", "libcudnn9-cuda-13", ... when known
  std::vector<std::string> found_via;  // "toolkit /usr/local/cuda-13.0", "ld.so.cache", ...
  Version header_version;
  std::string header_path;
  Version library_version;     // from the probe when it ran, else from file names
  std::string library_version_source;
  int cuda_major = 0;          // CUDA major it was built for (0 = unknown)
  std::string cuda_major_source;
  std::vector<CudnnLibrary> libraries;
  LibraryProbe probe;
  int major() const { return library_version.known() ? library_version.major() : header_version.major(); }
  // The major its file names carry (libcudnn.so.8 -> 8): what a program asks the loader for.
  // Discovery groups a folder's files by it; 0 when no file names one.
  int name_major() const {
    for (const auto& lib : libraries) {
      if (lib.major > 0) return lib.major;
    }
    return 0;
  }
};

struct ScanIssue {
  std::string path;
  std::string message;
};

struct Report {
  std::string os;                  // "linux", "windows"
  DriverInfo driver;
  std::vector<Toolkit> toolkits;
  std::vector<CudnnCopy> copies;
  std::vector<Finding> findings;
  std::vector<std::string> searched_dirs;  // every directory looked at, in order
  std::vector<ScanIssue> scan_issues;      // unreadable dirs etc.; the scan carried on
  std::string rules_version;
};

}  // namespace cudnnup
