// The CUDA driver API's function table (libcuda.so.1 / nvcuda.dll), opened by absolute path.
// Versioned exports (cuMemAlloc_v2, cuEventElapsedTime_v2, ...) are bound the way cuda.h's
// macros name them, with the unversioned symbol as the fallback for older drivers.
#pragma once

#include <string>
#include <vector>

#include "gpu/nvidia_api.h"
#include "base/result.h"
#include "platform/dynamic_library.h"

namespace cudnnup {

class CudaDriverApi {
 public:
  static Result<CudaDriverApi> load(const std::string& libcuda_path);
  const nv::CudaDriverFunctions& functions() const { return fn_; }
  const std::vector<std::string>& missing() const { return missing_; }
  void leak() { lib_.leak(); }

 private:
  explicit CudaDriverApi(DynamicLibrary lib) : lib_(std::move(lib)) {}
  DynamicLibrary lib_;
  nv::CudaDriverFunctions fn_;
  std::vector<std::string> missing_;
};

}  // namespace cudnnup
