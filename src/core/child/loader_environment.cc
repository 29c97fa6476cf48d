#include "child/loader_environment.h"

#include <algorithm>

namespace cudnnup {

std::map<std::string, std::string> child_loader_environment(const Environment& env, const std::string& lib_dir) {
  std::map<std::string, std::string> out = env.vars;
  if (env.windows()) {
    std::string dir = lib_dir;
    std::replace(dir.begin(), dir.end(), '/', '\\');
    auto path = env.get("PATH");
    out["PATH"] = path && !path->empty() ? dir + ";" + *path : dir;
    return out;
  }
  for (const char* name : {"LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH"}) out.erase(name);
  out["LD_LIBRARY_PATH"] = lib_dir;
  return out;
}

}  // namespace cudnnup
