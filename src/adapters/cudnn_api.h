// cuDNN's function table, filled from a shim library (libcudnn.so.N / cudnn64_N.dll) opened by
// absolute path. Symbols the library lacks stay null: a stub or an older version is reported by
// the caller, never dereferenced.
#pragma once

#include <string>
#include <vector>

#include "gpu/nvidia_api.h"
#include "base/result.h"
#include "platform/dynamic_library.h"

namespace cudnnup {

class CudnnApi {
 public:
  static Result<CudnnApi> load(const std::string& shim_path);
  const nv::CudnnFunctions& functions() const { return fn_; }
  // Names of the legacy convolution symbols the library lacks (empty for a real cuDNN 8/9).
  const std::vector<std::string>& missing_legacy() const { return missing_legacy_; }
  const std::vector<std::string>& missing_backend() const { return missing_backend_; }
  void leak() { lib_.leak(); }  // cuDNN has crashed in the field when unloaded at exit

 private:
  explicit CudnnApi(DynamicLibrary lib) : lib_(std::move(lib)) {}
  DynamicLibrary lib_;
  nv::CudnnFunctions fn_;
  std::vector<std::string> missing_legacy_;
  std::vector<std::string> missing_backend_;
};

}  // namespace cudnnup
