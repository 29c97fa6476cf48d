// Rendering of bench results: the text table and the SVG plot (TFLOP/s per case against the
// GPU's peak, cudnnup next to PyTorch when its numbers are attached).
#pragma once

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

}  // namespace cudnnup
