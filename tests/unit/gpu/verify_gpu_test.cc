// The GPU stages of verify, run against a fake driver and a fake cuDNN: function tables whose
// "device memory" is host memory and whose convolutions are the CPU reference (optionally
// corrupted), so stage reporting, status decoding and cleanup are tested without a GPU.
#include "gpu/verify_gpu.h"
#include "shell/fix_render.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <set>

namespace cudnnup {
namespace {

namespace fake {

struct Tensor {
  int format = 0, type = 0, n = 0, c = 0, h = 0, w = 0;
};
struct Conv {
  int pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
};

struct State {
  int init_result = 0;
  int device_count = 1;
  int create_status = 0;
  int failing_algo = -1;   // this algorithm returns `algo_status`
  int algo_status = 0;
  enum class Corruption { kNone, kNaN, kOffset, kNothing } corruption = Corruption::kNone;
  std::set<void*> descriptors;  // live cuDNN descriptors
  std::set<void*> allocations;  // live device allocations
  int handles = 0, streams = 0, contexts = 0;
  std::vector<int> algos_run;
};
State g;

// --- driver
int Init(unsigned) { return g.init_result; }
int DriverGetVersion(int* v) { return *v = 13000, 0; }
int DeviceGetCount(int* n) { return *n = g.device_count, 0; }
int DeviceGet(int* d, int i) { return *d = i, 0; }
int DeviceGetName(char* name, int len, int) { return std::snprintf(name, static_cast<size_t>(len), "Fake GPU"), 0; }
int DeviceGetAttribute(int* v, int attr, int) {
  *v = attr == nv::kCuDeviceAttributeComputeCapabilityMajor ? 9 : attr == nv::kCuDeviceAttributeComputeCapabilityMinor ? 0 : 100;
  return 0;
}
int DeviceTotalMem(size_t* b, int) { return *b = size_t{1} << 30, 0; }
int GetErrorString(int, const char** s) { return *s = "fake driver error", 0; }
int PrimaryCtxRetain(void** ctx, int) { return ++g.contexts, *ctx = &g, 0; }
int PrimaryCtxRelease(int) { return --g.contexts, 0; }
int CtxSetCurrent(void*) { return 0; }
int CtxSynchronize() { return 0; }
int MemAlloc(nv::CUdeviceptr* p, size_t bytes) {
  void* m = std::malloc(bytes ? bytes : 1);
  g.allocations.insert(m);
  *p = reinterpret_cast<nv::CUdeviceptr>(m);
  return 0;
}
int MemFree(nv::CUdeviceptr p) {
  void* m = reinterpret_cast<void*>(p);
  if (!g.allocations.erase(m)) return 1;
  std::free(m);
  return 0;
}
int MemcpyHtoD(nv::CUdeviceptr d, const void* s, size_t n) { return std::memcpy(reinterpret_cast<void*>(d), s, n), 0; }
int MemcpyDtoH(void* d, nv::CUdeviceptr s, size_t n) { return std::memcpy(d, reinterpret_cast<void*>(s), n), 0; }
int MemsetD8(nv::CUdeviceptr d, unsigned char v, size_t n) { return std::memset(reinterpret_cast<void*>(d), v, n), 0; }
int StreamCreate(void** s, unsigned) { return ++g.streams, *s = &g.streams, 0; }
int StreamDestroy(void*) { return --g.streams, 0; }
int StreamSynchronize(void*) { return 0; }

// --- cuDNN
int Create(void** h) {
  if (g.create_status) return g.create_status;
  ++g.handles;
  *h = &g.handles;
  return 0;
}
int Destroy(void*) { return --g.handles, 0; }
int SetStream(void*, void*) { return 0; }
int CreateTensor(void** d) { return *d = new Tensor, g.descriptors.insert(*d), 0; }
int DestroyTensor(void* d) { return g.descriptors.erase(d), delete static_cast<Tensor*>(d), 0; }
int SetTensor(void* d, int format, int type, int n, int c, int h, int w) {
  *static_cast<Tensor*>(d) = Tensor{format, type, n, c, h, w};
  return 0;
}
int SetFilter(void* d, int type, int format, int k, int c, int h, int w) {
  *static_cast<Tensor*>(d) = Tensor{format, type, k, c, h, w};
  return 0;
}
int CreateConv(void** d) { return *d = new Conv, g.descriptors.insert(*d), 0; }
int DestroyConv(void* d) { return g.descriptors.erase(d), delete static_cast<Conv*>(d), 0; }
int SetConv(void* d, int ph, int pw, int sh, int sw, int dh, int dw, int, int) {
  *static_cast<Conv*>(d) = Conv{ph, pw, sh, sw, dh, dw};
  return 0;
}
int SetMath(void*, int) { return 0; }
int Algorithms(void*, void*, void*, void*, void*, int requested, int* returned, nv::cudnnConvolutionAlgoPerf* perf) {
  *returned = std::min(requested, 2);
  for (int i = 0; i < *returned; ++i) perf[i] = nv::cudnnConvolutionAlgoPerf{i, 0, 0.f, 0, 0, 0, {0, 0, 0}};
  return 0;
}
int Workspace(void*, void*, void*, void*, void*, int, size_t* bytes) { return *bytes = 64, 0; }

DataType type_of(int t) { return t == nv::kCudnnDataHalf ? DataType::kHalf : t == nv::kCudnnDataBfloat16 ? DataType::kBfloat16 : DataType::kFloat; }

enum class Dir { kFwd, kBwdData, kBwdFilter };

// Shape from the input tensor (x or dx), the filter and the conv descriptor.
ConvShape shape_of(const Tensor& x, const Tensor& w, const Conv& c) {
  ConvShape s;
  s.n = x.n, s.c = x.c, s.h = x.h, s.w = x.w, s.k = w.n, s.r = w.h, s.s = w.w;
  s.pad_h = c.pad_h, s.pad_w = c.pad_w, s.stride_h = c.stride_h, s.stride_w = c.stride_w;
  s.dilation_h = c.dil_h, s.dilation_w = c.dil_w;
  return s;
}

std::vector<float> read(const void* p, size_t count, DataType t) {
  std::vector<uint8_t> bytes(count * data_type_size(t));
  std::memcpy(bytes.data(), p, bytes.size());
  return decode_tensor(bytes, t);
}

int run(Dir dir, void* a_desc, const void* a, void* b_desc, const void* b, void* conv, int algo, void* out_desc, void* out) {
  g.algos_run.push_back(algo);
  if (algo == g.failing_algo) return g.algo_status;
  if (g.corruption == State::Corruption::kNothing) return 0;
  const Tensor& ta = *static_cast<Tensor*>(a_desc);
  const Tensor& tb = *static_cast<Tensor*>(b_desc);
  const Tensor& to = *static_cast<Tensor*>(out_desc);
  const Conv& c = *static_cast<Conv*>(conv);
  DataType t = type_of(ta.type);
  TensorLayout layout = ta.format == nv::kCudnnTensorNhwc ? TensorLayout::kNhwc : TensorLayout::kNchw;
  Reference r;
  if (dir == Dir::kFwd) {
    ConvShape s = shape_of(ta, tb, c);
    r = conv_forward_reference(s, layout, read(a, s.x_count(), t), read(b, s.w_count(), t));
  } else if (dir == Dir::kBwdData) {
    ConvShape s = shape_of(to, ta, c);
    r = conv_backward_data_reference(s, layout, read(a, s.w_count(), t), read(b, s.y_count(), t));
  } else {
    ConvShape s = shape_of(ta, to, c);
    r = conv_backward_filter_reference(s, layout, read(a, s.x_count(), t), read(b, s.y_count(), t));
  }
  std::vector<float> values(r.value.begin(), r.value.end());
  if (g.corruption == State::Corruption::kNaN) values[values.size() / 2] = std::numeric_limits<float>::quiet_NaN();
  // 20% of the sum of |terms|: far beyond every bound, yet a plausible-looking number.
  if (g.corruption == State::Corruption::kOffset) values[3] += static_cast<float>(0.2 * r.magnitude[3] + 0.01);
  auto bytes = encode_tensor(values, t);
  std::memcpy(out, bytes.data(), bytes.size());
  return 0;
}
int Forward(void*, const void*, void* ad, const void* a, void* bd, const void* b, void* conv, int algo, void*, size_t,
            const void*, void* od, void* o) {
  return run(Dir::kFwd, ad, a, bd, b, conv, algo, od, o);
}
int BackwardData(void*, const void*, void* ad, const void* a, void* bd, const void* b, void* conv, int algo, void*,
                 size_t, const void*, void* od, void* o) {
  return run(Dir::kBwdData, ad, a, bd, b, conv, algo, od, o);
}
int BackwardFilter(void*, const void*, void* ad, const void* a, void* bd, const void* b, void* conv, int algo, void*,
                   size_t, const void*, void* od, void* o) {
  return run(Dir::kBwdFilter, ad, a, bd, b, conv, algo, od, o);
}

// --- the backend (graph) API: descriptors keep their attributes as bytes; heuristics offer the
// engines in `engines`, each with its notes; executing a plan computes the CPU reference from the
// graph's tensors (layout from the strides), corrupted like the legacy calls.
struct Desc {
  int type = 0;
  std::map<int, std::vector<uint8_t>> attrs;
  void* graph = nullptr;  // engine configs: the graph their heuristics ran on
  int engine = -1;        // engine configs and engines: which engine
};
struct FakeEngine {
  std::vector<int> numerical, behavior;
  int execute_status = 0;
};
std::vector<FakeEngine> engines;
std::vector<int> engines_run;

size_t attr_size(int type) {
  switch (type) {
    case nv::kTypeFloat: return 4;
    case nv::kTypeDataType: case nv::kTypeConvolutionMode: case nv::kTypeHeurMode: return sizeof(int);
    case nv::kTypeChar: return 1;
    default: return 8;  // int64, pointers, descriptors, handle
  }
}
template <typename T>
std::vector<T> get(const Desc* d, int name) {
  std::vector<T> out;
  auto it = d->attrs.find(name);
  if (it == d->attrs.end()) return out;
  out.resize(it->second.size() / sizeof(T));
  std::memcpy(out.data(), it->second.data(), out.size() * sizeof(T));
  return out;
}
Desc* desc(void* p) { return static_cast<Desc*>(p); }

int BackendCreate(int type, void** d) {
  auto* x = new Desc;
  x->type = type;
  g.descriptors.insert(x);
  *d = x;
  return 0;
}
int BackendDestroy(void* d) { return g.descriptors.erase(d), delete desc(d), 0; }
int BackendFinalize(void*) { return 0; }
int BackendSet(void* d, int name, int type, int64_t count, const void* values) {
  auto& bytes = desc(d)->attrs[name];
  bytes.assign(static_cast<const uint8_t*>(values), static_cast<const uint8_t*>(values) + count * attr_size(type));
  return 0;
}
int BackendGet(void* d, int name, int, int64_t requested, int64_t* count, void* values) {
  Desc* x = desc(d);
  if (name == nv::kAttrEngineHeurResults) {
    *count = std::min<int64_t>(requested == 0 ? 1000 : requested, static_cast<int64_t>(engines.size()));
    void* graph = get<void*>(x, nv::kAttrEngineHeurOperationGraph).at(0);
    for (int64_t i = 0; i < *count && requested > 0; ++i) {
      Desc* cfg = desc(static_cast<void**>(values)[i]);
      cfg->graph = graph;
      cfg->engine = static_cast<int>(i);
    }
    return 0;
  }
  if (name == nv::kAttrEngineCfgEngine) {
    desc(static_cast<void**>(values)[0])->engine = x->engine;
    return *count = 1, 0;
  }
  if (name == nv::kAttrEngineGlobalIndex) return *count = 1, *static_cast<int64_t*>(values) = 100 + x->engine, 0;
  if (name == nv::kAttrEngineNumericalNote || name == nv::kAttrEngineBehaviorNote) {
    const auto& notes = name == nv::kAttrEngineNumericalNote ? engines[x->engine].numerical : engines[x->engine].behavior;
    *count = static_cast<int64_t>(notes.size());
    std::copy(notes.begin(), notes.end(), static_cast<int*>(values));
    return 0;
  }
  if (name == nv::kAttrExecutionPlanWorkspaceSize) return *count = 1, *static_cast<int64_t*>(values) = 64, 0;
  if (name == nv::kAttrExecutionPlanJsonRepresentation) {
    Desc* cfg = desc(get<void*>(x, nv::kAttrExecutionPlanEngineConfig).at(0));
    std::string text = "{\"engine\":" + std::to_string(cfg->engine) + "}";
    std::snprintf(static_cast<char*>(values), static_cast<size_t>(requested), "%s", text.c_str());
    return *count = static_cast<int64_t>(text.size() + 1), 0;
  }
  return 3000;
}

struct GraphTensor {
  std::vector<int64_t> dims, strides;
  int type = 0;
};
GraphTensor tensor_of(void* t) {
  return {get<int64_t>(desc(t), nv::kAttrTensorDimensions), get<int64_t>(desc(t), nv::kAttrTensorStrides),
          get<int>(desc(t), nv::kAttrTensorDataType).at(0)};
}

int BackendExecute(void*, void* plan, void* pack) {
  Desc* cfg = desc(get<void*>(desc(plan), nv::kAttrExecutionPlanEngineConfig).at(0));
  engines_run.push_back(cfg->engine);
  if (int st = engines[cfg->engine].execute_status) return st;
  if (g.corruption == State::Corruption::kNothing) return 0;
  Desc* op = desc(get<void*>(desc(cfg->graph), nv::kAttrOperationGraphOps).at(0));
  GraphTensor x = tensor_of(get<void*>(op, nv::kAttrOperationConvolutionForwardX).at(0));
  GraphTensor w = tensor_of(get<void*>(op, nv::kAttrOperationConvolutionForwardW).at(0));
  Desc* conv = desc(get<void*>(op, nv::kAttrOperationConvolutionForwardConvDesc).at(0));
  ConvShape s;
  s.n = int(x.dims[0]), s.c = int(x.dims[1]), s.h = int(x.dims[2]), s.w = int(x.dims[3]);
  s.k = int(w.dims[0]), s.r = int(w.dims[2]), s.s = int(w.dims[3]);
  auto pad = get<int64_t>(conv, nv::kAttrConvolutionPrePaddings);
  s.pad_h = int(pad[0]), s.pad_w = int(pad[1]);
  TensorLayout layout = x.strides[1] == 1 ? TensorLayout::kNhwc : TensorLayout::kNchw;
  DataType t = type_of(x.type);
  auto uids = get<int64_t>(desc(pack), nv::kAttrVariantPackUniqueIds);
  auto ptrs = get<void*>(desc(pack), nv::kAttrVariantPackDataPointers);
  auto ptr_of = [&](int64_t uid) {
    for (size_t i = 0; i < uids.size(); ++i) {
      if (uids[i] == uid) return ptrs[i];
    }
    return static_cast<void*>(nullptr);
  };
  Reference r = conv_forward_reference(s, layout, read(ptr_of(1), s.x_count(), t), read(ptr_of(2), s.w_count(), t));
  std::vector<float> values(r.value.begin(), r.value.end());
  if (g.corruption == State::Corruption::kNaN) values[values.size() / 2] = std::numeric_limits<float>::quiet_NaN();
  if (g.corruption == State::Corruption::kOffset) values[3] += static_cast<float>(0.2 * r.magnitude[3] + 0.01);
  auto bytes = encode_tensor(values, t);
  std::memcpy(ptr_of(3), bytes.data(), bytes.size());
  return 0;
}

nv::CudaDriverFunctions driver() {
  nv::CudaDriverFunctions f;
  f.Init = Init, f.DriverGetVersion = DriverGetVersion, f.DeviceGetCount = DeviceGetCount, f.DeviceGet = DeviceGet;
  f.DeviceGetName = DeviceGetName, f.DeviceGetAttribute = DeviceGetAttribute, f.DeviceTotalMem = DeviceTotalMem;
  f.GetErrorString = GetErrorString, f.DevicePrimaryCtxRetain = PrimaryCtxRetain;
  f.DevicePrimaryCtxRelease = PrimaryCtxRelease, f.CtxSetCurrent = CtxSetCurrent, f.CtxSynchronize = CtxSynchronize;
  f.MemAlloc = MemAlloc, f.MemFree = MemFree, f.MemcpyHtoD = MemcpyHtoD, f.MemcpyDtoH = MemcpyDtoH;
  f.MemsetD8 = MemsetD8, f.StreamCreate = StreamCreate, f.StreamDestroy = StreamDestroy;
  f.StreamSynchronize = StreamSynchronize;
  return f;
}

nv::CudnnFunctions cudnn() {
  nv::CudnnFunctions f;
  f.Create = Create, f.Destroy = Destroy, f.SetStream = SetStream;
  f.CreateTensorDescriptor = CreateTensor, f.DestroyTensorDescriptor = DestroyTensor, f.SetTensor4dDescriptor = SetTensor;
  f.CreateFilterDescriptor = CreateTensor, f.DestroyFilterDescriptor = DestroyTensor, f.SetFilter4dDescriptor = SetFilter;
  f.CreateConvolutionDescriptor = CreateConv, f.DestroyConvolutionDescriptor = DestroyConv;
  f.SetConvolution2dDescriptor = SetConv, f.SetConvolutionMathType = SetMath;
  f.GetConvolutionForwardAlgorithm_v7 = Algorithms, f.GetConvolutionBackwardDataAlgorithm_v7 = Algorithms;
  f.GetConvolutionBackwardFilterAlgorithm_v7 = Algorithms;
  f.GetConvolutionForwardWorkspaceSize = Workspace, f.GetConvolutionBackwardDataWorkspaceSize = Workspace;
  f.GetConvolutionBackwardFilterWorkspaceSize = Workspace;
  f.ConvolutionForward = Forward, f.ConvolutionBackwardData = BackwardData, f.ConvolutionBackwardFilter = BackwardFilter;
  f.BackendCreateDescriptor = BackendCreate, f.BackendDestroyDescriptor = BackendDestroy;
  f.BackendFinalize = BackendFinalize, f.BackendSetAttribute = BackendSet, f.BackendGetAttribute = BackendGet;
  f.BackendExecute = BackendExecute;
  return f;
}

}  // namespace fake

class VerifyGpuStages : public ::testing::Test {
 protected:
  void SetUp() override {
    fake::g = fake::State{};
    // What a cuDNN 9 offers for a small conv: a down-converting engine first (PyTorch drops it),
    // a Winograd one, then a plain tensor-core engine; verify must take the plain one.
    fake::engines = {{{nv::kNumericalNoteDownConvertInputs, nv::kNumericalNoteTensorCore}, {}, 0},
                     {{nv::kNumericalNoteTensorCore, nv::kNumericalNoteWinograd}, {}, 0},
                     {{nv::kNumericalNoteTensorCore}, {}, 0}};
    fake::engines_run.clear();
  }
  void TearDown() override {
    // Whatever happened, nothing may leak: descriptors, memory, handle, stream, context.
    EXPECT_TRUE(fake::g.descriptors.empty());
    EXPECT_TRUE(fake::g.allocations.empty());
    EXPECT_EQ(fake::g.handles, 0);
    EXPECT_EQ(fake::g.streams, 0);
    EXPECT_EQ(fake::g.contexts, 0);
  }

