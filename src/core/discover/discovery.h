// Finding CUDA toolkits and cuDNN copies: a fixed list of candidate directories derived from the
// environment (never a crawl of the disk), then a scan of each. Data flows one way:
// environment -> candidate directories -> scanned files -> Toolkit / CudnnCopy records.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/environment.h"
#include "base/filesystem.h"
#include "base/model.h"
#include "discover/python_envs.h"

namespace cudnnup {

struct CandidateDir {
  std::string path;
  std::string reason;  // "LD_LIBRARY_PATH", "toolkit /usr/local/cuda-13.0", "pip env /venv", ...
};

// The reason of the Windows system folders every 64-bit program searches before PATH (System32
// and the Windows folder, from %SYSTEMROOT%), and of SysWOW64, which only 32-bit programs search.
// No installer puts cuDNN there: a copy found there is a stray hand copy (diagnose/checks.h).
inline constexpr const char* kWindowsSystemFolderReason = "Windows system folder";
inline constexpr const char* kWindows32BitSystemFolderReason = "Windows 32-bit system folder";

// Toolkits from CUDA_HOME/CUDA_PATH/CUDA_ROOT, nvcc on PATH, /usr/local/cuda*, /opt (Linux);
// CUDA_PATH, CUDA_PATH_V*_*, Program Files (Windows). De-duplicated by canonical root.
std::vector<Toolkit> find_toolkits(const FileSystem& fs, const Environment& env, std::vector<ScanIssue>* issues);

// The NVIDIA kernel module's version as /proc/driver/nvidia/version prints it ("580.65.06"), or
// "" when there is none (no driver, Windows).
std::string kernel_module_version(const FileSystem& fs);

struct DiscoveryInputs {
  const FileSystem& fs;
  const Environment& env;
  const std::vector<Toolkit>& toolkits;
  const std::vector<PythonEnv>& python_envs;
  std::vector<std::string> loader_dirs;  // ld.so.conf / ld.so.cache directories, in loader order
  std::string store_root;                // cudnnup's own store
};

// Every directory worth looking in, in a stable order, with the reason it is a candidate.
std::vector<CandidateDir> candidate_library_dirs(const DiscoveryInputs& in);

// Scans the candidates and groups what it finds into copies: one copy per (library directory,
// cuDNN major). Fills files, links, ELF facts, headers, package form and package metadata.
// Does not load anything; LibraryProbe stays empty. `found`, when given, sees each copy as soon
// as it is complete, in the order of the result (doctor starts probes early with it).
std::vector<CudnnCopy> scan_cudnn_copies(const DiscoveryInputs& in, const std::vector<CandidateDir>& candidates,
                                         std::vector<std::string>* searched, std::vector<ScanIssue>* issues,
                                         const std::function<void(const CudnnCopy&)>& found = nullptr);

}  // namespace cudnnup
