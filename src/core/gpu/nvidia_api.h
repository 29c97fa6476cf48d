// The few NVIDIA C prototypes cudnnup calls, declared here so the build needs no CUDA headers.
// Each library is opened at run time by absolute path (platform/dynamic_library.h), only in a
// probe child process. Signatures and enum values follow the public headers (cudnn_graph.h,
// cudnn_ops.h, cudnn_cnn.h, cuda.h, nvml.h; checked against cuDNN 9.19 / CUDA 13.0).
//
// The function tables (CudnnFunctions, CudaDriverFunctions) are plain structs of pointers: the
// adapters fill them from a loaded library (adapters/cudnn_api.h, adapters/cuda_driver_api.h),
// and the tests fill them with fakes so the verify stages (core/verify_gpu.h) run on any CPU.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudnnup::nv {

#if defined(_WIN32)
#define CUDNNUP_NVAPI __stdcall
#else
#define CUDNNUP_NVAPI
#endif

// ---------------------------------------------------------------------------------------------
// cuDNN (cudnn_graph.h in 9.x, cudnn_ops_infer.h in 8.x).
using cudnnStatus_t = int;  // numbers differ between 8.x and 9.x: core/cudnn_status.h decodes
using cudnnGetVersion_t = size_t (CUDNNUP_NVAPI*)();
using cudnnGetCudartVersion_t = size_t (CUDNNUP_NVAPI*)();
using cudnnGetMaxDeviceVersion_t = size_t (CUDNNUP_NVAPI*)();  // 9.x only
using cudnnGetErrorString_t = const char* (CUDNNUP_NVAPI*)(int status);
using cudnnGetLastErrorString_t = void (CUDNNUP_NVAPI*)(char* message, size_t max_size);  // 9.x
using cudnnVersionCheck_t = cudnnStatus_t (CUDNNUP_NVAPI*)();  // gpu/cudnn_symbols.h: 8.x and 9.x names

using cudnnHandle_t = void*;
using cudnnTensorDescriptor_t = void*;
using cudnnFilterDescriptor_t = void*;
using cudnnConvolutionDescriptor_t = void*;
using cudnnBackendDescriptor_t = void*;
using CUstream = void*;

// cudnnDataType_t
constexpr int kCudnnDataFloat = 0;
constexpr int kCudnnDataDouble = 1;
constexpr int kCudnnDataHalf = 2;
constexpr int kCudnnDataBfloat16 = 9;
// cudnnTensorFormat_t
constexpr int kCudnnTensorNchw = 0;
constexpr int kCudnnTensorNhwc = 1;
// cudnnConvolutionMode_t
constexpr int kCudnnConvolution = 0;
constexpr int kCudnnCrossCorrelation = 1;
// cudnnMathType_t
constexpr int kCudnnDefaultMath = 0;
constexpr int kCudnnTensorOpMath = 1;
constexpr int kCudnnTensorOpMathAllowConversion = 2;
constexpr int kCudnnFmaMath = 3;

// cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t share this layout.
struct cudnnConvolutionAlgoPerf {
  int algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  int determinism;
  int math_type;
  int reserved[3];
};

using cudnnCreate_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnHandle_t* handle);
using cudnnDestroy_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnHandle_t handle);
using cudnnSetStream_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnHandle_t handle, CUstream stream);
using cudnnCreateTensorDescriptor_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnTensorDescriptor_t* desc);
using cudnnDestroyTensorDescriptor_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnTensorDescriptor_t desc);
using cudnnSetTensor4dDescriptor_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnTensorDescriptor_t desc, int format,
                                                                   int data_type, int n, int c, int h, int w);
using cudnnCreateFilterDescriptor_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnFilterDescriptor_t* desc);
using cudnnDestroyFilterDescriptor_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnFilterDescriptor_t desc);
using cudnnSetFilter4dDescriptor_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnFilterDescriptor_t desc, int data_type,
                                                                   int format, int k, int c, int h, int w);
