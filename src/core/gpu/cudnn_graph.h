// Thin RAII over cuDNN's backend (graph) API for one forward convolution, through the function
// table (gpu/nvidia_api.h), so it runs against the real cuDNN in a child and against fakes in the
// tests: the tensors, the operation graph, engine heuristics, execution plans (with each engine's
// numerical and behaviour notes) and variant packs. This is the API frameworks use (PyTorch
// through cudnn-frontend); verify runs one graph convolution per type with it, and bench chooses
// among its engine configs the way PyTorch does. Every call returns the raw cudnnStatus_t;
// callers decode it with facts/cudnn_status.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpu/nvidia_api.h"
#include "gpu/conv_reference.h"

namespace cudnnup {

class BackendDescriptor {
 public:
  BackendDescriptor() = default;
  BackendDescriptor(const nv::CudnnFunctions* fn, int type);  // check status() after
  BackendDescriptor(BackendDescriptor&& other) noexcept;
  BackendDescriptor& operator=(BackendDescriptor&& other) noexcept;
  BackendDescriptor(const BackendDescriptor&) = delete;
  BackendDescriptor& operator=(const BackendDescriptor&) = delete;
  ~BackendDescriptor();

  int status() const { return status_; }
  nv::cudnnBackendDescriptor_t get() const { return desc_; }
  int set(int attribute, int type, int64_t count, const void* values);
  int set_descriptor(int attribute, const BackendDescriptor& value);
  int set_int64s(int attribute, const std::vector<int64_t>& values);
  int finalize();

 private:
  const nv::CudnnFunctions* fn_ = nullptr;
  nv::cudnnBackendDescriptor_t desc_ = nullptr;
  int status_ = 0;
};

// What cuDNN says about an engine (CUDNN_ATTR_ENGINE_NUMERICAL_NOTE / _BEHAVIOR_NOTE).
struct EngineNotes {
  std::vector<int> numerical;  // nv::kNumericalNote*
  std::vector<int> behavior;   // nv::kBehaviorNote*
  bool has_numerical(int note) const;
  bool has_behavior(int note) const;
  bool transform() const;       // FFT or Winograd: fewer multiplications, other rounding
  std::string describe() const;  // "tensor_core, winograd"
};

// PyTorch's engine filter (aten/src/ATen/native/cudnn/Conv_v8.cpp): an engine that down-converts
// its inputs is always dropped; a TENSOR_CORE engine is dropped for fp32 when allow_tf32 is off.
// (It also drops NONDETERMINISTIC engines under torch.backends.cudnn.deterministic, which bench
// does not model.) Returns why the engine is dropped, or empty.
std::string pytorch_drops(const EngineNotes& notes, DataType type, bool allow_tf32);

struct EnginePlan {
  BackendDescriptor plan;
  BackendDescriptor variant_pack;
  int64_t workspace_bytes = 0;
  int64_t engine_index = -1;  // CUDNN_ATTR_ENGINE_GLOBAL_INDEX, for the report
  std::string identity;       // the plan's JSON (engine and knob choices): equal means the same plan
  std::string source;         // "heuristics instant", "fallback", ...
  EngineNotes notes;
};

// y = conv(x, w) with x, w, y on the device; uids 1, 2, 3.
class ConvForwardGraph {
 public:
  // Builds and finalizes the operation graph. Returns the failing status, 0 on success; `what`
  // names the step that failed.
  int build(const nv::CudnnFunctions* fn, nv::cudnnHandle_t handle, const ConvShape& shape, DataType type,
            TensorLayout layout, std::string* what);
  // Engine configs from one heuristics mode (nv::kHeurMode*), up to `max` of them.
  int heuristics(int mode, int max, std::vector<BackendDescriptor>* configs, std::string* what);
  // The engine of a config (global index, notes), without finalizing anything.
  EngineNotes engine_of(const BackendDescriptor& config, int64_t* engine_index) const;
  // Finalizes a plan for one engine config and queries its workspace (and engine_of).
  int make_plan(BackendDescriptor& config, EnginePlan* out);
  // Binds device pointers (and the workspace) into the plan's variant pack.
  int bind(EnginePlan& plan, void* x, void* w, void* y, void* workspace);
  int execute(const EnginePlan& plan);

 private:
  const nv::CudnnFunctions* fn_ = nullptr;
  nv::cudnnHandle_t handle_ = nullptr;
  BackendDescriptor x_, w_, y_, conv_, op_, graph_;
};

}  // namespace cudnnup
