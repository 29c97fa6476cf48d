// Doctor on Windows: what a plain program and the active Python load (core/which_windows.h), the
// findings when that load fails (with the Windows error code it gives), and zlibwapi.dll for
// the cuDNN DLLs that import it.
#pragma once

#include <vector>

#include "base/environment.h"
#include "base/filesystem.h"
#include "base/model.h"
#include "facts/rules.h"
#include "loader/windows/which_windows.h"

namespace cudnnup {

// One plain-program answer per cuDNN major found (highest first), plus, when a Python environment
// is active (CONDA_PREFIX, VIRTUAL_ENV), its extension-module answer for the highest major.
// Copies doctor found outside the search are listed as losers.
std::vector<WhichReport> model_windows_loads(const FileSystem& fs, const Environment& env, const Report& report);

// "windows.dll_load_fails" (error 126 or 193, with the cause) and "windows.mixed_cudnn_dlls".
std::vector<Finding> check_windows_loads(const std::vector<WhichReport>& loads);

// zlibwapi.dll, decided by each DLL's import table (and delay-load table), not by version:
// "windows.zlibwapi_missing" when a copy's DLL imports it and neither the copy's folder nor the
// standard search has it, "windows.zlibwapi_wrong_machine" when the one found is not a loadable
// x64 DLL. The texts name the copy's own files and the releases that need it
// (rules.windows_zlibwapi, data/rules.json: cuDNN 8.3 up to 9.2, which links zlib in).
std::vector<Finding> check_zlibwapi(const FileSystem& fs, const Environment& env, const Report& report, const Rules& rules);

}  // namespace cudnnup
