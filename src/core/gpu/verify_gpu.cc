#include "gpu/verify_gpu.h"

#include <chrono>
#include <cstring>
#include <limits>
#include <optional>

#include "facts/cuda_errors.h"
#include "facts/cudnn_status.h"
#include "gpu/cudnn_graph.h"
#include "gpu/tolerance.h"

namespace cudnnup {

namespace {

Finding gpu_error_finding(std::string id, std::string title, std::string detail, std::vector<std::string> evidence,
                     std::vector<FixStep> fix) {
  Finding f;
  f.id = std::move(id);
  f.severity = Severity::kError;
  f.title = std::move(title);
  f.detail = std::move(detail);
  f.evidence = std::move(evidence);
  f.fix = std::move(fix);
  return f;
}

std::string cuda_error_text(const nv::CudaDriverFunctions& cu, int rc) {
  CudaErrorInfo info = decode_cuda_error(rc);
  std::string text = info.name + " (" + std::to_string(rc) + ")";
  const char* driver_text = nullptr;
  if (cu.GetErrorString && cu.GetErrorString(rc, &driver_text) == 0 && driver_text) text += ": " + std::string(driver_text);
  return text;
}

StageResult cuda_failure(const std::string& id, const std::string& title, const nv::CudaDriverFunctions& cu,
                         const std::string& call, int rc) {
  CudaErrorInfo info = decode_cuda_error(rc);
  std::string text = call + " failed: " + cuda_error_text(cu, rc);
  StageResult s = stage_fail(id, title, text,
                             gpu_error_finding("verify.cuda." + std::string(info.means_no_gpu ? "no_gpu" : "error"), text,
                                          "The CUDA driver refused a basic request, so no cuDNN work can run.",
                                          {text},
                                          info.fix.empty() ? std::vector<FixStep>{fix::run({"nvidia-smi"}),
                                                                                  fix::step("Reinstall the NVIDIA driver if it fails too.")}
                                                           : std::vector<FixStep>{fix::step(info.fix)}));
  s.no_gpu = info.means_no_gpu;
  return s;
}

std::string cudnn_error_text(const GpuSession& s, int status) {
  CudnnStatusDecoded info = decode_cudnn_status(status, s.cudnn_major);
  std::string text = info.name + " (" + std::to_string(status) + "): " + info.meaning;
  if (s.dnn->GetLastErrorString) {
    char last[512] = {0};
    s.dnn->GetLastErrorString(last, sizeof last - 1);
    if (last[0]) text += "; cuDNN says: " + std::string(last);
  }
  return text;
}

StageResult cudnn_failure(const std::string& id, const std::string& title, const GpuSession& s,
                          const std::string& call, int status, std::vector<std::string> evidence = {}) {
  CudnnStatusDecoded info = decode_cudnn_status(status, s.cudnn_major);
  std::string text = call + " failed: " + cudnn_error_text(s, status);
  evidence.insert(evidence.begin(), text);
  return stage_fail(id, title, text,
                    gpu_error_finding("verify.cudnn." + std::string(info.known ? info.name.substr(6) : "STATUS_UNKNOWN"),
                                 call + " failed with " + info.name, info.meaning, evidence,
                                 {info.fix.empty() ? fix::cudnnup({"verify", "--json"}, "and report its output")
                                                   : fix::step(info.fix)}));
}

StageResult missing_symbols(const std::string& id, const std::string& title, const std::vector<const char*>& names) {
  std::string list;
  for (const char* n : names) list += (list.empty() ? "" : ", ") + std::string(n);
  return stage_fail(id, title, "the library lacks " + list,
                    gpu_error_finding("verify.library.symbols_missing", "cuDNN library lacks API functions: " + list,
                                 "This is not a complete cuDNN library (a stub, or a damaged file).", {list},
                                 {fix::step("Reinstall the copy."), fix::cudnnup({"doctor"}, "shows where each file came from")}));
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

DriverFacts query_driver(const nv::CudaDriverFunctions& cu, const std::string& libcuda_path, int gpu) {
  DriverFacts f;
  f.libcuda_path = libcuda_path;
  f.gpu = gpu;
  if (!cu.Init) return f;
  if (cu.DriverGetVersion) cu.DriverGetVersion(&f.driver_cuda_number);
  f.init_result = cu.Init(0);
  if (f.init_result != 0) return f;
  if (cu.DeviceGetCount) cu.DeviceGetCount(&f.device_count);
  nv::CUdevice dev = 0;
  if (gpu >= f.device_count || !cu.DeviceGet || cu.DeviceGet(&dev, gpu) != 0) return f;
  char name[256] = {0};
  if (cu.DeviceGetName && cu.DeviceGetName(name, sizeof name - 1, dev) == 0) f.gpu_name = name;
  if (cu.DeviceGetAttribute) {
    cu.DeviceGetAttribute(&f.cc_major, nv::kCuDeviceAttributeComputeCapabilityMajor, dev);
    cu.DeviceGetAttribute(&f.cc_minor, nv::kCuDeviceAttributeComputeCapabilityMinor, dev);
    cu.DeviceGetAttribute(&f.sm_count, nv::kCuDeviceAttributeMultiprocessorCount, dev);
    cu.DeviceGetAttribute(&f.clock_khz, nv::kCuDeviceAttributeClockRate, dev);
  }
  size_t bytes = 0;
  if (cu.DeviceTotalMem && cu.DeviceTotalMem(&bytes, dev) == 0) f.memory_bytes = bytes;
  return f;
}

StageResult run_driver_stage(const DriverFacts& f, GpuSession& s) {
  const std::string id = "driver", title = "CUDA driver: context on the GPU";
  if (f.libcuda_path.empty() || !f.load_error.empty()) {
    std::vector<std::string> ev;
    if (!f.libcuda_path.empty()) ev.push_back(f.libcuda_path + ": " + f.load_error);
    StageResult st = stage_fail(
        id, title, "no NVIDIA driver/GPU: " + (f.libcuda_path.empty() ? std::string("libcuda not found") : f.load_error),
        gpu_error_finding("verify.driver.none", "No NVIDIA driver/GPU",
                     "The CUDA driver library (libcuda.so.1 / nvcuda.dll) is not installed or does not load, so "
                     "nothing can run on a GPU here.",
                     ev, f.windows ? std::vector<FixStep>{fix::step("Install the NVIDIA display driver for your GPU (it provides "
                                                                     "nvcuda.dll) from https://www.nvidia.com/Download/index.aspx, "
                                                                     "then check it:"),
                                                           fix::run({"nvidia-smi"})}
                                   : std::vector<FixStep>{fix::step("Install the NVIDIA driver (it provides libcuda), then check it:"),
                                                          fix::run({"nvidia-smi"}),
                                                          fix::step("In a container, start it with GPU access (docker run --gpus all IMAGE).")}));
    st.no_gpu = true;
    return st;
  }
  if (f.init_result != 0) {
    StageResult st = cuda_failure(id, title, *s.cu, "cuInit", f.init_result);
    if (st.no_gpu) {
      st.summary = "no NVIDIA driver/GPU: " + st.summary;
      st.finding->id = "verify.driver.none";
      st.finding->title = "No NVIDIA driver/GPU";
    }
    st.evidence.push_back("libcuda " + f.libcuda_path);
    return st;
  }
  if (f.gpu >= f.device_count) {
    StageResult st = stage_fail(
        id, title, "no GPU " + std::to_string(f.gpu) + " (the driver sees " + std::to_string(f.device_count) + ")",
        gpu_error_finding("verify.driver.no_such_gpu", "GPU " + std::to_string(f.gpu) + " does not exist",
                     "The driver sees " + std::to_string(f.device_count) + " GPU(s).", {},
                     {fix::step("Pick a GPU from 0 to " + std::to_string(f.device_count - 1) + " (--gpu N), or check "
                                "CUDA_VISIBLE_DEVICES.")}));
    st.no_gpu = f.device_count == 0;
    return st;
  }
  auto& cu = *s.cu;
  if (!cu.DeviceGet || !cu.DevicePrimaryCtxRetain || !cu.CtxSetCurrent || !cu.StreamCreate) {
    return missing_symbols(id, title, {"cuDeviceGet/cuDevicePrimaryCtxRetain/cuCtxSetCurrent/cuStreamCreate"});
  }
  int rc = cu.DeviceGet(&s.device, f.gpu);
  if (rc != 0) return cuda_failure(id, title, cu, "cuDeviceGet", rc);
  rc = cu.DevicePrimaryCtxRetain(&s.context, s.device);
  if (rc != 0) return cuda_failure(id, title, cu, "cuDevicePrimaryCtxRetain", rc);
  s.context_retained = true;
  rc = cu.CtxSetCurrent(s.context);
  if (rc != 0) return cuda_failure(id, title, cu, "cuCtxSetCurrent", rc);
  rc = cu.StreamCreate(&s.stream, 0);
  if (rc != 0) return cuda_failure(id, title, cu, "cuStreamCreate", rc);
  StageResult st = stage_pass(id, title,
                              "GPU " + std::to_string(f.gpu) + ": " + f.gpu_name + " (compute capability " +
                                  std::to_string(f.cc_major) + "." + std::to_string(f.cc_minor) + ")");
  st.evidence.push_back("libcuda " + f.libcuda_path);
  st.evidence.push_back("driver supports CUDA " + decode_cuda_version_number(f.driver_cuda_number).str());
  st.evidence.push_back(std::to_string(f.device_count) + " GPU(s) visible");
  st.evidence.push_back(std::to_string(f.memory_bytes >> 20) + " MiB, " + std::to_string(f.sm_count) + " SMs");
  return st;
}

StageResult run_handle_stage(GpuSession& s) {
  const std::string id = "handle", title = "cudnnCreate and cudnnSetStream";
  if (!s.dnn->Create || !s.dnn->SetStream) return missing_symbols(id, title, {"cudnnCreate/cudnnSetStream"});
  int st = s.dnn->Create(&s.handle);
  if (st != 0) {
    s.handle = nullptr;
    return cudnn_failure(id, title, s, "cudnnCreate", st);
  }
  st = s.dnn->SetStream(s.handle, s.stream);
  if (st != 0) return cudnn_failure(id, title, s, "cudnnSetStream", st);
  return stage_pass(id, title, "handle created");
}

std::string ConvCheck::id() const {
  std::string l = layout == TensorLayout::kNchw ? "nchw" : "nhwc";
  return std::string(api == ConvApi::kGraph ? "graph." : "conv.") + direction_name(direction) + "." +
         data_type_name(type) + "." + l;
}

std::string ConvCheck::title() const {
  return std::string(api == ConvApi::kGraph ? "Graph-API convolution " : "Convolution ") + direction_name(direction) +
         ", " + data_type_name(type) + ", " + layout_name(layout) + " vs CPU reference";
}

ConvShape verify_conv_shape() {
  ConvShape sh;
  sh.n = 2;
  sh.c = 8;
  sh.h = sh.w = 12;
  sh.k = 16;
  sh.r = sh.s = 3;
  sh.pad_h = sh.pad_w = 1;
  return sh;
}

std::vector<ConvCheck> default_conv_checks() {
  std::vector<ConvCheck> out;
  for (auto dir : {ConvDirection::kForward, ConvDirection::kBackwardData, ConvDirection::kBackwardFilter})
    for (auto type : {DataType::kFloat, DataType::kHalf, DataType::kBfloat16})
      for (auto layout : {TensorLayout::kNchw, TensorLayout::kNhwc})
        out.push_back(ConvCheck{dir, type, layout, verify_conv_shape(), ConvApi::kLegacy});
  out.push_back(ConvCheck{ConvDirection::kForward, DataType::kFloat, TensorLayout::kNchw, verify_conv_shape(), ConvApi::kGraph});
  out.push_back(ConvCheck{ConvDirection::kForward, DataType::kHalf, TensorLayout::kNhwc, verify_conv_shape(), ConvApi::kGraph});
  out.push_back(ConvCheck{ConvDirection::kForward, DataType::kBfloat16, TensorLayout::kNhwc, verify_conv_shape(), ConvApi::kGraph});
  return out;
}

bool is_transform_algorithm(ConvDirection direction, int algo) {
  switch (direction) {
    case ConvDirection::kForward: return algo >= 4 && algo <= 7;        // FFT, FFT_TILING, WINOGRAD(_NONFUSED)
    case ConvDirection::kBackwardData: return algo >= 2 && algo <= 5;   // FFT, FFT_TILING, WINOGRAD(_NONFUSED)
    case ConvDirection::kBackwardFilter: return algo >= 2 && algo <= 6 && algo != 3;  // FFT, WINOGRAD(_NONFUSED), FFT_TILING
  }
  return false;
}

namespace {

int cudnn_data_type(DataType t) {
  switch (t) {
    case DataType::kFloat: return nv::kCudnnDataFloat;
    case DataType::kHalf: return nv::kCudnnDataHalf;
    case DataType::kBfloat16: return nv::kCudnnDataBfloat16;
  }
  return nv::kCudnnDataFloat;
}

// The two inputs of a convolution (in the order the cuDNN call takes them) and the reference.
struct ConvData {
  std::vector<float> a, b;
  Reference want;
  size_t out_count = 0;
};

ConvData make_conv_data(const ConvCheck& c) {
  const ConvShape& sh = c.shape;
  ConvData d;
  const uint64_t seed = 0x5eed0000ull + static_cast<uint64_t>(c.direction) * 16 + static_cast<uint64_t>(c.type);
  if (c.direction == ConvDirection::kForward) {
    d.a = random_tensor(sh.x_count(), seed, c.type);
    d.b = random_tensor(sh.w_count(), seed + 1, c.type);
    d.want = conv_forward_reference(sh, c.layout, d.a, d.b);
    d.out_count = sh.y_count();
  } else if (c.direction == ConvDirection::kBackwardData) {
    d.a = random_tensor(sh.w_count(), seed, c.type);
    d.b = random_tensor(sh.y_count(), seed + 1, c.type);
    d.want = conv_backward_data_reference(sh, c.layout, d.a, d.b);
    d.out_count = sh.x_count();
  } else {
    d.a = random_tensor(sh.x_count(), seed, c.type);
    d.b = random_tensor(sh.y_count(), seed + 1, c.type);
    d.want = conv_backward_filter_reference(sh, c.layout, d.a, d.b);
    d.out_count = sh.w_count();
  }
  return d;
}

// Destroys what a conv stage created, whatever path it leaves by.
struct ConvResources {
  const GpuSession& s;
  void* tensors[3] = {nullptr, nullptr, nullptr};  // x, y, w
  nv::cudnnConvolutionDescriptor_t conv = nullptr;
  nv::CUdeviceptr buffers[4] = {0, 0, 0, 0};  // a, b, out, workspace
  explicit ConvResources(const GpuSession& session) : s(session) {}
  ~ConvResources() {
    if (tensors[0]) s.dnn->DestroyTensorDescriptor(tensors[0]);
    if (tensors[1]) s.dnn->DestroyTensorDescriptor(tensors[1]);
    if (tensors[2]) s.dnn->DestroyFilterDescriptor(tensors[2]);
    if (conv) s.dnn->DestroyConvolutionDescriptor(conv);
    for (auto b : buffers) {
      if (b) s.cu->MemFree(b);
    }
  }
};

bool has_device_memory_api(const nv::CudaDriverFunctions& cu) {
  return cu.MemAlloc && cu.MemFree && cu.MemcpyHtoD && cu.MemcpyDtoH && cu.MemsetD8 && cu.StreamSynchronize;
}

// Copies the inputs up and fills the output with all-ones bytes: NaN in fp32, fp16 and bf16, so
// an output cuDNN never wrote cannot pass. Returns the failed stage, if any.
std::optional<StageResult> upload(const ConvCheck& c, const GpuSession& s, const ConvData& d, ConvResources& res) {
  const auto& cu = *s.cu;
  std::vector<uint8_t> a = encode_tensor(d.a, c.type), b = encode_tensor(d.b, c.type);
  const size_t out_bytes = d.out_count * data_type_size(c.type);
  int rc;
  if ((rc = cu.MemAlloc(&res.buffers[0], a.size())) != 0) return cuda_failure(c.id(), c.title(), cu, "cuMemAlloc", rc);
  if ((rc = cu.MemAlloc(&res.buffers[1], b.size())) != 0) return cuda_failure(c.id(), c.title(), cu, "cuMemAlloc", rc);
  if ((rc = cu.MemAlloc(&res.buffers[2], out_bytes)) != 0) return cuda_failure(c.id(), c.title(), cu, "cuMemAlloc", rc);
  if ((rc = cu.MemcpyHtoD(res.buffers[0], a.data(), a.size())) != 0)
    return cuda_failure(c.id(), c.title(), cu, "cuMemcpyHtoD", rc);
  if ((rc = cu.MemcpyHtoD(res.buffers[1], b.data(), b.size())) != 0)
    return cuda_failure(c.id(), c.title(), cu, "cuMemcpyHtoD", rc);
  if ((rc = cu.MemsetD8(res.buffers[2], 0xff, out_bytes)) != 0) return cuda_failure(c.id(), c.title(), cu, "cuMemsetD8", rc);
  return std::nullopt;
}

// Waits for the GPU, reads the output back and compares it with the reference.
StageResult check_output(const ConvCheck& c, const GpuSession& s, const ConvData& d, const ConvResources& res,
                         const Numerics& numerics, const std::string& used) {
  const auto& cu = *s.cu;
  int rc;
  if ((rc = cu.StreamSynchronize(s.stream)) != 0) return cuda_failure(c.id(), c.title(), cu, "cuStreamSynchronize", rc);
  std::vector<uint8_t> out(d.out_count * data_type_size(c.type));
  if ((rc = cu.MemcpyDtoH(out.data(), res.buffers[2], out.size())) != 0)
    return cuda_failure(c.id(), c.title(), cu, "cuMemcpyDtoH", rc);
  Tolerance tol = tolerance_for(numerics);
  Comparison cmp = compare_to_reference(decode_tensor(out, c.type), d.want, tol);
  const std::string bound = "bound: " + tol.derivation;
  if (cmp.passed) {
    StageResult pass = stage_pass(c.id(), c.title(), "matches the CPU reference (" + cmp.summary() + ")");
    pass.evidence = {used, c.shape.str(), bound};
    return pass;
  }
  char worst[160];
  std::snprintf(worst, sizeof worst, "worst element %zu: got %.6g, expected %.6g", cmp.worst_index, cmp.worst_got,
                cmp.worst_want);
  return stage_fail(c.id(), c.title(), "wrong result: " + cmp.summary(),
                    gpu_error_finding("verify.conv.wrong_result",
                                 "cuDNN computed a wrong " + std::string(direction_name(c.direction)) + " " +
                                     data_type_name(c.type) + " " + layout_name(c.layout) + " convolution",
                                 "The result differs from the CPU reference by more than rounding allows (" + bound +
                                     "). A damaged engine library or a faulty GPU does this.",
                                 {cmp.summary(), worst, used, c.shape.str()},
                                 {fix::step("Reinstall the copy, then run this check again."),
                                  fix::step("If it persists with a fresh copy, check the GPU (its ECC errors and the kernel log's "
                                            "Xid errors):"),
                                  fix::run({"nvidia-smi", "-q", "-d", "ECC"})}));
}

// The legacy descriptors: x (input), y (output), w (filter), and the convolution.
std::optional<StageResult> make_descriptors(const ConvCheck& c, const GpuSession& s, ConvResources& res) {
  const auto& dnn = *s.dnn;
  const ConvShape& sh = c.shape;
  const std::string id = c.id(), title = c.title();
  const int dt = cudnn_data_type(c.type);
  const int fmt = c.layout == TensorLayout::kNchw ? nv::kCudnnTensorNchw : nv::kCudnnTensorNhwc;
  int st;
  if ((st = dnn.CreateTensorDescriptor(&res.tensors[0])) != 0) return cudnn_failure(id, title, s, "cudnnCreateTensorDescriptor", st);
  if ((st = dnn.CreateTensorDescriptor(&res.tensors[1])) != 0) return cudnn_failure(id, title, s, "cudnnCreateTensorDescriptor", st);
  if ((st = dnn.CreateFilterDescriptor(&res.tensors[2])) != 0) return cudnn_failure(id, title, s, "cudnnCreateFilterDescriptor", st);
  if ((st = dnn.CreateConvolutionDescriptor(&res.conv)) != 0)
    return cudnn_failure(id, title, s, "cudnnCreateConvolutionDescriptor", st);
  if ((st = dnn.SetTensor4dDescriptor(res.tensors[0], fmt, dt, sh.n, sh.c, sh.h, sh.w)) != 0)
    return cudnn_failure(id, title, s, "cudnnSetTensor4dDescriptor (input)", st);
  if ((st = dnn.SetTensor4dDescriptor(res.tensors[1], fmt, dt, sh.n, sh.k, sh.out_h(), sh.out_w())) != 0)
    return cudnn_failure(id, title, s, "cudnnSetTensor4dDescriptor (output)", st);
  if ((st = dnn.SetFilter4dDescriptor(res.tensors[2], dt, fmt, sh.k, sh.c, sh.r, sh.s)) != 0)
    return cudnn_failure(id, title, s, "cudnnSetFilter4dDescriptor", st);
  if ((st = dnn.SetConvolution2dDescriptor(res.conv, sh.pad_h, sh.pad_w, sh.stride_h, sh.stride_w, sh.dilation_h,
                                           sh.dilation_w, nv::kCudnnCrossCorrelation, nv::kCudnnDataFloat)) != 0)
    return cudnn_failure(id, title, s, "cudnnSetConvolution2dDescriptor", st);
  if (dnn.SetConvolutionMathType) {
    // Tensor cores for fp16/bf16 as frameworks ask; fp32 keeps cuDNN's default (TF32 allowed).
    int math = c.type == DataType::kFloat ? nv::kCudnnDefaultMath : nv::kCudnnTensorOpMath;
    if ((st = dnn.SetConvolutionMathType(res.conv, math)) != 0)
      return cudnn_failure(id, title, s, "cudnnSetConvolutionMathType", st);
  }
  return std::nullopt;
}

StageResult run_legacy_conv(GpuSession& s, const ConvCheck& c) {
  const std::string id = c.id(), title = c.title();
  const auto& dnn = *s.dnn;
  const bool fwd = c.direction == ConvDirection::kForward;
  const bool bwd_data = c.direction == ConvDirection::kBackwardData;
  auto algo_fn = fwd ? dnn.GetConvolutionForwardAlgorithm_v7
                     : bwd_data ? dnn.GetConvolutionBackwardDataAlgorithm_v7 : dnn.GetConvolutionBackwardFilterAlgorithm_v7;
  auto ws_fn = fwd ? dnn.GetConvolutionForwardWorkspaceSize
                   : bwd_data ? dnn.GetConvolutionBackwardDataWorkspaceSize : dnn.GetConvolutionBackwardFilterWorkspaceSize;
  auto run_fn = fwd ? dnn.ConvolutionForward : bwd_data ? dnn.ConvolutionBackwardData : dnn.ConvolutionBackwardFilter;
  if (!dnn.CreateTensorDescriptor || !dnn.SetTensor4dDescriptor || !dnn.CreateFilterDescriptor ||
      !dnn.SetFilter4dDescriptor || !dnn.CreateConvolutionDescriptor || !dnn.SetConvolution2dDescriptor ||
      !dnn.DestroyTensorDescriptor || !dnn.DestroyFilterDescriptor || !dnn.DestroyConvolutionDescriptor ||
      !algo_fn || !ws_fn || !run_fn) {
    return missing_symbols(id, title, {"the legacy convolution API (cudnn_cnn)"});
  }
  if (!has_device_memory_api(*s.cu)) {
    return missing_symbols(id, title, {"cuMemAlloc/cuMemFree/cuMemcpy/cuMemsetD8/cuStreamSynchronize"});
  }
  ConvResources res(s);
  if (auto failed = make_descriptors(c, s, res)) return *failed;
  ConvData d = make_conv_data(c);
  if (auto failed = upload(c, s, d, res)) return *failed;
  // The operands in the order the call takes them: fwd (x, w -> y), bwd-data (w, dy -> dx),
  // bwd-filter (x, dy -> dw).
  void* const x = res.tensors[0];
  void* const y = res.tensors[1];
  void* const w = res.tensors[2];
  void* a_desc = fwd ? x : bwd_data ? w : x;
  void* b_desc = fwd ? w : y;
  void* out_desc = fwd ? y : bwd_data ? x : w;

  nv::cudnnConvolutionAlgoPerf perf[16];
  std::memset(perf, 0, sizeof perf);
  int returned = 0;
  int st = algo_fn(s.handle, a_desc, b_desc, res.conv, out_desc, 16, &returned, perf);
  if (st != 0) return cudnn_failure(id, title, s, "cudnnGetConvolution*Algorithm_v7", st);
  const float alpha = 1.0f, beta = 0.0f;
  constexpr size_t kMaxWorkspace = size_t{256} << 20;
  std::vector<std::string> tried;
  int last_status = 0, used = -1;
  size_t used_ws = 0;
  // First the algorithms whose rounding the bound is derived for, then FFT/Winograd.
  for (int pass = 0; pass < 2 && used < 0; ++pass) {
    for (int i = 0; i < std::min(returned, 16) && used < 0; ++i) {
      if (perf[i].status != 0 || is_transform_algorithm(c.direction, perf[i].algo) != (pass == 1)) continue;
      size_t ws = 0;
      if ((st = ws_fn(s.handle, a_desc, b_desc, res.conv, out_desc, perf[i].algo, &ws)) != 0 || ws > kMaxWorkspace) {
        tried.push_back("algo " + std::to_string(perf[i].algo) + ": workspace query " + std::to_string(st) + ", " +
                        std::to_string(ws) + " bytes");
        continue;
      }
      if (res.buffers[3]) s.cu->MemFree(res.buffers[3]);
      res.buffers[3] = 0;
      int rc;
      if (ws && (rc = s.cu->MemAlloc(&res.buffers[3], ws)) != 0) return cuda_failure(id, title, *s.cu, "cuMemAlloc", rc);
      st = run_fn(s.handle, &alpha, a_desc, reinterpret_cast<void*>(res.buffers[0]), b_desc,
                  reinterpret_cast<void*>(res.buffers[1]), res.conv, perf[i].algo,
                  reinterpret_cast<void*>(res.buffers[3]), ws, &beta, out_desc, reinterpret_cast<void*>(res.buffers[2]));
      if (st == 0) {
        used = i;
        used_ws = ws;
      } else {
        last_status = st;
        tried.push_back("algo " + std::to_string(perf[i].algo) + ": " + decode_cudnn_status(st, s.cudnn_major).name);
      }
    }
  }
  if (used < 0) {
    if (last_status != 0) return cudnn_failure(id, title, s, "convolution", last_status, tried);
    return stage_fail(id, title, "cuDNN offered no algorithm for this convolution",
                      gpu_error_finding("verify.conv.no_algorithm", "cuDNN has no algorithm for " + id,
                                   "The heuristics returned no usable algorithm for a plain 3x3 convolution.", tried,
                                   {fix::step("Reinstall the copy; check that the engine sub-libraries load (the library stage above).")}));
  }
  const nv::cudnnConvolutionAlgoPerf& p = perf[used];
  Numerics numerics;
  numerics.type = c.type;
  numerics.accumulation_length = accumulation_length(c.shape, c.direction);
  numerics.tf32_inputs = c.type == DataType::kFloat && p.math_type != nv::kCudnnFmaMath;
  numerics.transform = is_transform_algorithm(c.direction, p.algo);
  // The legacy API says nothing about how an algorithm sums (tolerance.h: unseen_partial_roundings).
  numerics.unseen_partial_roundings = c.type == DataType::kFloat ? 0 : 2;
  return check_output(c, s, d, res, numerics,
                      "algorithm " + std::to_string(p.algo) + ", math type " + std::to_string(p.math_type) +
                          ", workspace " + std::to_string(used_ws) + " bytes");
}

// An engine verify's bound is derived for: none that PyTorch drops, no FFT/Winograd, no partial
// sums in the data type, and no runtime compilation (NVRTC would cost verify seconds).
bool plain_engine(const EngineNotes& notes, DataType type) {
  return pytorch_drops(notes, type, true).empty() && !notes.transform() &&
         !notes.has_numerical(nv::kNumericalNoteReducedPrecisionReduction) &&
         !notes.has_behavior(nv::kBehaviorNoteRuntimeCompilation);
}

StageResult run_graph_conv(GpuSession& s, const ConvCheck& c) {
  const std::string id = c.id(), title = c.title();
  const auto& dnn = *s.dnn;
  if (!dnn.BackendCreateDescriptor || !dnn.BackendDestroyDescriptor || !dnn.BackendFinalize ||
      !dnn.BackendSetAttribute || !dnn.BackendGetAttribute || !dnn.BackendExecute) {
    return missing_symbols(id, title, {"the backend (graph) API (cudnnBackend*)"});
  }
  if (!has_device_memory_api(*s.cu)) {
    return missing_symbols(id, title, {"cuMemAlloc/cuMemFree/cuMemcpy/cuMemsetD8/cuStreamSynchronize"});
  }
  ConvForwardGraph graph;
  std::string what;
  if (int st = graph.build(&dnn, s.handle, c.shape, c.type, c.layout, &what)) return cudnn_failure(id, title, s, what, st);
  ConvResources res(s);
  ConvData d = make_conv_data(c);
  if (auto failed = upload(c, s, d, res)) return *failed;
  // PyTorch's sources, heuristics mode INSTANT then the fallback list (asked only when needed);
  // from each, first an engine the bound is derived for, then any PyTorch keeps. Only the
  // engine that is tried is finalized: finalizing every candidate would cost verify its time.
  std::vector<BackendDescriptor> instant, fallback;
  int heuristics_status = graph.heuristics(nv::kHeurModeInstant, 16, &instant, &what);
  std::vector<std::string> tried;
  int last_status = 0;
  EnginePlan used;
  auto try_configs = [&](std::vector<BackendDescriptor>& configs, bool plain) {
    for (auto& cfg : configs) {
      int64_t index = -1;
      EngineNotes notes = graph.engine_of(cfg, &index);
      if (plain_engine(notes, c.type) != plain || !pytorch_drops(notes, c.type, true).empty()) continue;
      EnginePlan plan;
      int st = graph.make_plan(cfg, &plan);
      if (st == 0 && plan.workspace_bytes > (int64_t{256} << 20)) continue;
      if (st == 0) {
        if (res.buffers[3]) s.cu->MemFree(res.buffers[3]);
        res.buffers[3] = 0;
        if (plan.workspace_bytes > 0) st = -s.cu->MemAlloc(&res.buffers[3], static_cast<size_t>(plan.workspace_bytes));
      }
      if (st == 0) {
        st = graph.bind(plan, reinterpret_cast<void*>(res.buffers[0]), reinterpret_cast<void*>(res.buffers[1]),
                        reinterpret_cast<void*>(res.buffers[2]), reinterpret_cast<void*>(res.buffers[3]));
      }
      if (st == 0) st = graph.execute(plan);
      if (st == 0) {
        used = std::move(plan);
        return true;
      }
      last_status = st;
      tried.push_back("engine " + std::to_string(index) + ": " +
                      (st < 0 ? "cuMemAlloc of its workspace failed" : decode_cudnn_status(st, s.cudnn_major).name));
    }
    return false;
  };
  bool ran = try_configs(instant, true);
  bool asked_fallback = false;
  for (int pass = 0; pass < 3 && !ran; ++pass) {
    if (!asked_fallback && pass < 2) {
      if (int st = graph.heuristics(nv::kHeurModeFallback, 16, &fallback, &what)) heuristics_status = st;
      asked_fallback = true;
    }
    ran = pass == 0 ? try_configs(fallback, true) : pass == 1 ? try_configs(instant, false) : try_configs(fallback, false);
  }
  if (instant.empty() && fallback.empty() && heuristics_status) return cudnn_failure(id, title, s, what, heuristics_status);
  if (!ran) {
    if (last_status > 0) return cudnn_failure(id, title, s, "cudnnBackendExecute", last_status, tried);
    return stage_fail(id, title, "cuDNN's heuristics offered no engine for this convolution",
                      gpu_error_finding("verify.conv.no_algorithm", "cuDNN has no engine for " + id,
                                   "Heuristics mode INSTANT and the fallback list gave no engine config that "
                                   "finalizes and runs for a plain 3x3 convolution.",
                                   tried, {fix::step("Reinstall the copy; check that the engine sub-libraries load (the library stage above).")}));
  }
  const EnginePlan* const used_plan = &used;
  Numerics numerics;
  numerics.type = c.type;
  numerics.accumulation_length = accumulation_length(c.shape, c.direction);
  numerics.tf32_inputs = c.type == DataType::kFloat && (used_plan->notes.numerical.empty() ||
                                                        used_plan->notes.has_numerical(nv::kNumericalNoteTensorCore));
  numerics.reduced_precision_reduction = used_plan->notes.has_numerical(nv::kNumericalNoteReducedPrecisionReduction);
  numerics.transform = used_plan->notes.transform();
  return check_output(c, s, d, res, numerics,
                      "engine " + std::to_string(used_plan->engine_index) + " (" + used_plan->notes.describe() +
                          "), workspace " + std::to_string(used_plan->workspace_bytes) + " bytes");
}

}  // namespace

StageResult run_conv_stage(GpuSession& s, const ConvCheck& c) {
  return c.api == ConvApi::kGraph ? run_graph_conv(s, c) : run_legacy_conv(s, c);
}

StageResult run_teardown_stage(GpuSession& s) {
  const std::string id = "teardown", title = "Clean teardown (cudnnDestroy, stream, context)";
  std::vector<std::string> done;
  if (s.cu->CtxSynchronize) {
    int rc = s.cu->CtxSynchronize();
    if (rc != 0) return cuda_failure(id, title, *s.cu, "cuCtxSynchronize", rc);
    done.push_back("cuCtxSynchronize");
  }
  if (s.handle) {
    int st = s.dnn->Destroy ? s.dnn->Destroy(s.handle) : 0;
    s.handle = nullptr;
    if (st != 0) return cudnn_failure(id, title, s, "cudnnDestroy", st);
    done.push_back("cudnnDestroy");
  }
  if (s.stream) {
    int rc = s.cu->StreamDestroy ? s.cu->StreamDestroy(s.stream) : 0;
    s.stream = nullptr;
    if (rc != 0) return cuda_failure(id, title, *s.cu, "cuStreamDestroy", rc);
    done.push_back("cuStreamDestroy");
  }
  if (s.context_retained) {
    int rc = s.cu->DevicePrimaryCtxRelease ? s.cu->DevicePrimaryCtxRelease(s.device) : 0;
    s.context_retained = false;
    if (rc != 0) return cuda_failure(id, title, *s.cu, "cuDevicePrimaryCtxRelease", rc);
    done.push_back("cuDevicePrimaryCtxRelease");
  }
  StageResult st = stage_pass(id, title, "released everything without errors");
  st.evidence = done;
  return st;
}

std::vector<StageResult> run_gpu_stages(const DriverFacts& facts, GpuSession& session,
                                        const std::vector<ConvCheck>& checks, const std::string& cudnn_unusable,
                                        const StageObserver& observer) {
  std::vector<StageResult> out;
  auto record = [&](StageResult r) {
    if (observer) observer(r.id, &r);
    out.push_back(std::move(r));
  };
  auto timed = [&](const std::string& id, auto&& fn) {
    if (observer) observer(id, nullptr);
    auto start = std::chrono::steady_clock::now();
    StageResult r = fn();
    r.seconds = seconds_since(start);
    bool passed = r.status == StageStatus::kPass;
    record(std::move(r));
    return passed;
  };
  bool driver_ok = timed("driver", [&] { return run_driver_stage(facts, session); });
  const bool cudnn_ok = cudnn_unusable.empty();
  bool handle_ok = driver_ok && cudnn_ok && timed("handle", [&] { return run_handle_stage(session); });
  const std::string no_handle = !driver_ok ? "skipped: no GPU context"
                                : !cudnn_ok ? "skipped: " + cudnn_unusable
                                            : "skipped: no cuDNN handle";
  if (!driver_ok || !cudnn_ok) record(stage_skip("handle", "cudnnCreate and cudnnSetStream", no_handle));
  for (const auto& c : checks) {
    if (!handle_ok) {
      record(stage_skip(c.id(), c.title(), no_handle));
      continue;
    }
    timed(c.id(), [&] { return run_conv_stage(session, c); });
  }
  if (driver_ok) {
    timed("teardown", [&] { return run_teardown_stage(session); });
  } else {
    record(stage_skip("teardown", "Clean teardown (cudnnDestroy, stream, context)", "skipped: nothing to release"));
  }
  return out;
}

}  // namespace cudnnup
