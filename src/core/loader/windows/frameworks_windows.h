// Deep-learning frameworks on native Windows, inspected from their files without importing them
// as on Linux (loader/frameworks.h: the same FrameworkReport, rule and verdict), but loaded by
// Windows' DLL search (loader/windows/windows_loader.h), following each framework's own loading
// code:
//   torch        `import torch`: os.add_dll_directory(torch\lib, Library\bin, ...) and every
//                torch\lib\*.dll preloaded (torch/__init__.py _load_dll_libraries); the wheels
//                bundle cuDNN in torch\lib, whose DLL version is the build's.
//   tensorflow   up to 2.10 (the last native-Windows GPU release, data/rules.json): its
//                dso_loader's LoadLibraryExW("cudnn64_8.dll", LOAD_WITH_ALTERED_SEARCH_PATH), a
//                bare name, so the standard search with PATH (tensorflow/core/platform/windows/
//                load_library.cc); cuDNN minor from the Windows tested-build table. Newer
//                releases: no GPU on native Windows, said so.
//   jax          no NVIDIA GPU on native Windows (data/rules.json), said so.
//   onnxruntime  capi\onnxruntime_providers_cuda.dll loaded by full path with
//                LOAD_WITH_ALTERED_SEARCH_PATH (core/platform/windows/env.cc): its folder first,
//                then the standard search with PATH; and, where onnxruntime/__init__.py has
//                preload_dlls() (1.21+), a second answer after it: the cuDNN DLLs of torch\lib
//                (a torch of the same CUDA major) or of the wheel's nvidia\cudnn\bin, loaded by
//                path, are the ones the provider binds.
//   paddle       not modelled on Windows yet (its own DLL preloads); said so.
#pragma once

#include <string>
#include <vector>

#include "base/environment.h"
#include "base/filesystem.h"
#include "discover/python_envs.h"
#include "loader/frameworks.h"

namespace cudnnup {

std::vector<FrameworkReport> inspect_frameworks_windows(const FileSystem& fs, const Environment& env,
                                                        const std::vector<PythonEnv>& envs,
                                                        const std::vector<std::string>& only);

}  // namespace cudnnup
