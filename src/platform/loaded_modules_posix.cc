#include <fstream>
#include <set>
#include <string>

#include "platform/loaded_modules.h"

namespace cudnnup {

std::vector<std::string> loaded_module_paths() {
  // The same format binfmt/proc_maps.h reads for other processes: address perms offset dev inode
  // path; mapped files are the lines with a path (anonymous maps, [heap], [vdso] have none).
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  const std::string deleted = " (deleted)";
  while (std::getline(maps, line)) {
    size_t slash = line.find(" /");
    if (slash == std::string::npos) continue;
    std::string path = line.substr(slash + 1);
    if (path.size() > deleted.size() && path.compare(path.size() - deleted.size(), deleted.size(), deleted) == 0) {
      path.erase(path.size() - deleted.size());
    }
    if (seen.insert(path).second) out.push_back(path);
  }
  return out;
}

}  // namespace cudnnup
