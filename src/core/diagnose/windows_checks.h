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

// The fix that moves a copy's cuDNN DLLs out of the search (nothing is deleted), in a terminal
// run as administrator: from a Windows system folder into <drive>\cudnn-aside\<that folder>, never a PATH
// change (the folder is searched before PATH, and taking it off PATH would break Windows); from
// any other folder into <folder>.cudnn-moved-aside beside it.
std::vector<FixStep> move_cudnn_dlls_aside(const CudnnCopy& c, const Environment& env);

}  // namespace cudnnup
