// The few NVIDIA C prototypes cudnnup calls, declared here so the build needs no CUDA headers.
// Each library is opened at run time by absolute path (platform/dynamic_library.h), only in a
// probe child process. Signatures follow the public headers (cudnn_graph.h, cuda.h, nvml.h).
#pragma once

#include <cstddef>

namespace cudnnup::nv {

#if defined(_WIN32)
#define CUDNNUP_NVAPI __stdcall
#else
#define CUDNNUP_NVAPI
#endif

// cuDNN (cudnn_graph.h in 9.x, cudnn_ops_infer.h in 8.x).
using cudnnGetVersion_t = size_t (CUDNNUP_NVAPI*)();
using cudnnGetCudartVersion_t = size_t (CUDNNUP_NVAPI*)();
using cudnnGetMaxDeviceVersion_t = size_t (CUDNNUP_NVAPI*)();  // 9.x only
using cudnnGetErrorString_t = const char* (CUDNNUP_NVAPI*)(int status);

// CUDA driver API (cuda.h).
using CUresult = int;
using CUdevice = int;
using cuInit_t = CUresult (CUDNNUP_NVAPI*)(unsigned int flags);
using cuDriverGetVersion_t = CUresult (CUDNNUP_NVAPI*)(int* version);
using cuDeviceGetCount_t = CUresult (CUDNNUP_NVAPI*)(int* count);
using cuDeviceGet_t = CUresult (CUDNNUP_NVAPI*)(CUdevice* device, int ordinal);
using cuDeviceGetName_t = CUresult (CUDNNUP_NVAPI*)(char* name, int len, CUdevice device);
using cuDeviceGetAttribute_t = CUresult (CUDNNUP_NVAPI*)(int* value, int attribute, CUdevice device);
using cuDeviceTotalMem_t = CUresult (CUDNNUP_NVAPI*)(size_t* bytes, CUdevice device);  // exported as cuDeviceTotalMem_v2
using cuGetErrorString_t = CUresult (CUDNNUP_NVAPI*)(CUresult error, const char** text);
constexpr int kCuDeviceAttributeComputeCapabilityMajor = 75;
constexpr int kCuDeviceAttributeComputeCapabilityMinor = 76;

// NVML (nvml.h).
using nvmlReturn_t = int;
using nvmlDevice_t = void*;
using nvmlInit_t = nvmlReturn_t (CUDNNUP_NVAPI*)();  // exported as nvmlInit_v2
using nvmlShutdown_t = nvmlReturn_t (CUDNNUP_NVAPI*)();
using nvmlSystemGetDriverVersion_t = nvmlReturn_t (CUDNNUP_NVAPI*)(char* version, unsigned int length);
using nvmlSystemGetCudaDriverVersion_t = nvmlReturn_t (CUDNNUP_NVAPI*)(int* version);
using nvmlErrorString_t = const char* (CUDNNUP_NVAPI*)(nvmlReturn_t result);

}  // namespace cudnnup::nv
