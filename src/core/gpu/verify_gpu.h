// The verify stages that talk to the GPU, through function tables (adapters/nvidia_api.h), so
// the same code runs against the real driver and cuDNN in the child process and against fakes
// in the unit tests:
//   driver (primary context + stream) -> handle (cudnnCreate) -> conv.* (legacy API) ->
//   graph.* (backend API, what the frameworks call) -> teardown.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpu/nvidia_api.h"
#include "gpu/conv_reference.h"
#include "gpu/verify_model.h"
#include "base/version.h"

namespace cudnnup {

// What the driver says about itself and the chosen GPU (cuInit, cuDriverGetVersion, ...).
struct DriverFacts {
  std::string libcuda_path;   // empty: no libcuda found
  std::string load_error;     // libcuda exists but did not load
  int init_result = -1;       // cuInit's CUresult; -1 when not called
  int driver_cuda_number = 0; // cuDriverGetVersion
  int device_count = 0;
  int gpu = 0;                // ordinal under test
  std::string gpu_name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int clock_khz = 0;
  unsigned long long memory_bytes = 0;
  bool windows = false;       // the fixes name the Windows driver download, not a container flag
  bool gpu_found() const { return init_result == 0 && gpu < device_count; }
};

DriverFacts query_driver(const nv::CudaDriverFunctions& cu, const std::string& libcuda_path, int gpu);

// The objects the GPU stages create and teardown destroys.
struct GpuSession {
  const nv::CudaDriverFunctions* cu = nullptr;
  const nv::CudnnFunctions* dnn = nullptr;
  int cudnn_major = 9;        // decodes cuDNN statuses
  int device = 0;
  nv::CUcontext context = nullptr;
  nv::CUstream stream = nullptr;
  nv::cudnnHandle_t handle = nullptr;
  bool context_retained = false;
};

StageResult run_driver_stage(const DriverFacts& facts, GpuSession& session);
StageResult run_handle_stage(GpuSession& session);

// Which cuDNN API a convolution stage goes through.
enum class ConvApi { kLegacy, kGraph };

struct ConvCheck {
  ConvDirection direction = ConvDirection::kForward;
  DataType type = DataType::kFloat;
  TensorLayout layout = TensorLayout::kNchw;
  ConvShape shape;
  ConvApi api = ConvApi::kLegacy;
  std::string id() const;     // "conv.fwd.fp16.nhwc", "graph.fwd.bf16.nhwc"
  std::string title() const;  // "Convolution fwd, fp16, NHWC vs CPU reference"
};
// The small shape verify uses: N2 C8 12x12 K16 3x3 pad 1 (fast on the CPU, valid for tensor cores).
ConvShape verify_conv_shape();
// Legacy API: every direction x {fp32, fp16, bf16} x {NCHW, NHWC}; then one forward convolution
// per type through the backend (graph) API: fp32 NCHW, fp16 NHWC, bf16 NHWC, as bench runs them.
std::vector<ConvCheck> default_conv_checks();

// The legacy API's algorithm numbers that are FFT or Winograd (cudnnConvolution*Algo_t): their
// rounding differs, so verify runs them only when no other algorithm runs.
bool is_transform_algorithm(ConvDirection direction, int algo);

StageResult run_conv_stage(GpuSession& session, const ConvCheck& check);    // either API
StageResult run_teardown_stage(GpuSession& session);

// All of the above in order, after the library and versions stages passed; stages that cannot
// run because an earlier one failed are reported as skipped.
// `cudnn_unusable` (when not empty) says why cuDNN cannot be used (the library stage failed):
// the driver stage still runs, the cuDNN stages are skipped with that reason.
// `observer` (optional) hears of each stage as it starts (result null) and ends, so the child
// can stream them and a crash is pinned on the stage that was running.
using StageObserver = std::function<void(const std::string& id, const StageResult* result)>;
std::vector<StageResult> run_gpu_stages(const DriverFacts& facts, GpuSession& session,
                                        const std::vector<ConvCheck>& checks, const std::string& cudnn_unusable = {},
                                        const StageObserver& observer = {});

}  // namespace cudnnup
