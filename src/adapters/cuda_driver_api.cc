#include "adapters/cuda_driver_api.h"

namespace cudnnup {
namespace {

template <typename Fn>
void bind(const DynamicLibrary& lib, Fn& slot, std::initializer_list<const char*> names,
          std::vector<std::string>& missing) {
  for (const char* name : names) {
    slot = lib.function<Fn>(name);
    if (slot) return;
  }
  missing.push_back(*names.begin());
}

}  // namespace

Result<CudaDriverApi> CudaDriverApi::load(const std::string& libcuda_path) {
  auto lib = DynamicLibrary::open(libcuda_path);
  if (!lib) return lib.error();
  CudaDriverApi api(std::move(lib.value()));
  const DynamicLibrary& l = api.lib_;
  nv::CudaDriverFunctions& f = api.fn_;
  auto& m = api.missing_;
  bind(l, f.Init, {"cuInit"}, m);
  bind(l, f.DriverGetVersion, {"cuDriverGetVersion"}, m);
  bind(l, f.DeviceGetCount, {"cuDeviceGetCount"}, m);
  bind(l, f.DeviceGet, {"cuDeviceGet"}, m);
  bind(l, f.DeviceGetName, {"cuDeviceGetName"}, m);
  bind(l, f.DeviceGetAttribute, {"cuDeviceGetAttribute"}, m);
  bind(l, f.DeviceTotalMem, {"cuDeviceTotalMem_v2", "cuDeviceTotalMem"}, m);
  bind(l, f.GetErrorString, {"cuGetErrorString"}, m);
  bind(l, f.GetErrorName, {"cuGetErrorName"}, m);
  bind(l, f.DevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"}, m);
  bind(l, f.DevicePrimaryCtxRelease, {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}, m);
  bind(l, f.CtxSetCurrent, {"cuCtxSetCurrent"}, m);
  bind(l, f.CtxSynchronize, {"cuCtxSynchronize"}, m);
  bind(l, f.MemAlloc, {"cuMemAlloc_v2"}, m);
  bind(l, f.MemFree, {"cuMemFree_v2"}, m);
  bind(l, f.MemcpyHtoD, {"cuMemcpyHtoD_v2"}, m);
  bind(l, f.MemcpyDtoH, {"cuMemcpyDtoH_v2"}, m);
  bind(l, f.MemsetD8, {"cuMemsetD8_v2"}, m);
  bind(l, f.StreamCreate, {"cuStreamCreate"}, m);
  bind(l, f.StreamDestroy, {"cuStreamDestroy_v2", "cuStreamDestroy"}, m);
  bind(l, f.StreamSynchronize, {"cuStreamSynchronize"}, m);
  bind(l, f.EventCreate, {"cuEventCreate"}, m);
  bind(l, f.EventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"}, m);
  bind(l, f.EventRecord, {"cuEventRecord"}, m);
  bind(l, f.EventSynchronize, {"cuEventSynchronize"}, m);
  bind(l, f.EventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"}, m);
  return api;
}

}  // namespace cudnnup
