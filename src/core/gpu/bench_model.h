// What `cudnnup bench` measures and how it reports: the convolution cases, the shapes file
// format, FLOP counts, the GPU's peak rates for scale, and the result table.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gpu/conv_reference.h"
#include "base/result.h"

namespace cudnnup {

struct BenchShape {
  std::string name;  // "resnet50 conv2_x 3x3"
  ConvShape shape;
};

// The ResNet-50 layers of issue 6 and the classic verification conv (8x3x64x64 -> 16, 3x3).
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

// For each shape: bf16 NHWC, fp16 NHWC and fp32 NCHW (TF32 allowed, as PyTorch's default).
std::vector<BenchCase> bench_cases(const std::vector<BenchShape>& shapes);

// Dense peak rates of a GPU, TFLOP/s. From NVIDIA's datasheet for GPUs we know by name,
// otherwise SMs x clock x per-clock rate of the architecture; 0 when unknown.
struct PeakRates {
  double half = 0;  // fp16/bf16 tensor cores, dense
  double tf32 = 0;  // tf32 tensor cores, dense
  double fp32 = 0;  // plain fp32 FMA
  std::string source;  // "datasheet NVIDIA H200 SXM", "computed: 132 SMs x 1980 MHz x 4096"
  double for_type(DataType type) const { return type == DataType::kFloat ? tf32 : half; }
};
PeakRates gpu_peak(const std::string& name, int cc_major, int cc_minor, int sm_count, int clock_khz);

struct BenchRow {
  BenchCase bench;
  double ms = 0;         // median time per convolution
  double tflops = 0;
  int64_t engine = -1;   // engine global index chosen
  int candidates = 0;    // engine configs timed
  std::string error;     // why the case could not run
  std::vector<std::string> tried;  // each candidate timed: engine, workspace, source, time
  std::optional<double> pytorch_ms;  // from the PyTorch side of the same run
  std::optional<double> ratio() const;  // pytorch_ms / ms: >= 1 means cudnnup is as fast
};

nlohmann::json bench_row_to_json(const BenchRow& row, double peak_tflops);

// Reads the PyTorch script's JSON output (bench/pytorch_conv.py) and fills pytorch_ms by key.
Status attach_pytorch_results(const std::string& json_text, std::vector<BenchRow>& rows);

}  // namespace cudnnup