  VerifyReport run(int cudnn_major = 9, const std::string& unusable = {}) {
    DriverFacts facts = query_driver(cu, "/fake/libcuda.so.1", 0);
    GpuSession session;
    session.cu = &cu;
    session.dnn = &dnn;
    session.cudnn_major = cudnn_major;
    VerifyReport report;
    std::vector<std::string> events;
    report.stages = run_gpu_stages(facts, session, default_conv_checks(), unusable,
                                   [&](const std::string& id, const StageResult* r) {
                                     events.push_back((r ? "end " : "start ") + id);
                                   });
    // Every stage that ran was announced before it ended.
    for (size_t i = 0; i < events.size(); ++i) {
      if (events[i].rfind("end ", 0) == 0 && i > 0 && events[i - 1].rfind("start ", 0) == 0) {
        EXPECT_EQ(events[i - 1].substr(6), events[i].substr(4));
      }
    }
    return report;
  }

  nv::CudaDriverFunctions cu = fake::driver();
  nv::CudnnFunctions dnn = fake::cudnn();
};

TEST_F(VerifyGpuStages, AllPassWithACorrectLibrary) {
  VerifyReport r = run();
  ASSERT_EQ(r.stages.size(), 2u + 18u + 3u + 1u);
  for (const auto& s : r.stages) EXPECT_EQ(s.status, StageStatus::kPass) << s.id << ": " << s.summary;
  EXPECT_EQ(verify_exit_code(r), 0);
  EXPECT_NE(r.find("driver")->summary.find("Fake GPU"), std::string::npos);
  EXPECT_NE(r.find("conv.bwd-filter.bf16.nhwc"), nullptr);
  // The graph-API stages ran the plain engine (global index 102), not the ones PyTorch drops or
  // the Winograd one.
  for (const char* id : {"graph.fwd.fp32.nchw", "graph.fwd.fp16.nhwc", "graph.fwd.bf16.nhwc"}) {
    const StageResult* g = r.find(id);
    ASSERT_NE(g, nullptr) << id;
    EXPECT_EQ(g->status, StageStatus::kPass) << id << ": " << g->summary;
    EXPECT_NE(g->evidence.front().find("engine 102 (tensor_core)"), std::string::npos) << g->evidence.front();
  }
  EXPECT_EQ(fake::engines_run, (std::vector<int>{2, 2, 2}));
}

TEST_F(VerifyGpuStages, GraphStagesFallBackAndReportFailures) {
  // The plain engine fails: the Winograd engine is next (never the down-converting one), checked
  // with the transform allowance.
  fake::engines[2].execute_status = 3000;
  VerifyReport r = run();
  const StageResult* g = r.find("graph.fwd.fp16.nhwc");
  EXPECT_EQ(g->status, StageStatus::kPass) << g->summary;
  EXPECT_NE(g->evidence.front().find("winograd"), std::string::npos) << g->evidence.front();
  for (int e : fake::engines_run) EXPECT_NE(e, 0);
  // No engine runs: the status is decoded and the stage fails.
  fake::engines[1].execute_status = 3000;
  VerifyReport none = run();
  const StageResult* n = none.find("graph.fwd.bf16.nhwc");
  ASSERT_EQ(n->status, StageStatus::kFail);
  EXPECT_EQ(n->finding->id, "verify.cudnn.STATUS_NOT_SUPPORTED") << n->finding->id;
}

TEST_F(VerifyGpuStages, GraphStagesNeedTheBackendApi) {
  dnn.BackendExecute = nullptr;
  VerifyReport r = run();
  const StageResult* g = r.find("graph.fwd.fp32.nchw");
  ASSERT_EQ(g->status, StageStatus::kFail);
  EXPECT_EQ(g->finding->id, "verify.library.symbols_missing");
  EXPECT_EQ(r.find("conv.fwd.fp32.nchw")->status, StageStatus::kPass);
}

TEST_F(VerifyGpuStages, NaNNeverPasses) {
  fake::g.corruption = fake::State::Corruption::kNaN;
  VerifyReport r = run();
  const StageResult* s = r.find("conv.fwd.fp32.nchw");
  ASSERT_EQ(s->status, StageStatus::kFail);
  EXPECT_EQ(s->finding->id, "verify.conv.wrong_result");
  EXPECT_NE(s->summary.find("NaN"), std::string::npos);
  EXPECT_EQ(r.find("teardown")->status, StageStatus::kPass);
  EXPECT_EQ(verify_exit_code(r), 1);
}

TEST_F(VerifyGpuStages, UnwrittenOutputIsCaught) {
  fake::g.corruption = fake::State::Corruption::kNothing;  // returns success, writes nothing
  VerifyReport r = run();
  for (const auto& c : default_conv_checks()) EXPECT_EQ(r.find(c.id())->status, StageStatus::kFail) << c.id();
}

TEST_F(VerifyGpuStages, WrongValueIsCaughtInEveryTypeAndDirection) {
  fake::g.corruption = fake::State::Corruption::kOffset;
  VerifyReport r = run();
  for (const auto& c : default_conv_checks()) {
    const StageResult* s = r.find(c.id());
    ASSERT_EQ(s->status, StageStatus::kFail) << c.id();
    EXPECT_NE(s->finding->evidence[1].find("worst element 3"), std::string::npos) << s->finding->evidence[1];
  }
}

TEST_F(VerifyGpuStages, FailingAlgorithmFallsBackToTheNext) {
  fake::g.failing_algo = 0;
  fake::g.algo_status = 3000;  // NOT_SUPPORTED
  VerifyReport r = run();
  const StageResult* s = r.find("conv.fwd.fp16.nhwc");
  EXPECT_EQ(s->status, StageStatus::kPass) << s->summary;
  EXPECT_NE(s->evidence.front().find("algorithm 1"), std::string::npos);
}

TEST_F(VerifyGpuStages, EveryAlgorithmFailingIsDecodedByMajor) {
  fake::g.failing_algo = 0;
  fake::g.algo_status = 3007;
  dnn.GetConvolutionForwardAlgorithm_v7 = [](void*, void*, void*, void*, void*, int, int* returned,
                                              nv::cudnnConvolutionAlgoPerf* perf) {
    *returned = 1;
    perf[0] = nv::cudnnConvolutionAlgoPerf{0, 0, 0.f, 0, 0, 0, {0, 0, 0}};
    return 0;
  };
  VerifyReport r = run();
  const StageResult* s = r.find("conv.fwd.fp32.nchw");
  ASSERT_EQ(s->status, StageStatus::kFail);
  EXPECT_NE(s->summary.find("CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH"), std::string::npos) << s->summary;
  EXPECT_NE(render_fix(s->finding->fix, Shell::kBash).front().find("newer cuDNN"), std::string::npos);
}

TEST_F(VerifyGpuStages, HandleFailureSkipsConvolutionsAndStillTearsDown) {
  fake::g.create_status = 1002;
  VerifyReport r = run(9);
  const StageResult* h = r.find("handle");
  ASSERT_EQ(h->status, StageStatus::kFail);
  EXPECT_NE(h->summary.find("CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH"), std::string::npos);
  EXPECT_EQ(r.find("conv.fwd.fp32.nchw")->status, StageStatus::kSkipped);
  EXPECT_EQ(r.find("teardown")->status, StageStatus::kPass);
}

TEST_F(VerifyGpuStages, StatusDecodedWithTheLibrarysMajor) {
  fake::g.create_status = 3;
  VerifyReport r = run(8);
  EXPECT_NE(r.find("handle")->summary.find("CUDNN_STATUS_BAD_PARAM"), std::string::npos);
}

TEST_F(VerifyGpuStages, NoDeviceMeansNoGpuExitCode) {
  fake::g.init_result = 100;
  VerifyReport r = run();
  const StageResult* d = r.find("driver");
  ASSERT_EQ(d->status, StageStatus::kFail);
  EXPECT_TRUE(d->no_gpu);
  EXPECT_EQ(d->finding->id, "verify.driver.none");
  EXPECT_NE(d->summary.find("no NVIDIA driver/GPU"), std::string::npos);
  EXPECT_EQ(r.find("teardown")->status, StageStatus::kSkipped);
  EXPECT_EQ(verify_exit_code(r), 3);
}

TEST_F(VerifyGpuStages, DriverTooOldIsAProblemNotMissingGpu) {
  fake::g.init_result = 803;
  VerifyReport r = run();
  EXPECT_FALSE(r.find("driver")->no_gpu);
  EXPECT_EQ(verify_exit_code(r), 1);
}

TEST_F(VerifyGpuStages, NoLibcudaAtAll) {
  DriverFacts facts;  // no libcuda path
  GpuSession session;
  session.cu = &cu;
  session.dnn = &dnn;
  JsonReader hostile("a child's line");
  (void)stage_from_json(hostile.parse_object(R"({"id": 5, "evidence": [1], "finding": {"fix": "x"}})"));
  EXPECT_EQ(hostile.status().error().message, "a child's line: field 'id' must be a string, not an integer");
  VerifyReport r;
  r.stages = run_gpu_stages(facts, session, default_conv_checks());
  EXPECT_TRUE(r.find("driver")->no_gpu);
  EXPECT_EQ(verify_exit_code(r), 3);
  auto texts = [](const StageResult* st) {
    std::string all;
    for (const auto& step : st->finding->fix) all += step.text + "\n";
    return all;
  };
  EXPECT_NE(texts(r.find("driver")).find("docker run --gpus all"), std::string::npos) << "Linux: a container may hide the GPU";
  facts.windows = true;
  VerifyReport w;
  w.stages = run_gpu_stages(facts, session, default_conv_checks());
  EXPECT_EQ(texts(w.find("driver")).find("docker"), std::string::npos) << texts(w.find("driver"));
  EXPECT_NE(texts(w.find("driver")).find("nvcuda.dll"), std::string::npos) << texts(w.find("driver"));
}

TEST_F(VerifyGpuStages, UnusableCudnnSkipsCudnnStagesButChecksTheDriver) {
  VerifyReport r = run(9, "the library stage failed");
  EXPECT_EQ(r.find("driver")->status, StageStatus::kPass);
  EXPECT_EQ(r.find("handle")->status, StageStatus::kSkipped);
  EXPECT_NE(r.find("conv.fwd.fp32.nchw")->summary.find("library stage failed"), std::string::npos);
  EXPECT_EQ(r.find("teardown")->status, StageStatus::kPass);
}

TEST(VerifyModel, JsonRoundTripAndExitCodes) {
  Finding f{"verify.x", Severity::kError, "library", "t", "d", {"e1"}, {fix::step("fix1"), fix::cudnnup({"doctor"}, "n")}};
  StageResult s = stage_fail("library", "Library", "broken", f);
  s.seconds = 0.25;
  JsonReader reader("stage");
  StageResult back = stage_from_json(reader.parse_object(stage_to_json(s).dump()));
  EXPECT_TRUE(reader.ok());
  EXPECT_EQ(back.id, "library");
  EXPECT_EQ(back.status, StageStatus::kFail);
  ASSERT_TRUE(back.finding);
  EXPECT_EQ(back.finding->fix, f.fix) << "typed steps cross the child protocol";
  EXPECT_DOUBLE_EQ(back.seconds, 0.25);
  VerifyReport r;
  r.stages = {stage_pass("a", "A", ""), stage_skip("b", "B", "")};
  EXPECT_EQ(verify_exit_code(r), 0);
  StageResult no_gpu = stage_fail("driver", "D", "none", f);
  no_gpu.no_gpu = true;
  r.stages.push_back(no_gpu);
  EXPECT_EQ(verify_exit_code(r), 3);
  r.stages.push_back(s);
  EXPECT_EQ(verify_exit_code(r), 1);
  auto j = verify_report_to_json(r);
  EXPECT_EQ(j["schema"], "cudnnup.verify/1");
  EXPECT_EQ(j["stages"].size(), 4u);
}

}  // namespace
}  // namespace cudnnup
