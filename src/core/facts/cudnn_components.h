// The cuDNN sub-libraries of each release, from the built-in rules data (data/rules.json,
// "expected_libraries", with its sources). Install, verify, doctor, `which` (Linux's load model
// and the Windows model) all take their lists from here, so they cannot disagree.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/version.h"
#include "facts/rules.h"

namespace cudnnup {

// Components a release must have, the shim ("cudnn") first. `release` may be only the major
// (Version{9}): then the components every release of that major has.
std::vector<std::string> required_cudnn_components(const Version& release);
// The same without the shim: the sub-libraries.
std::vector<std::string> required_cudnn_sublibraries(const Version& release);
// Sub-libraries cudnnup knows for the major but does not require of this release: loaded or
// listed when present (engines_tensor_ir before 9.21, ext).
std::vector<std::string> optional_cudnn_sublibraries(const Version& release);
// Every component name known for the major (required or not), the shim included.
std::vector<std::string> known_cudnn_components(int major);

// cuDNN 9's graph API library (libcudnn_graph): it loads the engine libraries, and when a shim's
// sub-libraries come from another copy, cudnnGetVersion() reports the graph library's copy
// (observed with the 9.19 wheel's shim and 9.14 sub-libraries: 91400).
inline constexpr const char* kCudnnGraphComponent = "graph";
// cuDNN 8's counterpart: the shim forwards its version calls to libcudnn_ops_infer.
inline constexpr const char* kCudnn8VersionComponent = "ops_infer";

// One sub-library load of cuDNN's shim on Linux: which component, and which component's
// library dlopen()s it ("" = the shim).
struct CudnnLoadStep {
  std::string component;
  std::string loaded_by;
};
// The loads that a release's shim sets off, in order (the required sub-libraries).
std::vector<CudnnLoadStep> cudnn_load_steps(const Version& release);

// Whether cuDNN compares the version of `component` with the `dependency` library it binds, and
// refuses (CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH) unless major.minor.patch are equal. cuDNN
// 9.19's code (objdump of /usr/local/cuda-13.0/lib; cudnn_graph.h: "Each sublib checks whether
// its own version matches that of its dependencies"): ops checks graph, cnn and adv check ops,
// nothing else; tests/disk/cudnn_version_check_test.cc asks the real libraries. cuDNN 8 has a
// cudnn*VersionCheck per sub-library too; it is taken to check every cuDNN library it needs.
bool cudnn_checks_version_of(int major, const std::string& component, const std::string& dependency);

}  // namespace cudnnup
