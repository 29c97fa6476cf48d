// What `install --into CUDA_DIR` needs to know about a CUDA toolkit: its CUDA version, where its
// libraries go, and which cuDNN files are already in it. Read through FileSystem only.
#pragma once

#include <string>
#include <vector>

#include "base/filesystem.h"
#include "base/version.h"

namespace cudnnup {

struct ToolkitTarget {
  std::string root;
  bool windows = false;
  Version cuda_version;          // unknown when no cuda.h / version.json / version.txt says
  std::string version_source;    // "include/cuda.h", "version.json", "version.txt"
  std::string lib_dir;           // relative: "lib64" or "lib" (Linux), "lib/x64" (Windows)
  std::string machine;           // of its own libraries (libcudart, cudart64_*.dll) as sniff_binary names it; "" unknown
  std::string machine_source;    // the library it was read from
  std::string private_dir() const { return root + "/.cudnnup"; }  // cudnnup's backups and manifest
  std::string manifest_path() const { return private_dir() + "/manifest.json"; }
};

ToolkitTarget inspect_toolkit(const FileSystem& fs, const std::string& root, bool windows);

// cuDNN files already in the toolkit: include/cudnn*.h, <lib_dir>/libcudnn*, bin/cudnn*.dll,
// lib/x64/cudnn*.lib. Absolute paths, sorted.
std::vector<std::string> find_toolkit_cudnn_files(const FileSystem& fs, const ToolkitTarget& t);

// The cuDNN major a file belongs to from its name or, for cudnn_version.h, its text; 0 unknown.
int cudnn_major_of_file(const FileSystem& fs, const std::string& path);

}  // namespace cudnnup
