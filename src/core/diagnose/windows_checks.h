// Windows-only problems with how DLLs are found: a terminal holding an old PATH, cuDNN reachable
// only through PATH (which Python 3.8+ ignores for extension modules), PATH truncated by setx.
#pragma once

#include <vector>

#include "base/environment.h"
#include "base/model.h"

namespace cudnnup {

std::vector<Finding> check_windows_paths(const Report& report, const Environment& env);

}  // namespace cudnnup
