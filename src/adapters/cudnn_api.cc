#include "adapters/cudnn_api.h"

#include <type_traits>

#include "gpu/cudnn_symbols.h"

namespace cudnnup {

Result<CudnnApi> CudnnApi::load(const std::string& shim_path, int major) {
  auto lib = DynamicLibrary::open(shim_path);
  if (!lib) return lib.error();
  CudnnApi api(std::move(lib.value()));
  const DynamicLibrary& l = api.lib_;
  for (const auto& group : required_cudnn_symbols(major)) {
    for (const auto& name : group.symbols) {
      if (!l.symbol(name.c_str())) api.missing_.push_back(name);
    }
  }
  for (const auto& name : cudnn_version_check_functions(major)) {
    if (auto check = l.function<nv::cudnnVersionCheck_t>(name.c_str())) api.checks_.emplace_back(name, check);
  }
  nv::CudnnFunctions& f = api.fn_;
  auto bind = [&l](auto& slot, const char* name) { slot = l.function<std::remove_reference_t<decltype(slot)>>(name); };
  bind(f.GetVersion, "cudnnGetVersion");
  bind(f.GetCudartVersion, "cudnnGetCudartVersion");
  bind(f.GetMaxDeviceVersion, "cudnnGetMaxDeviceVersion");
  bind(f.GetErrorString, "cudnnGetErrorString");
  bind(f.GetLastErrorString, "cudnnGetLastErrorString");
  bind(f.Create, "cudnnCreate");
  bind(f.Destroy, "cudnnDestroy");
  bind(f.SetStream, "cudnnSetStream");
  bind(f.CreateTensorDescriptor, "cudnnCreateTensorDescriptor");
  bind(f.DestroyTensorDescriptor, "cudnnDestroyTensorDescriptor");
  bind(f.SetTensor4dDescriptor, "cudnnSetTensor4dDescriptor");
  bind(f.CreateFilterDescriptor, "cudnnCreateFilterDescriptor");
  bind(f.DestroyFilterDescriptor, "cudnnDestroyFilterDescriptor");
  bind(f.SetFilter4dDescriptor, "cudnnSetFilter4dDescriptor");
  bind(f.CreateConvolutionDescriptor, "cudnnCreateConvolutionDescriptor");
  bind(f.DestroyConvolutionDescriptor, "cudnnDestroyConvolutionDescriptor");
  bind(f.SetConvolution2dDescriptor, "cudnnSetConvolution2dDescriptor");
  bind(f.SetConvolutionMathType, "cudnnSetConvolutionMathType");
  bind(f.GetConvolutionForwardAlgorithm_v7, "cudnnGetConvolutionForwardAlgorithm_v7");
  bind(f.GetConvolutionBackwardDataAlgorithm_v7, "cudnnGetConvolutionBackwardDataAlgorithm_v7");
  bind(f.GetConvolutionBackwardFilterAlgorithm_v7, "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
  bind(f.GetConvolutionForwardWorkspaceSize, "cudnnGetConvolutionForwardWorkspaceSize");
  bind(f.GetConvolutionBackwardDataWorkspaceSize, "cudnnGetConvolutionBackwardDataWorkspaceSize");
  bind(f.GetConvolutionBackwardFilterWorkspaceSize, "cudnnGetConvolutionBackwardFilterWorkspaceSize");
  bind(f.ConvolutionForward, "cudnnConvolutionForward");
  bind(f.ConvolutionBackwardData, "cudnnConvolutionBackwardData");
  bind(f.ConvolutionBackwardFilter, "cudnnConvolutionBackwardFilter");
  bind(f.BackendCreateDescriptor, "cudnnBackendCreateDescriptor");
  bind(f.BackendDestroyDescriptor, "cudnnBackendDestroyDescriptor");
  bind(f.BackendFinalize, "cudnnBackendFinalize");
  bind(f.BackendSetAttribute, "cudnnBackendSetAttribute");
  bind(f.BackendGetAttribute, "cudnnBackendGetAttribute");
  bind(f.BackendExecute, "cudnnBackendExecute");
  return api;
}

}  // namespace cudnnup