using cudnnCreateConvolutionDescriptor_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnConvolutionDescriptor_t* desc);
using cudnnDestroyConvolutionDescriptor_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnConvolutionDescriptor_t desc);
using cudnnSetConvolution2dDescriptor_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnConvolutionDescriptor_t desc,
                                                                        int pad_h, int pad_w, int stride_h,
                                                                        int stride_w, int dilation_h,
                                                                        int dilation_w, int mode,
                                                                        int compute_type);
using cudnnSetConvolutionMathType_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnConvolutionDescriptor_t desc, int math);
// The _v7 heuristics: fwd (x, w, conv, y), bwd-data (w, dy, conv, dx), bwd-filter (x, dy, conv, dw).
using cudnnGetConvolutionAlgorithm_v7_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnHandle_t handle, void* a, void* b,
                                                                        cudnnConvolutionDescriptor_t conv,
                                                                        void* c, int requested, int* returned,
                                                                        cudnnConvolutionAlgoPerf* results);
using cudnnGetConvolutionWorkspaceSize_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnHandle_t handle, void* a, void* b,
                                                                         cudnnConvolutionDescriptor_t conv,
                                                                         void* c, int algo, size_t* bytes);
// cudnnConvolutionForward(h, alpha, xDesc, x, wDesc, w, conv, algo, ws, wsSize, beta, yDesc, y),
// cudnnConvolutionBackwardData(h, alpha, wDesc, w, dyDesc, dy, conv, algo, ws, wsSize, beta, dxDesc, dx),
// cudnnConvolutionBackwardFilter(h, alpha, xDesc, x, dyDesc, dy, conv, algo, ws, wsSize, beta, dwDesc, dw).
using cudnnConvolutionRun_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnHandle_t handle, const void* alpha,
                                                            void* a_desc, const void* a, void* b_desc,
                                                            const void* b, cudnnConvolutionDescriptor_t conv,
                                                            int algo, void* workspace, size_t workspace_bytes,
                                                            const void* beta, void* out_desc, void* out);

// Backend (graph) API, cudnn_graph.h.
using cudnnBackendCreateDescriptor_t = cudnnStatus_t (CUDNNUP_NVAPI*)(int type, cudnnBackendDescriptor_t* desc);
using cudnnBackendDestroyDescriptor_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnBackendDescriptor_t desc);
using cudnnBackendFinalize_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnBackendDescriptor_t desc);
using cudnnBackendSetAttribute_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnBackendDescriptor_t desc, int name,
                                                                 int type, int64_t count, const void* values);
using cudnnBackendGetAttribute_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnBackendDescriptor_t desc, int name,
                                                                 int type, int64_t requested, int64_t* count,
                                                                 void* values);
using cudnnBackendExecute_t = cudnnStatus_t (CUDNNUP_NVAPI*)(cudnnHandle_t handle, cudnnBackendDescriptor_t plan,
                                                            cudnnBackendDescriptor_t variant_pack);

