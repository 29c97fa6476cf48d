// Rendering of bench results: the text table and the SVG plot (TFLOP/s per case against the
// GPU's peak, cudnnup next to PyTorch when its numbers are attached).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpu/bench_model.h"
#include "gpu/gpu_peaks.h"

namespace cudnnup {

struct BenchHeader {
  std::string lib_dir;
  std::string cudnn_version;
  std::string gpu_name;
  int gpu = 0;
  PeakRates peak;          // unknown (sku empty) for a GPU the table does not list
  std::string policy;      // "pytorch" or "wide" (gpu/bench_model.h CandidatePolicy)
  bool allow_tf32 = true;
  bool compared = false;   // PyTorch results were attached
  std::vector<std::string> mismatches;  // how the PyTorch side differs (empty: like for like)
};

std::string render_bench_text(const BenchHeader& header, const std::vector<BenchRow>& rows);
std::string render_bench_svg(const BenchHeader& header, const std::vector<BenchRow>& rows);

// One bar group of the plot: what it shows, whichever report it came from (a live run, or a
// saved `bench --json` in doctor --format html).
struct BenchPlotRow {
  std::string label;                     // "N8 C3 64x64 K16 3x3 pad1 bf16 NHWC"
  double tflops = 0;                     // cudnnup's
  std::optional<double> pytorch_tflops;  // when PyTorch's results were attached
  double peak_tflops = 0;                // 0: unknown for this GPU and type
};
std::string render_bench_plot_svg(const std::string& title, const std::string& peak_source,
                                  const std::vector<BenchPlotRow>& rows);

}  // namespace cudnnup
