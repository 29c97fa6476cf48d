// Shared by the verify and bench children: loads a cuDNN copy's sub-libraries and shim by
// absolute path (sub-libraries first, so the shim's by-name loads get these) and keeps them
// loaded for the life of the process; finds libcuda. Only child processes call this.
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

// `before_load` (optional) hears each path just before it is handed to the loader, so a crash
// inside a library's initialisation can be pinned on that file.
LoadedCopy load_copy(const AppContext& ctx, const std::string& path,
                     const std::function<void(const std::string&)>& before_load = {});

// --libcuda when given, else LD_LIBRARY_PATH entries, else the usual driver locations.
std::string pick_libcuda(const AppContext& ctx, const std::string& requested);

}  // namespace cudnnup
