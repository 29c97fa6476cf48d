// Deep-learning frameworks inspected without importing them: which cuDNN each was built for,
// which copy it would load (through the glibc simulation, following each framework's own
// loading code for its version: preloads by path, FLAGS_cudnn_dir, the library that calls
// dlopen), and whether that pair passes the framework's own run-time check as its code applies
// it (sources in the per-framework files framework_*.cc). On Windows the same reports come from
// loader/windows/frameworks_windows.h (the DLL search order, each framework's Windows loading).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/environment.h"
#include "base/filesystem.h"
#include "base/version.h"
#include "discover/python_envs.h"
#include "loader/which.h"

namespace cudnnup {

struct FrameworkReport {
  std::string framework;         // "torch", "tensorflow", "jax", "onnxruntime", "paddle"
  std::string version;           // "2.9.0+cu130"
  std::string variant;           // "" or, when one install loads cuDNN two ways, which: "preload_dlls()"
  std::string applies_when;      // when this answer applies ("a program that calls onnxruntime.preload_dlls()")
  std::string env_prefix;        // the Python environment
  std::string interpreter;
  std::string site_packages;
  std::string cuda_version;      // what it was built with, when it says
  std::optional<Version> built_cudnn;  // may be a major only (TensorFlow build_info says "9")
  std::string built_cudnn_source;      // "torch-2.9.0.dist-info/METADATA: nvidia-cudnn-cu13==9.13.0.50"
  std::string loading_library;   // the file whose loading brings cuDNN in
  std::optional<WhichReport> load;     // the copy it would load (empty: not a CUDA build / nothing to load)
  std::optional<Version> loaded_cudnn; // version of that copy, read from files
  std::string rule;              // the framework's own check, as its code applies it
  std::string rule_source;       // the file (and version) the rule is read from
  std::optional<bool> passes;    // nullopt: cannot tell (a version is unknown, or nothing loads)
  std::string verdict;           // one line for people
  std::vector<std::string> notes;
};

// Frameworks present in each environment's site-packages. `only` limits to names in it
// (e.g. {"torch"}); empty means all.
std::vector<FrameworkReport> inspect_frameworks(const FileSystem& fs, const Environment& env,
                                                const std::vector<PythonEnv>& envs,
                                                const std::vector<std::string>& only = {});

// The framework names `which --for` accepts.
const std::vector<std::string>& known_frameworks();

// Reads `Requires-Dist: nvidia-cudnn-cuNN<op>X` from a METADATA text: the operator and version.
struct CudnnPin {
  std::string package;  // "nvidia-cudnn-cu13"
  std::string op;       // "==", ">=", ...
  Version version;
  std::string line;
};
std::optional<CudnnPin> find_cudnn_pin(const std::string& metadata);

}  // namespace cudnnup
