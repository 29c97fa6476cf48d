// Dense peak throughput of a GPU model, from the built-in table data/gpu_peaks.json (NVIDIA's
// datasheet per row, with how the dense figure follows from it). bench shows each case against
// its type's peak and refuses a result above it. The GPU is found by the exact name its driver
// reports, then by the longest matching prefix row; never by a substring (docs/commands/bench.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "gpu/conv_reference.h"

namespace cudnnup {

struct PeakRates {
  double fp32 = 0;  // TFLOP/s; 0: not published
  double tf32 = 0;
  double fp16 = 0;  // tensor cores with FP32 accumulation
  double bf16 = 0;
  std::string sku;         // "H200 SXM"
  std::string source;      // NVIDIA's URL
  std::string derivation;  // how the dense figures follow from the source
  bool checked = false;    // compared with a copy of NVIDIA's table
  bool known() const { return !sku.empty(); }
  // The peak a convolution of `type` can reach: fp32 with tensor cores runs at the TF32 rate.
  double for_type(DataType type, bool tensor_cores) const;
};

struct PeakTable {
  struct Row {
    std::string match;
    bool prefix = false;
    PeakRates rates;
  };
  std::vector<Row> rows;
  std::string data_version;
};

Result<PeakTable> parse_peak_table(const std::string& json_text);
const PeakTable& builtin_peak_table();  // data/gpu_peaks.json, embedded

// The row for a GPU name, or nullopt (an unknown GPU: bench shows no peak and checks none).
std::optional<PeakRates> find_gpu_peak(const PeakTable& table, const std::string& gpu_name);

}  // namespace cudnnup
