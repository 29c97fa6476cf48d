// CUresult names (cuda.h) and what to do about the ones a verify run meets.
#pragma once

#include <string>

namespace cudnnup {

struct CudaErrorInfo {
  int code = 0;
  std::string name;     // "CUDA_ERROR_NO_DEVICE", or "CUDA error 1234"
  std::string fix;      // empty when we have nothing better than the name
  bool means_no_gpu = false;  // no usable driver or GPU here: verify exits with kExitNoGpu
};

CudaErrorInfo decode_cuda_error(int code);

}  // namespace cudnnup
