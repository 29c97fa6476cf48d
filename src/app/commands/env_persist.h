// `cudnnup env --persist` / `--unpersist`: the selected cuDNN's bin dir in the user PATH that
// every program started later gets (Windows registry, HKCU\Environment\Path, REG_EXPAND_SZ),
// then WM_SETTINGCHANGE; or, with --dir, any folder (what doctor's windows.cudnn_not_on_path fix
// prints for a toolkit's bin). The PATH edit itself is core/persistent_path.h.
#pragma once

#include <optional>
#include <string>

#include "app/cli/app_context.h"

namespace cudnnup {

struct PersistOptions {
  bool persist = false;    // --persist
  bool unpersist = false;  // --unpersist
  bool dry_run = false;
  std::optional<std::string> version;  // --version
  // --dir: this folder (a cuDNN bin folder outside the store, e.g. a CUDA toolkit's bin) instead
  // of the selected version's; cudnnup's store entries are then left as they are.
  std::optional<std::string> dir;
};

int run_env_persist(AppContext& ctx, const PersistOptions& opt);

}  // namespace cudnnup