// cudnnBackendDescriptorType_t
constexpr int kBackendConvolutionDescriptor = 1;
constexpr int kBackendEngineDescriptor = 2;
constexpr int kBackendEngineCfgDescriptor = 3;
constexpr int kBackendEngineHeurDescriptor = 4;
constexpr int kBackendExecutionPlanDescriptor = 5;
constexpr int kBackendOperationConvolutionForwardDescriptor = 10;
constexpr int kBackendOperationGraphDescriptor = 15;
constexpr int kBackendVariantPackDescriptor = 16;
constexpr int kBackendTensorDescriptor = 17;
// cudnnBackendAttributeType_t
constexpr int kTypeHandle = 0;
constexpr int kTypeDataType = 1;
constexpr int kTypeInt64 = 3;
constexpr int kTypeFloat = 4;
constexpr int kTypeDouble = 5;
constexpr int kTypeVoidPtr = 6;
constexpr int kTypeConvolutionMode = 7;
constexpr int kTypeHeurMode = 8;
constexpr int kTypeNumericalNote = 11;
constexpr int kTypeBehaviorNote = 19;
constexpr int kTypeChar = 24;
constexpr int kTypeBackendDescriptor = 15;
// cudnnBackendAttributeName_t
constexpr int kAttrConvolutionCompType = 100;
constexpr int kAttrConvolutionConvMode = 101;
constexpr int kAttrConvolutionDilations = 102;
constexpr int kAttrConvolutionFilterStrides = 103;
constexpr int kAttrConvolutionPostPaddings = 104;
constexpr int kAttrConvolutionPrePaddings = 105;
constexpr int kAttrConvolutionSpatialDims = 106;
constexpr int kAttrEngineHeurMode = 200;
constexpr int kAttrEngineHeurOperationGraph = 201;
constexpr int kAttrEngineHeurResults = 202;
constexpr int kAttrEngineCfgEngine = 300;
constexpr int kAttrEngineCfgWorkspaceSize = 303;
constexpr int kAttrExecutionPlanHandle = 400;
constexpr int kAttrExecutionPlanEngineConfig = 401;
constexpr int kAttrExecutionPlanWorkspaceSize = 402;
constexpr int kAttrExecutionPlanJsonRepresentation = 405;
constexpr int kAttrOperationConvolutionForwardAlpha = 700;
constexpr int kAttrOperationConvolutionForwardBeta = 701;
constexpr int kAttrOperationConvolutionForwardConvDesc = 702;
constexpr int kAttrOperationConvolutionForwardW = 703;
constexpr int kAttrOperationConvolutionForwardX = 704;
constexpr int kAttrOperationConvolutionForwardY = 705;
constexpr int kAttrOperationGraphHandle = 800;
constexpr int kAttrOperationGraphOps = 801;
constexpr int kAttrTensorByteAlignment = 900;
constexpr int kAttrTensorDataType = 901;
constexpr int kAttrTensorDimensions = 902;
constexpr int kAttrTensorStrides = 903;
constexpr int kAttrTensorUniqueId = 906;
constexpr int kAttrVariantPackUniqueIds = 1000;
constexpr int kAttrVariantPackDataPointers = 1001;
constexpr int kAttrVariantPackWorkspace = 1003;
constexpr int kAttrEngineGlobalIndex = 1301;
constexpr int kAttrEngineNumericalNote = 1303;
constexpr int kAttrEngineBehaviorNote = 1305;
// cudnnBackendNumericalNote_t (cudnn_graph.h 9.6 order)
constexpr int kNumericalNoteTensorCore = 0;
constexpr int kNumericalNoteDownConvertInputs = 1;
constexpr int kNumericalNoteReducedPrecisionReduction = 2;
constexpr int kNumericalNoteFft = 3;
constexpr int kNumericalNoteNondeterministic = 4;
constexpr int kNumericalNoteWinograd = 5;
constexpr int kNumericalNoteWinogradTile4x4 = 6;
constexpr int kNumericalNoteWinogradTile6x6 = 7;
constexpr int kNumericalNoteWinogradTile13x13 = 8;
// cudnnBackendBehaviorNote_t
constexpr int kBehaviorNoteRuntimeCompilation = 0;
// cudnnBackendHeurMode_t
constexpr int kHeurModeInstant = 0;
constexpr int kHeurModeB = 1;
constexpr int kHeurModeFallback = 2;
constexpr int kHeurModeA = 3;

