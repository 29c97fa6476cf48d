// Does a program find cuDNN through PATH on Windows? The procedure's step "put cuDNN's bin on
// PATH", judged with the one DLL search model (loader/windows/windows_loader.h), for this
// terminal (its PATH: doctor's "What loads") and for programs started from now on (the registry's
// PATH: the machine PATH, then the user PATH, as Windows builds it for a new process):
//
//   windows.cudnn_not_on_path    error    a plain program here finds no cudnn64_N.dll, although a
//                                         copy meant for programs (merged into a CUDA toolkit, an
//                                         unpacked archive, NVIDIA's installer, a loose folder)
//                                         exists. Fix: `cudnnup env --persist --dir BIN` (the user
//                                         PATH in the registry, never setx); when the registry's
//                                         PATH already has it (a terminal older than the change,
//                                         windows.stale_session_path), restart the terminal.
//   windows.user_path_shadowed   warning  a copy on the user PATH loses, for every new program, to
//                                         another copy of that major on the machine PATH, which
//                                         Windows puts first; `env --persist` cannot change that.
//
// Copies in a Python environment (pip wheels, conda, torch\lib) are found by their frameworks
// without PATH, and the store's are cudnnup's to put on PATH (`env`, `exec`, `env --persist`):
// neither counts as missing from PATH.
#pragma once

#include <vector>

#include "base/environment.h"
#include "base/filesystem.h"
#include "base/model.h"
#include "loader/which.h"

namespace cudnnup {

// `loads`: doctor's Windows answers for this terminal (diagnose/windows_dll_checks.h
// model_windows_loads); the plain-program ones are judged.
std::vector<Finding> check_windows_path_reach(const FileSystem& fs, const Environment& env, const Report& report,
                                              const std::vector<WhichReport>& loads);

}  // namespace cudnnup
