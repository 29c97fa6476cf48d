// Finding what verify works on: the copy's library directory and shim from a path the user
// gave (a lib dir, a copy root, or the shim file itself), and nvcc. Pure logic over FileSystem.
#pragma once

#include <string>
#include <vector>

#include "base/environment.h"
#include "base/filesystem.h"
#include "base/result.h"

namespace cudnnup {

struct CopyLocation {
  std::string lib_dir;   // directory holding the shim, canonical
  std::string shim;      // absolute path of libcudnn.so.N / cudnn64_N.dll
  int major = 0;         // N
  std::vector<std::string> sublibrary_files;  // libcudnn_*.so.N / cudnn_*64_N.dll in lib_dir
};

// `path` may be the lib dir, the copy root (lib/, lib64/, lib/x64, bin/, bin/x64 are tried), or
// the shim file. The highest major present wins when several are.
Result<CopyLocation> locate_copy(const FileSystem& fs, const std::string& path, bool windows);

// Library directories tried when the user names no copy (the usual system places).
std::vector<std::string> default_copy_dirs(const Environment& env);

// nvcc from CUDA_HOME, CUDA_PATH, PATH, then /usr/local/cuda/bin; empty when none.
std::string find_nvcc(const FileSystem& fs, const Environment& env);

// Component name of a sub-library file: "libcudnn_cnn.so.9" -> "cnn", "cudnn_ops64_9.dll" -> "ops".
std::string sublibrary_component(const std::string& file_name);

}  // namespace cudnnup
