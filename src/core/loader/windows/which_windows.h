// `cudnnup which` on Windows: which cudnn64_N.dll a given kind of process loads, by the Windows
// search order modelled in loader/windows/windows_loader.h (resolve_dll), the rule that picked
// it, every other copy and why it lost, and cuDNN's sub-libraries (looked up by module name with
// the same search, as the loader does for a DLL's dependencies). The answer is the same
// WhichReport the glibc model gives (loader/which.h), rendered by the same renderer.
//
// Kinds of process:
//  * plain       LoadLibrary("cudnn64_9.dll") by a program whose folder holds no cuDNN: standard
//                order with SafeDllSearchMode (System32, System, Windows, current dir, PATH).
//  * executable  the same, with that program's folder first (`--for app.exe`; a 32-bit program
//                makes every 64-bit DLL the wrong machine, error 193).
//  * python      an extension module (.pyd) of Python >= 3.8: LOAD_LIBRARY_SEARCH_DEFAULT_DIRS |
//                DLL_LOAD_DIR: the module's folder, python.exe's folder, os.add_dll_directory
//                dirs (conda Python adds Library\bin etc. itself), System32. PATH is ignored.
//  * torch       `import torch`: its os.add_dll_directory dirs (torch\lib, Library\bin, the CUDA
//                toolkit when torch has no cudart) and every torch\lib\*.dll preloaded.
#pragma once

#include <string>
#include <vector>

#include "base/environment.h"
#include "base/filesystem.h"
#include "loader/which.h"
#include "loader/windows/windows_loader.h"

namespace cudnnup {

struct WindowsWhichTarget {
  std::string kind = "plain";           // plain | executable | python | torch
  std::string program;                  // executable: the .exe
  std::string python_prefix;            // python/torch: the environment's folder (python.exe's folder)
  std::string module_dir;               // python: the .pyd's folder (DLL_LOAD_DIR); empty: none
  std::vector<std::string> dll_dirs;    // python/torch: more os.add_dll_directory dirs, in call order
  std::string site_packages;            // torch: the site-packages holding it (default: the prefix's Lib/site-packages)
};

// "cudnn64_9.dll" for "", "cudnn", "9", "cudnn9", "libcudnn"; "cudnn64_8.dll" for "8"; else as given.
std::string normalize_dll_name(const std::string& lib);

// The parts of every Windows process's search that come from the machine: System32 and the
// Windows folder from %SYSTEMROOT%, PATH, the current dir.
DllSearchContext windows_base_context(const Environment& env);

// The shared answer type for one Windows lookup.
Resolution to_resolution(const DllResolution& r, const std::string& kind, const std::string& requester);

// `extra_places`: folders outside the search whose copies should be listed as losers too (the
// copies doctor found). Errors: the program does not exist or is not a PE image; no torch in
// the environment.
Result<WhichReport> which_windows(const FileSystem& fs, const Environment& env, const WindowsWhichTarget& target,
                                  const std::string& lib, const std::vector<std::string>& extra_places = {});

// The answer for a process whose DLL search is `ctx` (a framework's own loading, built by
// loader/windows/frameworks_windows.cc): `report.library` resolved, cuDNN's sub-libraries
// modelled; the caller sets the report's library, target and how_requested.
WhichReport which_windows_in(const FileSystem& fs, const DllSearchContext& ctx, WhichReport report,
                             const std::vector<std::string>& extra_places = {});

}  // namespace cudnnup