// ---------------------------------------------------------------------------------------------
// CUDA driver API (cuda.h).
using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUevent = void*;
using CUdeviceptr = unsigned long long;
using cuInit_t = CUresult (CUDNNUP_NVAPI*)(unsigned int flags);
using cuDriverGetVersion_t = CUresult (CUDNNUP_NVAPI*)(int* version);
using cuDeviceGetCount_t = CUresult (CUDNNUP_NVAPI*)(int* count);
using cuDeviceGet_t = CUresult (CUDNNUP_NVAPI*)(CUdevice* device, int ordinal);
using cuDeviceGetName_t = CUresult (CUDNNUP_NVAPI*)(char* name, int len, CUdevice device);
using cuDeviceGetAttribute_t = CUresult (CUDNNUP_NVAPI*)(int* value, int attribute, CUdevice device);
using cuDeviceTotalMem_t = CUresult (CUDNNUP_NVAPI*)(size_t* bytes, CUdevice device);  // exported as cuDeviceTotalMem_v2
using cuGetErrorString_t = CUresult (CUDNNUP_NVAPI*)(CUresult error, const char** text);
using cuGetErrorName_t = CUresult (CUDNNUP_NVAPI*)(CUresult error, const char** text);
using cuDevicePrimaryCtxRetain_t = CUresult (CUDNNUP_NVAPI*)(CUcontext* ctx, CUdevice device);
using cuDevicePrimaryCtxRelease_t = CUresult (CUDNNUP_NVAPI*)(CUdevice device);  // _v2
using cuCtxSetCurrent_t = CUresult (CUDNNUP_NVAPI*)(CUcontext ctx);
using cuCtxSynchronize_t = CUresult (CUDNNUP_NVAPI*)();
using cuMemAlloc_t = CUresult (CUDNNUP_NVAPI*)(CUdeviceptr* ptr, size_t bytes);  // _v2
using cuMemFree_t = CUresult (CUDNNUP_NVAPI*)(CUdeviceptr ptr);                  // _v2
using cuMemcpyHtoD_t = CUresult (CUDNNUP_NVAPI*)(CUdeviceptr dst, const void* src, size_t bytes);  // _v2
using cuMemcpyDtoH_t = CUresult (CUDNNUP_NVAPI*)(void* dst, CUdeviceptr src, size_t bytes);        // _v2
using cuMemsetD8_t = CUresult (CUDNNUP_NVAPI*)(CUdeviceptr dst, unsigned char value, size_t count);  // _v2
using cuStreamCreate_t = CUresult (CUDNNUP_NVAPI*)(CUstream* stream, unsigned int flags);
using cuStreamDestroy_t = CUresult (CUDNNUP_NVAPI*)(CUstream stream);  // _v2
using cuStreamSynchronize_t = CUresult (CUDNNUP_NVAPI*)(CUstream stream);
using cuEventCreate_t = CUresult (CUDNNUP_NVAPI*)(CUevent* event, unsigned int flags);
using cuEventDestroy_t = CUresult (CUDNNUP_NVAPI*)(CUevent event);  // _v2
using cuEventRecord_t = CUresult (CUDNNUP_NVAPI*)(CUevent event, CUstream stream);
using cuEventSynchronize_t = CUresult (CUDNNUP_NVAPI*)(CUevent event);
using cuEventElapsedTime_t = CUresult (CUDNNUP_NVAPI*)(float* ms, CUevent start, CUevent end);  // _v2 in 12.8+
constexpr int kCuDeviceAttributeClockRate = 13;  // kHz
constexpr int kCuDeviceAttributeMultiprocessorCount = 16;
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
using nvmlDeviceGetCount_t = nvmlReturn_t (CUDNNUP_NVAPI*)(unsigned int* count);  // exported as nvmlDeviceGetCount_v2
using nvmlDeviceGetHandleByIndex_t = nvmlReturn_t (CUDNNUP_NVAPI*)(unsigned int index, nvmlDevice_t* device);  // _v2
using nvmlDeviceGetName_t = nvmlReturn_t (CUDNNUP_NVAPI*)(nvmlDevice_t device, char* name, unsigned int length);
using nvmlDeviceGetCudaComputeCapability_t = nvmlReturn_t (CUDNNUP_NVAPI*)(nvmlDevice_t device, int* major, int* minor);
struct NvmlMemory {  // nvmlMemory_t (v1)
  unsigned long long total, free, used;
};
using nvmlDeviceGetMemoryInfo_t = nvmlReturn_t (CUDNNUP_NVAPI*)(nvmlDevice_t device, NvmlMemory* memory);

// ---------------------------------------------------------------------------------------------
// Function tables. A null pointer means the library lacks the symbol (older version, stub).

