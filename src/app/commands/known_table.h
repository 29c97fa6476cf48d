// The table of NVIDIA archives a run checks against (built in, plus the rows refreshed into the
// store by `archive-info --update-known`), and the refresh itself.
#pragma once

#include <string>
#include <vector>

#include "app/cli/app_context.h"
#include "facts/known_archives.h"

namespace cudnnup {

Result<std::vector<KnownArchive>> known_archives_for(const AppContext& ctx);

struct UpdateKnownOptions {
  std::string mirror;  // "" = $CUDNNUP_MIRROR, else NVIDIA's
  bool dry_run = false;
};
int run_update_known(AppContext& ctx, const UpdateKnownOptions& options);

}  // namespace cudnnup
