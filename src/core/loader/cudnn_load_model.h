// cuDNN's own run-time loading, on top of the glibc simulation. Observed on cuDNN 9.19
// (LD_DEBUG=libs, readelf, strings; docs/commands/which.md): the shim libcudnn.so.9 (DT_RUNPATH
// $ORIGIN) dlopen()s graph, ops, cnn and adv by bare name, trying "libcudnn_graph.so.9.19.0",
// then "libcudnn_graph.so.9.19", then "libcudnn_graph.so.9"; libcudnn_graph.so.9 loads the
// engine and heuristic libraries the same way. Each dlopen searches with the caller's paths, so
// LD_LIBRARY_PATH beats the shim's own directory and a sub-library can come from another copy
// (CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/filesystem.h"
#include "loader/glibc_resolver.h"
#include "base/version.h"

namespace cudnnup {

struct CudnnSubLibrary {
  std::string component;          // "graph", "ops", ...
  std::string requested_by;       // path of the object that dlopen()s it
  std::vector<std::string> names_tried;  // in order, until one loads
  Resolution resolution;          // of the name that loaded (or of the last name tried)
  bool from_other_copy = false;   // its directory differs from the shim's
};

struct CudnnLoad {
  Resolution shim;
  std::optional<Version> shim_version;
  std::string version_source;     // "file name", "cudnn_version.h at X", "dist-info X"
  std::vector<CudnnSubLibrary> sub_libraries;
  bool mixed = false;             // some sub-library comes from another copy
  std::vector<std::string> notes;
};

// The version of the cuDNN copy a shim belongs to, read without loading it: the versioned file
// name (libcudnn.so.9.14.0), a cudnn_version.h next to the copy (../include, the pip layout), or
// the pip dist-info directory (nvidia_cudnn_cu13-9.19.0.56.dist-info).
std::optional<Version> cudnn_copy_version(const FileSystem& fs, const std::string& shim_path, std::string* source);

// Models the sub-library loads of the shim already mapped in `sim` (object index `shim_object`,
// resolved by `shim`). Maps what it loads into `sim`.
CudnnLoad model_cudnn_loading(const FileSystem& fs, LoaderSimulation& sim, const Resolution& shim);

}  // namespace cudnnup
