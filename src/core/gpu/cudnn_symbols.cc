#include "gpu/cudnn_symbols.h"

namespace cudnnup {

std::vector<std::string> cudnn_version_check_functions(int major) {
  // cudnn_graph.h / cudnn_ops.h / cudnn_cnn.h / cudnn_adv.h (9.x); cudnn_{ops,cnn,adv}_{infer,train}.h
  // (8.x): "Cross-library version checker ... Each sublib checks whether its own version matches
  // that of its dependencies." https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html
  if (major == 8) {
    return {"cudnnOpsInferVersionCheck", "cudnnOpsTrainVersionCheck", "cudnnCnnInferVersionCheck",
            "cudnnCnnTrainVersionCheck", "cudnnAdvInferVersionCheck", "cudnnAdvTrainVersionCheck"};
  }
  return {"cudnnGraphVersionCheck", "cudnnOpsVersionCheck", "cudnnCnnVersionCheck", "cudnnAdvVersionCheck"};
}

std::vector<CudnnSymbolGroup> required_cudnn_symbols(int major) {
  std::vector<CudnnSymbolGroup> out;
  CudnnSymbolGroup versions{"version functions", "verify's versions stage and every framework's version check",
                            {"cudnnGetVersion", "cudnnGetCudartVersion", "cudnnGetErrorString", "cudnnGetProperty"}};
  if (major != 8) {
    versions.symbols.push_back("cudnnGetMaxDeviceVersion");  // 9.0+
    versions.symbols.push_back("cudnnGetLastErrorString");   // 9.0+
  }
  out.push_back(versions);
  out.push_back({"sub-library version checks", "verify's library stage; TensorFlow calls them to preload the sub-libraries",
                 cudnn_version_check_functions(major)});
  out.push_back({"legacy convolution API", "verify's convolution stages and PyTorch's cuDNN v7 path",
                 {"cudnnCreate", "cudnnDestroy", "cudnnSetStream", "cudnnGetStream",
                  "cudnnCreateTensorDescriptor", "cudnnSetTensor4dDescriptor", "cudnnSetTensorNdDescriptor",
                  "cudnnDestroyTensorDescriptor", "cudnnCreateFilterDescriptor", "cudnnSetFilter4dDescriptor",
                  "cudnnSetFilterNdDescriptor", "cudnnDestroyFilterDescriptor", "cudnnCreateConvolutionDescriptor",
                  "cudnnSetConvolution2dDescriptor", "cudnnSetConvolutionNdDescriptor", "cudnnSetConvolutionGroupCount",
                  "cudnnSetConvolutionMathType", "cudnnDestroyConvolutionDescriptor",
                  "cudnnGetConvolutionForwardAlgorithm_v7", "cudnnGetConvolutionBackwardDataAlgorithm_v7",
                  "cudnnGetConvolutionBackwardFilterAlgorithm_v7", "cudnnFindConvolutionForwardAlgorithmEx",
                  "cudnnFindConvolutionBackwardDataAlgorithmEx", "cudnnFindConvolutionBackwardFilterAlgorithmEx",
                  "cudnnGetConvolutionForwardWorkspaceSize", "cudnnGetConvolutionBackwardDataWorkspaceSize",
                  "cudnnGetConvolutionBackwardFilterWorkspaceSize", "cudnnConvolutionForward",
                  "cudnnConvolutionBackwardData", "cudnnConvolutionBackwardFilter", "cudnnConvolutionBiasActivationForward",
                  "cudnnConvolutionBackwardBias", "cudnnAddTensor"}});
  out.push_back({"backend (graph) API",
                 "bench, verify's graph stages, PyTorch's default convolution path and cudnn-frontend",
                 {"cudnnBackendCreateDescriptor", "cudnnBackendDestroyDescriptor", "cudnnBackendFinalize",
                  "cudnnBackendSetAttribute", "cudnnBackendGetAttribute", "cudnnBackendExecute"}});
  // PyTorch aten/src/ATen/native/cudnn/ (BatchNorm.cpp, RNN.cpp, LossCTC.cpp, AffineGridGenerator.cpp,
  // GridSampler.cpp) and TensorFlow's cuda_dnn.cc (activation, pooling, softmax).
  out.push_back({"framework operations", "PyTorch's batch norm, RNN, CTC loss and grid sampler; TensorFlow's layers",
                 {"cudnnDeriveBNTensorDescriptor", "cudnnBatchNormalizationForwardInference",
                  "cudnnBatchNormalizationForwardTrainingEx", "cudnnBatchNormalizationBackwardEx",
                  "cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize",
                  "cudnnGetBatchNormalizationBackwardExWorkspaceSize",
                  "cudnnGetBatchNormalizationTrainingExReserveSpaceSize", "cudnnCreateDropoutDescriptor",
                  "cudnnSetDropoutDescriptor", "cudnnRestoreDropoutDescriptor", "cudnnDropoutGetStatesSize",
                  "cudnnDestroyDropoutDescriptor", "cudnnCreateRNNDescriptor", "cudnnSetRNNDescriptor_v8",
                  "cudnnDestroyRNNDescriptor", "cudnnCreateRNNDataDescriptor", "cudnnSetRNNDataDescriptor",
                  "cudnnDestroyRNNDataDescriptor", "cudnnGetRNNWeightSpaceSize", "cudnnGetRNNTempSpaceSizes",
                  "cudnnRNNForward", "cudnnRNNBackwardData_v8", "cudnnRNNBackwardWeights_v8",
                  "cudnnCreateCTCLossDescriptor", "cudnnSetCTCLossDescriptorEx", "cudnnDestroyCTCLossDescriptor",
                  "cudnnGetCTCLossWorkspaceSize", "cudnnCTCLoss", "cudnnCreateSpatialTransformerDescriptor",
                  "cudnnSetSpatialTransformerNdDescriptor", "cudnnDestroySpatialTransformerDescriptor",
                  "cudnnSpatialTfGridGeneratorForward", "cudnnSpatialTfGridGeneratorBackward",
                  "cudnnSpatialTfSamplerForward", "cudnnSpatialTfSamplerBackward", "cudnnCreateActivationDescriptor",
                  "cudnnSetActivationDescriptor", "cudnnActivationForward", "cudnnCreatePoolingDescriptor",
                  "cudnnSetPoolingNdDescriptor", "cudnnPoolingForward", "cudnnSoftmaxForward"}});
  return out;
}

}  // namespace cudnnup
