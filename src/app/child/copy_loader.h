// Shared by the verify and bench children: loads a cuDNN copy the way programs do, and keeps it
// loaded for the life of the process; finds libcuda. Only child processes call this, in the
// loader environment their parent set (core/child/loader_environment.h).
//
// The order: every file's ELF headers are checked first (the loader maps a truncated file and
// dies with SIGBUS touching the missing pages); then the shim is loaded by absolute path and its
// sub-library version checks are called, so the shim loads its sub-libraries by name as in real
// use; then each sub-library is loaded by absolute path too (what is already mapped is only
// counted again; what the shim did not load gets the loader's own error message); last, every
// file mapped into the process is listed.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "adapters/cudnn_api.h"
#include "app/cli/app_context.h"
#include "gpu/verify_checks.h"
#include "platform/dynamic_library.h"

namespace cudnnup {

struct LoadedCopy {
  bool located = false;
  std::string locate_error;
  LibrarySetFacts facts;            // input of check_library_set
  std::optional<CudnnApi> api;      // set when the shim loaded
};

// `note` (optional) hears what is about to happen ("loading X", "calling cudnnOpsVersionCheck"),
// so a crash inside a library's initialisation can be pinned on it.
LoadedCopy load_copy(const AppContext& ctx, const std::string& path,
                     const std::function<void(const std::string&)>& note = {});

// --libcuda when given, else LD_LIBRARY_PATH entries, else the usual driver locations.
std::string pick_libcuda(const AppContext& ctx, const std::string& requested);

}  // namespace cudnnup
