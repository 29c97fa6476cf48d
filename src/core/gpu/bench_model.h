// What `cudnnup bench` measures and how it reports: the convolution cases, the shapes file
// format, FLOP counts, the GPU's peak rates for scale, and the result table.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gpu/conv_reference.h"
#include "base/filesystem.h"
#include "base/result.h"
#include "base/version.h"

namespace cudnnup {

struct BenchShape {
  std::string name;  // "resnet50 conv2_x 3x3"
  ConvShape shape;
};

// The ResNet-50 layers of the bench target (docs/benchmarks.md) and the classic verification conv (8x3x64x64 -> 16, 3x3).
std::vector<BenchShape> default_bench_shapes();

// One shape per line: `N C H W K R S [pad] [stride] [name...]`; '#' starts a comment.
// "default" is not a file: callers handle it before calling this.
Result<std::vector<BenchShape>> parse_bench_shapes(const std::string& text);

struct BenchCase {
  BenchShape shape;
  DataType type = DataType::kBfloat16;
  TensorLayout layout = TensorLayout::kNhwc;
  std::string key() const;  // "N256 C64 56x56 K64 3x3 pad1|bf16|NHWC": matches PyTorch's rows
};

// The inputs the bench convolves: uniform in [-1, 1) on the grid of the type's mantissa
// (steps of 2^(1-d), d = 8 bits for bf16, 11 for fp16, 24 for fp32), which is what PyTorch's
// `torch.rand(dtype=...) * 2 - 1` gives. The values matter for speed, not just correctness: a
// power-capped GPU lowers its clocks sooner when the tensor cores toggle more bits, and
// full-precision random values near zero toggle more than PyTorch's. On the H200 that alone made
// the same engine 5-10% slower in fp16/bf16 (docs/benchmarks.md, "bench").
std::vector<float> bench_input(size_t count, uint64_t seed, DataType type);

// "default", or a shapes file read through `fs`.
Result<std::vector<BenchShape>> load_bench_shapes(const FileSystem& fs, const std::string& spec);

// For each shape: bf16 NHWC, fp16 NHWC and fp32 NCHW (TF32 allowed, as PyTorch's default).
std::vector<BenchCase> bench_cases(const std::vector<BenchShape>& shapes);

// Where the engine candidates come from.
//   kPyTorch  what PyTorch's cudnn.benchmark=True times (aten/src/ATen/native/cudnn/Conv_v8.cpp):
//             heuristics mode INSTANT, then the fallback list, without the engines PyTorch's filter
//             drops (gpu/cudnn_graph.h pytorch_drops), at most 10 (torch.backends.cudnn.benchmark_limit).
//   kWide     a wider search than PyTorch's: modes A, B and the fallback list in equal shares, no
//             filter; its numbers are not a like-for-like comparison, and the report says so.
enum class CandidatePolicy { kPyTorch, kWide };
const char* candidate_policy_name(CandidatePolicy policy);  // "pytorch", "wide"
struct CandidateSource {
  int heuristics_mode = 0;  // nv::kHeurMode*
  const char* label = "";   // "heuristics instant"
  int share = 0;            // how many candidates at most from this source
};
std::vector<CandidateSource> candidate_sources(CandidatePolicy policy, int max_candidates);
// The default --max-candidates of a policy: PyTorch's benchmark_limit (10) or the wide search's 24.
int default_max_candidates(CandidatePolicy policy);

// The output elements bench compares with the CPU reference after timing: `samples` indices
// spread over [0, count), fixed for a given count.
std::vector<size_t> sample_indices(size_t count, size_t samples);

struct BenchRow {
  BenchCase bench;
  double ms = 0;         // median time per convolution
  double tflops = 0;
  int64_t engine = -1;   // engine global index chosen
  std::string engine_notes;   // the engine's numerical/behaviour notes ("tensor_core, winograd")
  bool tensor_cores = true;   // the engine may use tensor cores (fp32: the TF32 peak applies)
  bool transform = false;     // FFT/Winograd: fewer multiplications than the FLOP count says
  int candidates = 0;    // engine configs timed
  std::string check;     // the output check against the CPU reference, as a sentence
  std::string note;      // something to know about the number (e.g. why it may pass the peak)
  std::string error;     // why the case could not run, or why its number is not reported
  std::vector<std::string> tried;  // each candidate timed: engine, workspace, source, time
  std::optional<double> pytorch_ms;  // from the PyTorch side of the same run
  std::optional<double> ratio() const;  // pytorch_ms / ms: >= 1 means cudnnup is as fast
};

nlohmann::json bench_row_to_json(const BenchRow& row, double peak_tflops);

// A measured rate above the GPU's peak is not a measurement: the engine did less work than the
// convolution needs (or the table is wrong). Sets row.error, or for FFT/Winograd engines (which do
// fewer multiplications than 2·N·K·P·Q·C·R·S) row.note. `peak_tflops` 0: unknown, nothing checked.
void check_against_peak(BenchRow& row, double peak_tflops);

// What bench/pytorch_conv.py recorded about its side of the comparison.
struct PytorchSide {
  std::string torch;           // torch.__version__
  long long cudnn_version = 0; // torch.backends.cudnn.version()
  std::string cudnn_library;   // the libcudnn file its process mapped
  std::optional<bool> allow_tf32;
  std::optional<int> benchmark_limit;  // torch.backends.cudnn.benchmark_limit (0: no limit)
  bool heuristic_mode_b = false;       // TORCH_CUDNN_USE_HEURISTIC_MODE_B: mode B instead of INSTANT
};

// Reads the PyTorch script's JSON output (bench/pytorch_conv.py) and fills pytorch_ms by key.
Result<PytorchSide> attach_pytorch_results(const std::string& json_text, std::vector<BenchRow>& rows);

// How the PyTorch side differs from ours ("PyTorch loaded cuDNN from DIR, bench measured DIR"):
// a comparison is like for like only when this is empty. `our_lib_dir` and `their_dir` canonical.
struct BenchSide {
  std::string lib_dir;  // canonical
  std::string version;
  bool allow_tf32 = true;
  CandidatePolicy policy = CandidatePolicy::kPyTorch;
  int max_candidates = 10;
};
std::vector<std::string> comparison_mismatches(const PytorchSide& pytorch, const std::string& their_dir,
                                               const BenchSide& ours);

}  // namespace cudnnup
