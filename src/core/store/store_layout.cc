#include "store/store_layout.h"

#include "base/paths.h"

namespace cudnnup {

StoreLayout StoreLayout::for_environment(const Environment& env) {
  StoreLayout layout;
  if (auto home = env.get("CUDNNUP_HOME"); home && !home->empty()) {
    layout.root = paths::normalize(*home);
  } else if (env.windows()) {
    auto local = env.get("LOCALAPPDATA");
    layout.root = paths::normalize(local && !local->empty() ? *local + "/cudnnup" : env.home + "/AppData/Local/cudnnup");
  } else if (auto xdg = env.get("XDG_DATA_HOME"); xdg && !xdg->empty() && paths::is_absolute(*xdg)) {
    layout.root = paths::normalize(*xdg + "/cudnnup");
  } else {
    layout.root = paths::normalize(env.home + "/.local/share/cudnnup");
  }
  return layout;
}

}  // namespace cudnnup