struct CudnnFunctions {
  cudnnGetVersion_t GetVersion = nullptr;
  cudnnGetCudartVersion_t GetCudartVersion = nullptr;
  cudnnGetMaxDeviceVersion_t GetMaxDeviceVersion = nullptr;
  cudnnGetErrorString_t GetErrorString = nullptr;
  cudnnGetLastErrorString_t GetLastErrorString = nullptr;
  cudnnCreate_t Create = nullptr;
  cudnnDestroy_t Destroy = nullptr;
  cudnnSetStream_t SetStream = nullptr;
  cudnnCreateTensorDescriptor_t CreateTensorDescriptor = nullptr;
  cudnnDestroyTensorDescriptor_t DestroyTensorDescriptor = nullptr;
  cudnnSetTensor4dDescriptor_t SetTensor4dDescriptor = nullptr;
  cudnnCreateFilterDescriptor_t CreateFilterDescriptor = nullptr;
  cudnnDestroyFilterDescriptor_t DestroyFilterDescriptor = nullptr;
  cudnnSetFilter4dDescriptor_t SetFilter4dDescriptor = nullptr;
  cudnnCreateConvolutionDescriptor_t CreateConvolutionDescriptor = nullptr;
  cudnnDestroyConvolutionDescriptor_t DestroyConvolutionDescriptor = nullptr;
  cudnnSetConvolution2dDescriptor_t SetConvolution2dDescriptor = nullptr;
  cudnnSetConvolutionMathType_t SetConvolutionMathType = nullptr;
  cudnnGetConvolutionAlgorithm_v7_t GetConvolutionForwardAlgorithm_v7 = nullptr;
  cudnnGetConvolutionAlgorithm_v7_t GetConvolutionBackwardDataAlgorithm_v7 = nullptr;
  cudnnGetConvolutionAlgorithm_v7_t GetConvolutionBackwardFilterAlgorithm_v7 = nullptr;
  cudnnGetConvolutionWorkspaceSize_t GetConvolutionForwardWorkspaceSize = nullptr;
  cudnnGetConvolutionWorkspaceSize_t GetConvolutionBackwardDataWorkspaceSize = nullptr;
  cudnnGetConvolutionWorkspaceSize_t GetConvolutionBackwardFilterWorkspaceSize = nullptr;
  cudnnConvolutionRun_t ConvolutionForward = nullptr;
  cudnnConvolutionRun_t ConvolutionBackwardData = nullptr;
  cudnnConvolutionRun_t ConvolutionBackwardFilter = nullptr;
  cudnnBackendCreateDescriptor_t BackendCreateDescriptor = nullptr;
  cudnnBackendDestroyDescriptor_t BackendDestroyDescriptor = nullptr;
  cudnnBackendFinalize_t BackendFinalize = nullptr;
  cudnnBackendSetAttribute_t BackendSetAttribute = nullptr;
  cudnnBackendGetAttribute_t BackendGetAttribute = nullptr;
  cudnnBackendExecute_t BackendExecute = nullptr;
};

struct CudaDriverFunctions {
  cuInit_t Init = nullptr;
  cuDriverGetVersion_t DriverGetVersion = nullptr;
  cuDeviceGetCount_t DeviceGetCount = nullptr;
  cuDeviceGet_t DeviceGet = nullptr;
  cuDeviceGetName_t DeviceGetName = nullptr;
  cuDeviceGetAttribute_t DeviceGetAttribute = nullptr;
  cuDeviceTotalMem_t DeviceTotalMem = nullptr;
  cuGetErrorString_t GetErrorString = nullptr;
  cuGetErrorName_t GetErrorName = nullptr;
  cuDevicePrimaryCtxRetain_t DevicePrimaryCtxRetain = nullptr;
  cuDevicePrimaryCtxRelease_t DevicePrimaryCtxRelease = nullptr;
  cuCtxSetCurrent_t CtxSetCurrent = nullptr;
  cuCtxSynchronize_t CtxSynchronize = nullptr;
  cuMemAlloc_t MemAlloc = nullptr;
  cuMemFree_t MemFree = nullptr;
  cuMemcpyHtoD_t MemcpyHtoD = nullptr;
  cuMemcpyDtoH_t MemcpyDtoH = nullptr;
  cuMemsetD8_t MemsetD8 = nullptr;
  cuStreamCreate_t StreamCreate = nullptr;
  cuStreamDestroy_t StreamDestroy = nullptr;
  cuStreamSynchronize_t StreamSynchronize = nullptr;
  cuEventCreate_t EventCreate = nullptr;
  cuEventDestroy_t EventDestroy = nullptr;
  cuEventRecord_t EventRecord = nullptr;
  cuEventSynchronize_t EventSynchronize = nullptr;
  cuEventElapsedTime_t EventElapsedTime = nullptr;
};

}  // namespace cudnnup::nv
