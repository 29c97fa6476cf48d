// Windows-specific inputs for discovery and doctor, as pure logic (the registry is read by the
// app through platform/registry.h and passed in as data, like Environment):
//  * where CUDA toolkits and cuDNN copies can be on Windows beyond what core/discovery.cc already
//    covers (the CUDA installer's registry keys, %ProgramFiles% when it is not C:, the cuDNN
//    graphical installer's tree),
//  * what the PE reader says about one DLL, in the words CudnnLibrary::problems uses,
//  * the session PATH against the PATH in the registry: the "restart your terminal" case, a
//    PATH that setx cut at 1024 characters, entries that only this shell added.
// Proposed for the lead's doctor; nothing calls it yet.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/discovery.h"
#include "core/environment.h"
#include "core/filesystem.h"
#include "core/pe.h"

namespace cudnnup {

// What the app reads from the registry (platform/registry.h) for doctor.
struct WindowsRegistrySnapshot {
  // HKLM\SOFTWARE\NVIDIA Corporation\GPU Computing Toolkit\CUDA\<subkey>, value InstallDir:
  // (subkey such as "v12.4", InstallDir as stored).
  std::vector<std::pair<std::string, std::string>> cuda_install_dirs;
  std::optional<std::string> user_path;    // HKCU\Environment, Path (unexpanded REG_EXPAND_SZ)
  std::optional<std::string> system_path;  // HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment, Path
};

// Toolkit roots from the registry and from %ProgramFiles%\NVIDIA GPU Computing Toolkit\CUDA\v*,
// with the reason each is a candidate. Existence is not checked here (find_toolkits does).
std::vector<CandidateDir> windows_toolkit_roots(const FileSystem& fs, const Environment& env,
                                                const WindowsRegistrySnapshot& registry);

// cuDNN library directories of the graphical installer, %ProgramFiles%\NVIDIA\CUDNN\v<ver>:
// bin, bin\x64 and bin\<cuda version>[\x64] (the per-CUDA sub-folder layout is UNVERIFIED, facts
// B.6, so every child of bin that holds a cudnn*.dll is a candidate).
std::vector<CandidateDir> windows_cudnn_installer_dirs(const FileSystem& fs, const Environment& env);

// The PE facts of one DLL, phrased for CudnnLibrary::problems.
struct DllInspection {
  std::vector<std::string> problems;  // "empty file (0 bytes)...", "built for x86, not x64", "truncated: ..."
  std::optional<PeVersion> file_version;
  std::vector<std::string> imports;
  std::string description;
};
DllInspection inspect_dll(const FileSystem& fs, const std::string& path, uint16_t expected_machine = kPeMachineX64);

// "%SystemRoot%\system32;%CUDA_PATH%\bin" with the variables of `env`; unknown ones stay as written.
std::string expand_windows_variables(const std::string& value, const Environment& env);

struct PathDrift {
  // In the registry's PATH (system + user, expanded) but not in this process's PATH: added after
  // this terminal / Jupyter / IDE started. Fix: restart it.
  std::vector<std::string> missing_from_session;
  // In this process's PATH but in neither registry PATH: added by this shell (activation
  // scripts, set PATH=...). Processes started elsewhere will not see them.
  std::vector<std::string> only_in_session;
  // "HKCU Path is exactly 1024 characters: ..." and similar, for people.
  std::vector<std::string> problems;
};
PathDrift compare_session_path(const Environment& env, const WindowsRegistrySnapshot& registry);

}  // namespace cudnnup
