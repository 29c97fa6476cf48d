// `cudnnup list --available`: the cuDNN releases a mirror offers for this platform.
#pragma once

#include <string>

#include "app/cli/app_context.h"

namespace cudnnup {

struct AvailableOptions {
  std::string mirror;  // --mirror; "" = $CUDNNUP_MIRROR, else NVIDIA's
  int cuda = 0;        // --cuda: only builds for this CUDA major; 0 = all
  bool all = false;    // every listed release, not only the newest
};

int run_list_available(AppContext& ctx, const AvailableOptions& options);

}  // namespace cudnnup
