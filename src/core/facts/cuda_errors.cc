#include "facts/cuda_errors.h"

#include <iterator>

namespace cudnnup {
namespace {

struct CudaErrorName {
  int code;
  const char* name;
};

constexpr CudaErrorName kNames[] = {
    {0, "CUDA_SUCCESS"}, {1, "CUDA_ERROR_INVALID_VALUE"}, {2, "CUDA_ERROR_OUT_OF_MEMORY"},
    {3, "CUDA_ERROR_NOT_INITIALIZED"}, {4, "CUDA_ERROR_DEINITIALIZED"}, {34, "CUDA_ERROR_STUB_LIBRARY"},
    {35, "CUDA_ERROR_INSUFFICIENT_DRIVER"}, {36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE"}, {100, "CUDA_ERROR_NO_DEVICE"}, {101, "CUDA_ERROR_INVALID_DEVICE"},
    {102, "CUDA_ERROR_DEVICE_NOT_LICENSED"}, {200, "CUDA_ERROR_INVALID_IMAGE"}, {201, "CUDA_ERROR_INVALID_CONTEXT"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"}, {214, "CUDA_ERROR_ECC_UNCORRECTABLE"}, {218, "CUDA_ERROR_INVALID_PTX"},
    {221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"}, {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
    {300, "CUDA_ERROR_INVALID_SOURCE"}, {301, "CUDA_ERROR_FILE_NOT_FOUND"},
    {302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND"}, {303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED"},
    {304, "CUDA_ERROR_OPERATING_SYSTEM"}, {400, "CUDA_ERROR_INVALID_HANDLE"}, {500, "CUDA_ERROR_NOT_FOUND"},
    {600, "CUDA_ERROR_NOT_READY"}, {700, "CUDA_ERROR_ILLEGAL_ADDRESS"}, {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT"}, {709, "CUDA_ERROR_CONTEXT_IS_DESTROYED"}, {710, "CUDA_ERROR_ASSERT"},
    {714, "CUDA_ERROR_HARDWARE_STACK_ERROR"}, {715, "CUDA_ERROR_ILLEGAL_INSTRUCTION"},
    {716, "CUDA_ERROR_MISALIGNED_ADDRESS"}, {719, "CUDA_ERROR_LAUNCH_FAILED"}, {800, "CUDA_ERROR_NOT_PERMITTED"},
    {801, "CUDA_ERROR_NOT_SUPPORTED"}, {802, "CUDA_ERROR_SYSTEM_NOT_READY"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"}, {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
    {805, "CUDA_ERROR_MPS_CONNECTION_FAILED"}, {909, "CUDA_ERROR_TIMEOUT"}, {999, "CUDA_ERROR_UNKNOWN"},
};

}  // namespace

CudaErrorInfo decode_cuda_error(int code) {
  CudaErrorInfo info;
  info.code = code;
  info.name = "CUDA error " + std::to_string(code);
  for (const CudaErrorName& e : kNames) {
    if (e.code == code) info.name = e.name;
  }
  switch (code) {
    case 100:
      info.means_no_gpu = true;
      info.fix = "No NVIDIA GPU is visible to this process: check `nvidia-smi`, CUDA_VISIBLE_DEVICES, and (in a "
                 "container) that it was started with GPU access (--gpus all).";
      break;
    case 34:
      info.means_no_gpu = true;
      info.fix = "The libcuda found is the toolkit's link-time stub (lib64/stubs), not a driver: install the NVIDIA "
                 "driver, and take the stubs directory off LD_LIBRARY_PATH.";
      break;
    case 35:
      info.fix = "The NVIDIA driver is older than the CUDA runtime needs: update the driver.";
      break;
    case 803:
      info.fix = "The driver's kernel module and user-space libcuda have different versions (often after a driver "
                 "update without a reboot): reboot, or reinstall the driver so both match.";
      break;
    case 804:
      info.fix = "A CUDA forward-compatibility libcuda is in use on a GPU that does not support it: remove the "
                 "cuda-compat directory from LD_LIBRARY_PATH.";
      break;
    case 802:
      info.fix = "The driver says the system is not ready (on NVSwitch systems: start nvidia-fabricmanager).";
      break;
    case 999:
      info.fix = "The driver failed for an unknown reason: check `nvidia-smi` and the kernel log; a reboot often helps.";
      break;
    case 2:
      info.fix = "The GPU is out of memory: free memory used by other processes (`nvidia-smi`).";
      break;
    case 46:
      info.fix = "The GPU is busy or unavailable (exclusive-process compute mode, or MIG without an instance): "
                 "check `nvidia-smi -q -d COMPUTE`.";
      break;
    case 700: case 714: case 715: case 716: case 719: case 214:
      info.fix = "The GPU hit a fault while running a kernel: check the kernel log for Xid errors; reset or reboot "
                 "if it persists.";
      break;
    case 209: case 218: case 222:
      info.fix = "The library has no code for this GPU: install a build that supports its compute capability.";
      break;
    default:
      break;
  }
  return info;
}

}  // namespace cudnnup
