#include "adapters/cudnn_api.h"

namespace cudnnup {
namespace {

template <typename Fn>
void bind(const DynamicLibrary& lib, Fn& slot, const char* name, std::vector<std::string>* missing) {
  slot = lib.function<Fn>(name);
  if (!slot && missing) missing->push_back(name);
}

}  // namespace

Result<CudnnApi> CudnnApi::load(const std::string& shim_path) {
  auto lib = DynamicLibrary::open(shim_path);
  if (!lib) return lib.error();
  CudnnApi api(std::move(lib.value()));
  const DynamicLibrary& l = api.lib_;
  nv::CudnnFunctions& f = api.fn_;
  bind(l, f.GetVersion, "cudnnGetVersion", nullptr);
  bind(l, f.GetCudartVersion, "cudnnGetCudartVersion", nullptr);
  bind(l, f.GetMaxDeviceVersion, "cudnnGetMaxDeviceVersion", nullptr);
  bind(l, f.GetErrorString, "cudnnGetErrorString", nullptr);
  bind(l, f.GetLastErrorString, "cudnnGetLastErrorString", nullptr);
  bind(l, f.GraphVersionCheck, "cudnnGraphVersionCheck", nullptr);
  bind(l, f.OpsVersionCheck, "cudnnOpsVersionCheck", nullptr);
  bind(l, f.CnnVersionCheck, "cudnnCnnVersionCheck", nullptr);
  bind(l, f.AdvVersionCheck, "cudnnAdvVersionCheck", nullptr);

  std::vector<std::string>* legacy = &api.missing_legacy_;
  bind(l, f.Create, "cudnnCreate", legacy);
  bind(l, f.Destroy, "cudnnDestroy", legacy);
  bind(l, f.SetStream, "cudnnSetStream", legacy);
  bind(l, f.CreateTensorDescriptor, "cudnnCreateTensorDescriptor", legacy);
  bind(l, f.DestroyTensorDescriptor, "cudnnDestroyTensorDescriptor", legacy);
  bind(l, f.SetTensor4dDescriptor, "cudnnSetTensor4dDescriptor", legacy);
  bind(l, f.CreateFilterDescriptor, "cudnnCreateFilterDescriptor", legacy);
  bind(l, f.DestroyFilterDescriptor, "cudnnDestroyFilterDescriptor", legacy);
  bind(l, f.SetFilter4dDescriptor, "cudnnSetFilter4dDescriptor", legacy);
  bind(l, f.CreateConvolutionDescriptor, "cudnnCreateConvolutionDescriptor", legacy);
  bind(l, f.DestroyConvolutionDescriptor, "cudnnDestroyConvolutionDescriptor", legacy);
  bind(l, f.SetConvolution2dDescriptor, "cudnnSetConvolution2dDescriptor", legacy);
  bind(l, f.SetConvolutionMathType, "cudnnSetConvolutionMathType", legacy);
  bind(l, f.GetConvolutionForwardAlgorithm_v7, "cudnnGetConvolutionForwardAlgorithm_v7", legacy);
  bind(l, f.GetConvolutionBackwardDataAlgorithm_v7, "cudnnGetConvolutionBackwardDataAlgorithm_v7", legacy);
  bind(l, f.GetConvolutionBackwardFilterAlgorithm_v7, "cudnnGetConvolutionBackwardFilterAlgorithm_v7", legacy);
  bind(l, f.GetConvolutionForwardWorkspaceSize, "cudnnGetConvolutionForwardWorkspaceSize", legacy);
  bind(l, f.GetConvolutionBackwardDataWorkspaceSize, "cudnnGetConvolutionBackwardDataWorkspaceSize", legacy);
  bind(l, f.GetConvolutionBackwardFilterWorkspaceSize, "cudnnGetConvolutionBackwardFilterWorkspaceSize", legacy);
  bind(l, f.ConvolutionForward, "cudnnConvolutionForward", legacy);
  bind(l, f.ConvolutionBackwardData, "cudnnConvolutionBackwardData", legacy);
  bind(l, f.ConvolutionBackwardFilter, "cudnnConvolutionBackwardFilter", legacy);

  std::vector<std::string>* backend = &api.missing_backend_;
  bind(l, f.BackendCreateDescriptor, "cudnnBackendCreateDescriptor", backend);
  bind(l, f.BackendDestroyDescriptor, "cudnnBackendDestroyDescriptor", backend);
  bind(l, f.BackendFinalize, "cudnnBackendFinalize", backend);
  bind(l, f.BackendSetAttribute, "cudnnBackendSetAttribute", backend);
  bind(l, f.BackendGetAttribute, "cudnnBackendGetAttribute", backend);
  bind(l, f.BackendExecute, "cudnnBackendExecute", backend);
  return api;
}

}  // namespace cudnnup
