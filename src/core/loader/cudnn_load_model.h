// cuDNN's own run-time loading, on top of the glibc simulation, and what cuDNN then checks.
//
// Loading, observed on cuDNN 9.19 (LD_DEBUG=libs, readelf, strings on /usr/local/cuda-13.0/lib;
// docs/commands/which.md): the shim libcudnn.so.9 (DT_RUNPATH $ORIGIN) dlopen()s graph (in its
// constructor), then ops, cnn and adv by bare name, trying "libcudnn_graph.so.9.19.0", then
// "libcudnn_graph.so.9.19", "libcudnn_graph.so.9" and "libcudnn_graph.so"; libcudnn_graph.so.9
// loads the engine and heuristic libraries the same way. Each dlopen searches with the caller's
// paths, so LD_LIBRARY_PATH beats the shim's own directory. The sub-libraries themselves have
// DT_NEEDED libcudnn_graph.so.9 (cnn and adv also libcudnn_ops.so.9) and DT_RUNPATH $ORIGIN: a
// graph library already in the process (preloaded, or loaded first from elsewhere) is the one
// they bind to, whatever directory their own files come from.
//
// What cuDNN compares (cudnn_graph.h: "Each sublib checks whether its own version matches that
// of its dependencies"; in 9.19's code: cudnnOpsVersionCheck compares the bound data symbol
// cudnn_graph_version with its own major.minor.patch, cnn's and adv's checks compare
// cudnn_ops_infer_version the same way; tests/disk/cudnn_version_check_test.cc checks this
// against the real libraries). A mismatch makes the first call into that sub-library return
// CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH (1002). Nothing else is compared: files of the SAME
// version from two copies pass, and the engine/heuristic libraries are not checked at all.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/filesystem.h"
#include "base/version.h"
#include "loader/glibc_resolver.h"

namespace cudnnup {

// Which object a sub-library's references to another cuDNN library bind to.
struct CudnnBinding {
  std::string dependency;        // the component referred to: "graph", "ops"
  std::string file;              // canonical path of the object it binds to; "" when none is loaded
  std::optional<Version> version;
  bool checked = false;          // cuDNN compares the two versions (exact major.minor.patch)
  bool from_other_copy = false;  // `file` is not in the sub-library's own directory
  std::string how;               // "global scope: LD_PRELOAD", "its DT_NEEDED libcudnn_graph.so.9", ...
};

struct CudnnSubLibrary {
  std::string component;          // "graph", "ops", ...
  std::string requested_by;       // path of the object that dlopen()s it
  std::vector<std::string> names_tried;  // in order, until one loads
  Resolution resolution;          // of the name that loaded (or of the last name tried)
  bool from_other_copy = false;   // its file's directory differs from the shim's
  std::optional<Version> version; // of its file
  std::string version_source;
  std::vector<CudnnBinding> bindings;  // its references to other cuDNN libraries
};

enum class CudnnCheck { kPasses, kFails, kUnknown };
const char* cudnn_check_name(CudnnCheck check);  // "passes", "fails", "unknown"

struct CudnnLoad {
  Resolution shim;
  std::optional<Version> shim_version;
  std::string version_source;     // "file name", "cudnn_version.h at X", "dist-info X"
  std::vector<CudnnSubLibrary> sub_libraries;
  // Some sub-library file, or some binding, comes from another copy (directory) than the shim.
  bool mixed = false;
  // A binding crosses copies although the bound sub-library's own file is from the shim's copy.
  bool binding_mixed = false;
  // cuDNN's own sub-library version check, predicted from the versions of the bound files.
  CudnnCheck check = CudnnCheck::kUnknown;
  std::vector<std::string> check_detail;  // one line per compared pair that fails or is unknown
  // What cudnnGetVersion() will answer: 9.x forwards it to the graph library that loaded.
  std::optional<Version> reported_version;
  std::vector<std::string> notes;
};

// The version of the cuDNN copy a shim belongs to, read without loading it: the versioned file
// name (libcudnn.so.9.14.0), a cudnn_version.h next to the copy (../include, the pip layout), or
// the pip dist-info directory (nvidia_cudnn_cu13-9.19.0.56.dist-info).
std::optional<Version> cudnn_copy_version(const FileSystem& fs, const std::string& shim_path, std::string* source);

// The version of one cuDNN library file: its own versioned name, else its copy's version.
std::optional<Version> cudnn_file_version(const FileSystem& fs, const std::string& path, std::string* source);

// Sets load.check and load.check_detail from the sub-libraries' versions and bindings.
void judge_cudnn_versions(CudnnLoad& load);

// Models the sub-library loads of the shim already mapped in `sim` (resolved by `shim`), the
// bindings of each sub-library, and cuDNN's version check. Maps what it loads into `sim`.
CudnnLoad model_cudnn_loading(const FileSystem& fs, LoaderSimulation& sim, const Resolution& shim);

}  // namespace cudnnup
