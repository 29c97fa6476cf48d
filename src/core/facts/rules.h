// The compatibility facts the checks use, loaded from data/rules.json (embedded at build time,
// replaceable with --db FILE). Each row keeps its source so findings can cite it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/fix.h"
#include "base/result.h"
#include "base/version.h"

namespace cudnnup {

struct DriverMinimum {        // CUDA toolkit major.minor -> lowest driver that runs it
  Version cuda;               // 13.0
  Version linux_driver;       // 580.65.06
  Version windows_driver;
  std::string source;
};

struct MajorDriverMinimum {   // CUDA major -> lowest driver under minor-version compatibility
  int cuda_major = 0;
  Version linux_driver, windows_driver;
  std::string source;
};

struct CudaVariantRange {     // cuDNN releases built for a CUDA major
  int cuda_major = 0;
  Version first, last;        // inclusive; last empty = still current
  std::string source;
};

struct ComputeCapabilityRule {  // lowest GPU compute capability a cuDNN build supports
  Version cudnn_first, cudnn_last;  // cuDNN range (inclusive)
  int cuda_major = 0;               // 0 = any
  Version min_cc;
  std::string source;
};

struct FirstCudaForArchitecture {  // the first CUDA toolkit that builds native code for a GPU architecture
  Version cc;                       // 7.5: the architecture's first compute capability
  Version cuda;                     // 10.0
  std::string source;
};

struct KnownBadRelease {
  Version cudnn;              // prefix match: 9.0 matches 9.0.x
  std::string platform;       // "linux", "windows", "" = any
  std::string problem;
  std::string fix;                 // what to do, in words
  std::vector<FixStep> fix_steps;  // then the commands (base/fix.h's data form: "fix_steps")
  std::string source;
};

struct ExpectedLibrary {
  std::string component;      // "cudnn", "graph", "ops_infer", ...
  Version since;              // first release that ships it (empty = every release of the major)
  bool optional = false;      // loaded when present, never required ("ext")
  std::string loaded_by;      // the component that dlopen()s it on Linux; "" = the shim
  std::string source;
};

// cuDNN releases whose Windows DLLs import zlibwapi.dll (zlib's Windows API build): from `first`
// up to, not including, `linked_in_from`, which links zlib in. doctor decides by each DLL's
// import table; this range is what it tells the user, with its source.
struct ZlibwapiReleases {
  Version first, linked_in_from;
  std::string source;
  bool covers(const Version& cudnn) const;
  // "cuDNN 8.3.0 up to (not including) 9.2.0"
  std::string describe() const;
};

// What a framework's own documentation says about NVIDIA GPUs on native Windows.
struct WindowsFrameworkSupport {
  std::string framework;     // "tensorflow", "jax"
  Version last_gpu_release;  // the last release with GPU support there; unknown: none ever had it
  std::string gpu;           // the sentence for people
  std::string source;
};

// TensorFlow's tested GPU builds on native Windows: releases first..last (major.minor) were
// built with this cuDNN and CUDA.
struct TensorflowWindowsBuild {
  Version first, last, cudnn, cuda;
};

struct Rules {
  int schema = 0;
  std::string data_version;
  std::vector<DriverMinimum> driver_minimums;
  std::vector<MajorDriverMinimum> major_driver_minimums;
  std::vector<CudaVariantRange> cuda_variants;
  std::vector<ComputeCapabilityRule> compute_capability;
  std::vector<FirstCudaForArchitecture> first_cuda_for_cc;
  std::vector<KnownBadRelease> known_bad;
  std::vector<std::pair<int, std::vector<ExpectedLibrary>>> expected_libraries;  // by cuDNN major
  ZlibwapiReleases windows_zlibwapi;
  std::vector<WindowsFrameworkSupport> frameworks_on_windows;
  std::vector<TensorflowWindowsBuild> tensorflow_windows_gpu_builds;
  std::string tensorflow_windows_gpu_builds_source;

  // Components a release must have, the shim ("cudnn") first, in the order cuDNN loads them;
  // empty when the major is unknown to the rules. A version of only the major (Version{9})
  // gets the components every release of that major has.
  std::vector<std::string> expected_components(const Version& cudnn) const;
  // Every component the rules know for a major, required or not.
  std::vector<const ExpectedLibrary*> known_components(int major) const;
  const DriverMinimum* driver_minimum_for(const Version& cuda) const;  // exact major.minor row
  const WindowsFrameworkSupport* windows_support_of(const std::string& framework) const;
  // The tested Windows GPU build of a TensorFlow release (compared by major.minor), or null.
  const TensorflowWindowsBuild* tensorflow_windows_build_for(const Version& tensorflow) const;
  const MajorDriverMinimum* major_driver_minimum_for(int cuda_major) const;
  const CudaVariantRange* cuda_variant_for(int cuda_major) const;
  // Lowest compute capability the cuDNN release supports, with the rule that says so.
  const ComputeCapabilityRule* compute_capability_rule_for(const Version& cudnn, int cuda_major) const;
  // The first CUDA that builds for a GPU of this compute capability: the row of its major at or
  // below its minor (a cubin for 8.0 runs on 8.6). nullptr for GPUs older than every row.
  const FirstCudaForArchitecture* first_cuda_for(const Version& cc) const;
};

Result<Rules> parse_rules(std::string_view json_text, const std::string& origin);
// The rules compiled into the binary.
const Rules& builtin_rules();
// The built-in rules' data_version alone, without parsing them (for --version).
std::string builtin_rules_version();

}  // namespace cudnnup
