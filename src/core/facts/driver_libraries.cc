#include "facts/driver_libraries.h"

#include "base/paths.h"
#include "facts/machines.h"

namespace cudnnup {

DriverLibraryNames driver_library_names(bool windows) {
  if (windows) return {"nvcuda.dll", "nvml.dll"};
  return {"libcuda.so.1", "libnvidia-ml.so.1"};
}

std::vector<std::string> driver_library_dirs(const Environment& env, const std::vector<std::string>& loader_dirs) {
  if (env.windows()) return {env.windows_dir() + "/System32"};
  std::vector<std::string> dirs;
  for (const auto& d : env.get_list("LD_LIBRARY_PATH")) {
    if (!d.empty()) dirs.push_back(paths::normalize(d));
  }
  dirs.insert(dirs.end(), loader_dirs.begin(), loader_dirs.end());
  std::string triplet = multiarch_triplet_of(env.arch);
  for (const std::string& d : {std::string("/usr/local/nvidia/lib64"), std::string("/usr/local/nvidia/lib"),
                              "/usr/lib/" + triplet, "/lib/" + triplet, "/usr/lib/" + triplet + "/nvidia",
                              std::string("/usr/lib64"), std::string("/usr/lib"), std::string("/usr/lib/wsl/lib")}) {
    dirs.push_back(d);
  }
  return dirs;
}

}  // namespace cudnnup
