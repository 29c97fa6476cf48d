// Predicts which file LoadLibrary("cudnn64_9.dll") gets in a given Windows process, without
// loading anything: the rule that picked it, whether it will actually load (a 0-byte file, a
// DLL of another machine type, or a DLL whose imports are missing all fail), and every other
// copy of that name on the machine with the reason it lost.
//
// The model (sources in docs/windows.md):
//  * Before any directory: a module of that name already loaded in the process wins (torch
//    preloads every torch\lib\*.dll); then KnownDLLs (always System32).
//  * Standard order (plain LoadLibrary, the import table of an .exe), SafeDllSearchMode on:
//    application dir, [SetDllDirectory dir], System32, System, Windows, current dir (not when
//    SetDllDirectory is set), PATH.
//  * LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR (Python >= 3.8 extension
//    modules and ctypes, torch's preloading): the loading DLL's dir, application dir, the
//    AddDllDirectory / os.add_dll_directory dirs, System32. PATH and the current dir are NOT
//    searched.
//  * The loader takes the first file with the name; if that file cannot be loaded the load
//    fails (193 or 126) rather than moving on to the next directory.
// Pure logic over FileSystem; paths use '/' ("C:/Windows/System32") and names compare
// case-insensitively, like NTFS.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/environment.h"
#include "base/filesystem.h"
#include "binfmt/pe.h"
#include "loader/resolution.h"

namespace cudnnup {

enum class DllSearchMode {
  kStandard,     // LoadLibrary(name): SafeDllSearchMode order, PATH included
  kDefaultDirs,  // LoadLibraryEx(..., LOAD_LIBRARY_SEARCH_DEFAULT_DIRS [| DLL_LOAD_DIR])
};

struct DllSearchContext {
  DllSearchMode mode = DllSearchMode::kStandard;
  std::string application_dir;  // folder of the process's .exe (python.exe's folder for Python)
  std::string system32_dir = "C:/Windows/System32";
  std::string system16_dir = "C:/Windows/System";
  std::string windows_dir = "C:/Windows";
  std::string current_dir;             // the process's working directory
  std::vector<std::string> path;       // PATH entries, in order (empty entries kept and skipped)
  bool safe_dll_search_mode = true;    // HKLM\...\Session Manager\SafeDllSearchMode, default on
  std::string set_dll_directory;       // SetDllDirectory(dir), if the process called it
  std::vector<std::string> user_dirs;  // AddDllDirectory / os.add_dll_directory, in call order
  std::string dll_load_dir;            // kDefaultDirs with DLL_LOAD_DIR: the loading DLL's (.pyd's) dir
  std::vector<std::string> known_dlls;      // KnownDLLs names (any case)
  std::vector<std::string> already_loaded;  // full paths of modules already in the process
  uint16_t machine = kPeMachineX64;         // the process's machine type
};

enum class DllLoadProblem {
  kNone,
  kEmpty,              // 0 bytes -> ERROR_BAD_EXE_FORMAT (193)
  kNotPe,              // not a PE image, or headers cut off -> 193
  kWrongMachine,       // e.g. an x86 DLL in a 64-bit process -> 193
  kTruncated,          // sections past the end of the file -> 193 (or a crash later)
  kMissingDependency,  // an imported DLL is found nowhere -> ERROR_MOD_NOT_FOUND (126)
  kBrokenDependency,   // an imported DLL is found but cannot load itself
  kUnreadable,         // cudnnup could not read it (permissions)
};

struct DllCandidate {
  std::string path;  // where a file of that name is
  std::string rule;  // the search step that finds it: "application directory", "PATH entry 3", ...
  SearchRule kind = SearchRule::kNone;  // the same as a rule of the shared answer type
  int search_position = -1;  // index in DllResolution::search_dirs; -1 when this mode never looks there
  bool chosen = false;
  std::string why_not;  // for losers: "an earlier directory in the search order has it", ...
  DllLoadProblem problem = DllLoadProblem::kNone;
  std::string problem_detail;  // "0 bytes", "machine x86, process x64", "needs cudnn_graph64_9.dll: not found"
  std::optional<PeVersion> file_version;
};

struct DllSearchDir {
  std::string dir;
  std::string rule;
  SearchRule kind = SearchRule::kNone;
};

struct DllResolution {
  std::string name;
  std::vector<DllSearchDir> search_dirs;  // what this mode searches, in order
  std::optional<DllCandidate> winner;     // the file LoadLibrary opens; nullopt: found nowhere
  bool loads = false;                     // winner exists and has no problem
  int win32_error = 0;                    // 0, 126 or 193: what LoadLibrary's GetLastError would say
  std::vector<DllCandidate> losers;       // every other file of that name, with why it lost
  std::string explanation;                // one paragraph for people
};

// Resolves `dll_name` (a bare name like "cudnn64_9.dll"). `extra_places` are directories that
// are not in the search at all but where copies should be reported as losers too (the cuDNN
// copies doctor found: a pip wheel's nvidia/cudnn/bin, CUDA_PATH/bin when PATH lacks it).
DllResolution resolve_dll(const FileSystem& fs, const std::string& dll_name, const DllSearchContext& ctx,
                          const std::vector<std::string>& extra_places = {});

// What `problem` means for LoadLibrary: 193 or 126 (0 for kNone).
int win32_error_for(DllLoadProblem problem);
const char* dll_load_problem_name(DllLoadProblem problem);

// --- How common processes set up their search -------------------------------------------------

// A Python >= 3.8 process importing an extension module (.pyd) at `pyd_dir` that needs the DLL:
// DEFAULT_DIRS | DLL_LOAD_DIR, application dir = the folder of python.exe.
DllSearchContext python_extension_context(const std::string& python_exe_dir, const std::string& pyd_dir,
                                          const std::vector<std::string>& add_dll_directories);

// The directories conda-forge/Anaconda Python adds with AddDllDirectory at start-up (patch
// 0007-Add-CondaEcosystemModifyDllSearchPath): Library/mingw-w64/bin, Library/usr/bin,
// Library/bin, Scripts, bin under the environment prefix.
std::vector<std::string> conda_python_dll_directories(const std::string& prefix);

// The directories `import torch` adds with os.add_dll_directory (torch/__init__.py
// _load_dll_libraries): torch/lib, <prefix>/Library/bin, the base prefix's Library/bin for a
// venv, and, when torch/lib has no cudart64*.dll, the CUDA toolkit's bin from
// CUDA_PATH_V<major>_<minor> (or the default Program Files location) for `torch_cuda_version`.
std::vector<std::string> torch_dll_directories(const FileSystem& fs, const Environment& env,
                                               const std::string& torch_dir, const std::string& prefix,
                                               const std::string& base_prefix,
                                               const std::string& torch_cuda_version);

// The DLLs `import torch` then preloads by full path (every torch/lib/*.dll, with
// LoadLibraryExW(..., 0x1100)): afterwards they are "already loaded" for every later load by name.
std::vector<std::string> torch_preloaded_dlls(const FileSystem& fs, const std::string& torch_dir);

}  // namespace cudnnup
