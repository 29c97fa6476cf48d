// Windows-only problems with how DLLs are found: a terminal holding an old PATH, cuDNN reachable
// only through PATH (which Python 3.8+ ignores for extension modules), PATH truncated by setx.
#pragma once

#include <string>
#include <vector>

#include "base/environment.h"
#include "base/model.h"

namespace cudnnup {

std::vector<Finding> check_windows_paths(const Report& report, const Environment& env);

// The Windows folders every program searches before PATH, Python 3.8+ extension modules included:
// System32, SysWOW64, the Windows folder (%SystemRoot%). No installer puts cuDNN there; a DLL
// there is a stray hand copy, to be moved aside, never fixed through PATH.
bool is_windows_system_dir(const Environment& env, const std::string& dir);

}  // namespace cudnnup
