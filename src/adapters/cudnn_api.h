// cuDNN's function table, filled from a shim library (libcudnn.so.N / cudnn64_N.dll) opened by
// absolute path. Symbols the library lacks stay null: a stub or an older version is reported by
// the caller, never dereferenced.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gpu/nvidia_api.h"
#include "base/result.h"
#include "platform/dynamic_library.h"

namespace cudnnup {

class CudnnApi {
 public:
  // `major`: the shim's major from its file name, which picks the required API (gpu/cudnn_symbols.h).
  static Result<CudnnApi> load(const std::string& shim_path, int major);
  const nv::CudnnFunctions& functions() const { return fn_; }
  // Every symbol of gpu/cudnn_symbols.h the library does not export (empty for a real cuDNN).
  const std::vector<std::string>& missing() const { return missing_; }
  // The sub-library version checks of this major that the library exports, in calling order.
  const std::vector<std::pair<std::string, nv::cudnnVersionCheck_t>>& version_checks() const { return checks_; }
  void leak() { lib_.leak(); }  // cuDNN has crashed in the field when unloaded at exit

 private:
  explicit CudnnApi(DynamicLibrary lib) : lib_(std::move(lib)) {}
  DynamicLibrary lib_;
  nv::CudnnFunctions fn_;
  std::vector<std::string> missing_;
  std::vector<std::pair<std::string, nv::cudnnVersionCheck_t>> checks_;
};

}  // namespace cudnnup
