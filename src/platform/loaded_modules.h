// The shared libraries mapped into this process, by path. verify uses it to prove that every
// cuDNN sub-library came from the copy under test (no mixing of two copies in one process).
#pragma once

#include <string>
#include <vector>

namespace cudnnup {

std::vector<std::string> loaded_module_paths();

}  // namespace cudnnup
