// cuDNN copies on this machine that cudnnup does not manage (toolkits, pip wheels, conda, system
// packages), as the doctor finds them; `cudnnup list` shows them next to the store.
#pragma once

#include <string>
#include <vector>

#include "app/cli/app_context.h"
#include "store/store_layout.h"

namespace cudnnup {

struct UnmanagedCopy {
  std::string root;
  std::string lib_dir;
  std::string version;  // "9.19.0", or "" when unknown
  std::string form;     // "toolkit", "pip", "conda", "system", "archive", "unknown"
};

Result<std::vector<UnmanagedCopy>> find_unmanaged_copies(AppContext& ctx, const StoreLayout& layout);

}  // namespace cudnnup
