#include "gpu/cudnn_graph.h"

#include <algorithm>
#include <utility>

namespace cudnnup {

BackendDescriptor::BackendDescriptor(const nv::CudnnFunctions* fn, int type) : fn_(fn) {
  status_ = fn_->BackendCreateDescriptor(type, &desc_);
  if (status_ != 0) desc_ = nullptr;
}

BackendDescriptor::BackendDescriptor(BackendDescriptor&& other) noexcept
    : fn_(other.fn_), desc_(std::exchange(other.desc_, nullptr)), status_(other.status_) {}

BackendDescriptor& BackendDescriptor::operator=(BackendDescriptor&& other) noexcept {
  if (this != &other) {
    if (desc_) fn_->BackendDestroyDescriptor(desc_);
    fn_ = other.fn_;
    desc_ = std::exchange(other.desc_, nullptr);
    status_ = other.status_;
  }
  return *this;
}

BackendDescriptor::~BackendDescriptor() {
  if (desc_) fn_->BackendDestroyDescriptor(desc_);
}

int BackendDescriptor::set(int attribute, int type, int64_t count, const void* values) {
  return fn_->BackendSetAttribute(desc_, attribute, type, count, values);
}

int BackendDescriptor::set_descriptor(int attribute, const BackendDescriptor& value) {
  nv::cudnnBackendDescriptor_t d = value.get();
  return set(attribute, nv::kTypeBackendDescriptor, 1, &d);
}

int BackendDescriptor::set_int64s(int attribute, const std::vector<int64_t>& values) {
  return set(attribute, nv::kTypeInt64, static_cast<int64_t>(values.size()), values.data());
}

int BackendDescriptor::finalize() { return fn_->BackendFinalize(desc_); }

bool EngineNotes::has_numerical(int note) const {
  return std::find(numerical.begin(), numerical.end(), note) != numerical.end();
}

bool EngineNotes::has_behavior(int note) const {
  return std::find(behavior.begin(), behavior.end(), note) != behavior.end();
}

bool EngineNotes::transform() const {
  for (int n : {nv::kNumericalNoteFft, nv::kNumericalNoteWinograd, nv::kNumericalNoteWinogradTile4x4,
                nv::kNumericalNoteWinogradTile6x6, nv::kNumericalNoteWinogradTile13x13}) {
    if (has_numerical(n)) return true;
  }
  return false;
}

std::string EngineNotes::describe() const {
  static const char* const kNumerical[] = {"tensor_core", "down_convert_inputs", "reduced_precision_reduction",
                                           "fft", "nondeterministic", "winograd", "winograd_tile_4x4",
                                           "winograd_tile_6x6", "winograd_tile_13x13", "strict_nan_prop"};
  std::string out;
  for (int n : numerical) {
    std::string name = n >= 0 && n < 10 ? kNumerical[n] : "numerical note " + std::to_string(n);
    out += (out.empty() ? "" : ", ") + name;
  }
  for (int b : behavior) {
    std::string name = b == nv::kBehaviorNoteRuntimeCompilation ? "runtime_compilation" : "behaviour note " + std::to_string(b);
    out += (out.empty() ? "" : ", ") + name;
  }
  return out.empty() ? "no notes" : out;
}

std::string pytorch_drops(const EngineNotes& notes, DataType type, bool allow_tf32) {
  if (notes.has_numerical(nv::kNumericalNoteDownConvertInputs)) return "down-converts its inputs";
  if (type == DataType::kFloat && !allow_tf32 && notes.has_numerical(nv::kNumericalNoteTensorCore)) {
    return "uses tensor cores (TF32) and allow_tf32 is off";
  }
  return {};
}

namespace {

int cudnn_type(DataType t) {
  switch (t) {
    case DataType::kFloat: return nv::kCudnnDataFloat;
    case DataType::kHalf: return nv::kCudnnDataHalf;
    case DataType::kBfloat16: return nv::kCudnnDataBfloat16;
  }
  return nv::kCudnnDataFloat;
}

// Logical dims are always [n, c, h, w]; the layout only changes the strides.
std::vector<int64_t> strides_for(TensorLayout layout, int64_t c, int64_t h, int64_t w) {
  if (layout == TensorLayout::kNchw) return {c * h * w, h * w, w, 1};
  return {h * w * c, 1, w * c, c};
}

#define CUDNNUP_TRY(step, expr)            \
  do {                                     \
    int try_status = (expr);                \
    if (try_status != 0) {                 \
      if (what) *what = step;              \
      return try_status;                   \
    }                                      \
  } while (0)

int make_tensor(const nv::CudnnFunctions* fn, BackendDescriptor* out, int64_t uid, int data_type,
                std::vector<int64_t> dims, std::vector<int64_t> strides, std::string* what) {
  *out = BackendDescriptor(fn, nv::kBackendTensorDescriptor);
  CUDNNUP_TRY("create tensor descriptor", out->status());
  // cuMemAlloc returns 256-byte aligned buffers; 32 is what PyTorch declares for them, and
  // some engines pick wider loads from it.
  int64_t alignment = 32;
  CUDNNUP_TRY("tensor data type", out->set(nv::kAttrTensorDataType, nv::kTypeDataType, 1, &data_type));
  CUDNNUP_TRY("tensor dimensions", out->set_int64s(nv::kAttrTensorDimensions, dims));
  CUDNNUP_TRY("tensor strides", out->set_int64s(nv::kAttrTensorStrides, strides));
  CUDNNUP_TRY("tensor uid", out->set(nv::kAttrTensorUniqueId, nv::kTypeInt64, 1, &uid));
  CUDNNUP_TRY("tensor alignment", out->set(nv::kAttrTensorByteAlignment, nv::kTypeInt64, 1, &alignment));
  CUDNNUP_TRY("finalize tensor", out->finalize());
  return 0;
}

}  // namespace

int ConvForwardGraph::build(const nv::CudnnFunctions* fn, nv::cudnnHandle_t handle, const ConvShape& sh,
                            DataType type, TensorLayout layout, std::string* what) {
  fn_ = fn;
  handle_ = handle;
  const int dt = cudnn_type(type);
  const int64_t p = sh.out_h(), q = sh.out_w();
  int st = make_tensor(fn, &x_, 1, dt, {sh.n, sh.c, sh.h, sh.w}, strides_for(layout, sh.c, sh.h, sh.w), what);
  if (st) return st;
  st = make_tensor(fn, &w_, 2, dt, {sh.k, sh.c, sh.r, sh.s}, strides_for(layout, sh.c, sh.r, sh.s), what);
  if (st) return st;
  st = make_tensor(fn, &y_, 3, dt, {sh.n, sh.k, p, q}, strides_for(layout, sh.k, p, q), what);
  if (st) return st;

  conv_ = BackendDescriptor(fn, nv::kBackendConvolutionDescriptor);
  CUDNNUP_TRY("create convolution descriptor", conv_.status());
  int compute = nv::kCudnnDataFloat;
  int mode = nv::kCudnnCrossCorrelation;
  int64_t dims = 2;
  CUDNNUP_TRY("convolution compute type", conv_.set(nv::kAttrConvolutionCompType, nv::kTypeDataType, 1, &compute));
  CUDNNUP_TRY("convolution mode", conv_.set(nv::kAttrConvolutionConvMode, nv::kTypeConvolutionMode, 1, &mode));
  CUDNNUP_TRY("convolution spatial dims", conv_.set(nv::kAttrConvolutionSpatialDims, nv::kTypeInt64, 1, &dims));
  CUDNNUP_TRY("convolution dilations", conv_.set_int64s(nv::kAttrConvolutionDilations, {sh.dilation_h, sh.dilation_w}));
  CUDNNUP_TRY("convolution strides", conv_.set_int64s(nv::kAttrConvolutionFilterStrides, {sh.stride_h, sh.stride_w}));
  CUDNNUP_TRY("convolution pre-paddings", conv_.set_int64s(nv::kAttrConvolutionPrePaddings, {sh.pad_h, sh.pad_w}));
  CUDNNUP_TRY("convolution post-paddings", conv_.set_int64s(nv::kAttrConvolutionPostPaddings, {sh.pad_h, sh.pad_w}));
  CUDNNUP_TRY("finalize convolution descriptor", conv_.finalize());

  op_ = BackendDescriptor(fn, nv::kBackendOperationConvolutionForwardDescriptor);
  CUDNNUP_TRY("create convolution operation", op_.status());
  float alpha = 1.0f, beta = 0.0f;
  CUDNNUP_TRY("operation x", op_.set_descriptor(nv::kAttrOperationConvolutionForwardX, x_));
  CUDNNUP_TRY("operation w", op_.set_descriptor(nv::kAttrOperationConvolutionForwardW, w_));
  CUDNNUP_TRY("operation y", op_.set_descriptor(nv::kAttrOperationConvolutionForwardY, y_));
  CUDNNUP_TRY("operation conv", op_.set_descriptor(nv::kAttrOperationConvolutionForwardConvDesc, conv_));
  CUDNNUP_TRY("operation alpha", op_.set(nv::kAttrOperationConvolutionForwardAlpha, nv::kTypeFloat, 1, &alpha));
  CUDNNUP_TRY("operation beta", op_.set(nv::kAttrOperationConvolutionForwardBeta, nv::kTypeFloat, 1, &beta));
  CUDNNUP_TRY("finalize convolution operation", op_.finalize());

  graph_ = BackendDescriptor(fn, nv::kBackendOperationGraphDescriptor);
  CUDNNUP_TRY("create operation graph", graph_.status());
  CUDNNUP_TRY("graph operations", graph_.set_descriptor(nv::kAttrOperationGraphOps, op_));
  CUDNNUP_TRY("graph handle", graph_.set(nv::kAttrOperationGraphHandle, nv::kTypeHandle, 1, &handle_));
  CUDNNUP_TRY("finalize operation graph", graph_.finalize());
  return 0;
}

int ConvForwardGraph::heuristics(int mode, int max, std::vector<BackendDescriptor>* configs, std::string* what) {
  BackendDescriptor heur(fn_, nv::kBackendEngineHeurDescriptor);
  CUDNNUP_TRY("create heuristics", heur.status());
  CUDNNUP_TRY("heuristics graph", heur.set_descriptor(nv::kAttrEngineHeurOperationGraph, graph_));
  CUDNNUP_TRY("heuristics mode", heur.set(nv::kAttrEngineHeurMode, nv::kTypeHeurMode, 1, &mode));
  CUDNNUP_TRY("finalize heuristics", heur.finalize());
  int64_t count = 0;
  CUDNNUP_TRY("heuristics result count",
              fn_->BackendGetAttribute(heur.get(), nv::kAttrEngineHeurResults, nv::kTypeBackendDescriptor, 0, &count,
                                       nullptr));
  if (count > max) count = max;
  std::vector<BackendDescriptor> made;
  std::vector<nv::cudnnBackendDescriptor_t> raw;
  for (int64_t i = 0; i < count; ++i) {
    made.emplace_back(fn_, nv::kBackendEngineCfgDescriptor);
    CUDNNUP_TRY("create engine config", made.back().status());
    raw.push_back(made.back().get());
  }
  int64_t returned = 0;
  if (count > 0) {
    CUDNNUP_TRY("heuristics results", fn_->BackendGetAttribute(heur.get(), nv::kAttrEngineHeurResults,
                                                               nv::kTypeBackendDescriptor, count, &returned, raw.data()));
  }
  for (int64_t i = 0; i < returned && i < count; ++i) configs->push_back(std::move(made[static_cast<size_t>(i)]));
  return 0;
}

EngineNotes ConvForwardGraph::engine_of(const BackendDescriptor& config, int64_t* engine_index) const {
  // The engine behind a config: its global index (for the report) and its notes (for the filter
  // and the tolerance), read before anything is finalized. A library that cannot say leaves
  // them empty.
  EngineNotes notes;
  *engine_index = -1;
  BackendDescriptor engine(fn_, nv::kBackendEngineDescriptor);
  if (engine.status() != 0) return notes;
  nv::cudnnBackendDescriptor_t raw = engine.get();
  int64_t count = 0;
  if (fn_->BackendGetAttribute(config.get(), nv::kAttrEngineCfgEngine, nv::kTypeBackendDescriptor, 1, &count, &raw) != 0) {
    return notes;
  }
  fn_->BackendGetAttribute(raw, nv::kAttrEngineGlobalIndex, nv::kTypeInt64, 1, &count, engine_index);
  // A fixed array larger than any version's note count (cudnn-frontend's hasNumericalNote).
  int values[32] = {0};
  int64_t n = 0;
  if (fn_->BackendGetAttribute(raw, nv::kAttrEngineNumericalNote, nv::kTypeNumericalNote, 32, &n, values) == 0) {
    notes.numerical.assign(values, values + std::clamp<int64_t>(n, 0, 32));
  }
  n = 0;
  if (fn_->BackendGetAttribute(raw, nv::kAttrEngineBehaviorNote, nv::kTypeBehaviorNote, 32, &n, values) == 0) {
    notes.behavior.assign(values, values + std::clamp<int64_t>(n, 0, 32));
  }
  return notes;
}

int ConvForwardGraph::make_plan(BackendDescriptor& config, EnginePlan* out) {
  std::string* what = nullptr;
  out->notes = engine_of(config, &out->engine_index);
  out->plan = BackendDescriptor(fn_, nv::kBackendExecutionPlanDescriptor);
  CUDNNUP_TRY("create plan", out->plan.status());
  CUDNNUP_TRY("plan handle", out->plan.set(nv::kAttrExecutionPlanHandle, nv::kTypeHandle, 1, &handle_));
  CUDNNUP_TRY("plan config", out->plan.set_descriptor(nv::kAttrExecutionPlanEngineConfig, config));
  CUDNNUP_TRY("finalize plan", out->plan.finalize());
  int64_t count = 0;
  CUDNNUP_TRY("plan workspace", fn_->BackendGetAttribute(out->plan.get(), nv::kAttrExecutionPlanWorkspaceSize,
                                                         nv::kTypeInt64, 1, &count, &out->workspace_bytes));
  // The plan's JSON names the engine and its knob choices: heuristics modes repeat configs,
  // and the same engine with other knobs is a different candidate.
  {
    std::string text(1 << 14, '\0');
    int64_t length = 0;
    if (fn_->BackendGetAttribute(out->plan.get(), nv::kAttrExecutionPlanJsonRepresentation, nv::kTypeChar,
                                 static_cast<int64_t>(text.size()), &length, text.data()) == 0 &&
        length > 0) {
      text.resize(std::min<size_t>(static_cast<size_t>(length), text.size()));
      out->identity = text.c_str();
    }
  }
  return 0;
}

int ConvForwardGraph::bind(EnginePlan& plan, void* x, void* w, void* y, void* workspace) {
  std::string* what = nullptr;
  plan.variant_pack = BackendDescriptor(fn_, nv::kBackendVariantPackDescriptor);
  CUDNNUP_TRY("create variant pack", plan.variant_pack.status());
  int64_t uids[3] = {1, 2, 3};
  void* pointers[3] = {x, w, y};
  CUDNNUP_TRY("variant uids", plan.variant_pack.set(nv::kAttrVariantPackUniqueIds, nv::kTypeInt64, 3, uids));
  CUDNNUP_TRY("variant pointers", plan.variant_pack.set(nv::kAttrVariantPackDataPointers, nv::kTypeVoidPtr, 3, pointers));
  CUDNNUP_TRY("variant workspace", plan.variant_pack.set(nv::kAttrVariantPackWorkspace, nv::kTypeVoidPtr, 1, &workspace));
  CUDNNUP_TRY("finalize variant pack", plan.variant_pack.finalize());
  return 0;
}

int ConvForwardGraph::execute(const EnginePlan& plan) {
  return fn_->BackendExecute(handle_, plan.plan.get(), plan.variant_pack.get());
}

}  // namespace cudnnup
