// Every file mapped into this process, by path: what the loader really brought in, whatever name
// it was asked for. The children that load cuDNN report it (core/child/mapped_files.h decides
// which copy each cuDNN file belongs to).
#pragma once

#include <string>
#include <vector>

namespace cudnnup {

// Linux: the files of /proc/self/maps, in first-mapped order, without " (deleted)" (the kernel's
// own path, links resolved). Windows: the module list (EnumProcessModules), '/' separators.
std::vector<std::string> loaded_module_paths();

}  // namespace cudnnup
