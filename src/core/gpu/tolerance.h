// Whether a GPU result matches the CPU reference closely enough, with bounds derived from the
// numerics of the computation (docs/commands/verify.md, "Tolerances", has the derivation).
//
// Element i passes when |got − want| ≤ A·Σ|terms| + B·|want| + F, where Σ|terms| is the sum of the
// magnitudes of the products that make the element (gpu/conv_reference.h):
//   A  the error before the output is rounded: inputs rounded to TF32 (fp32 with TF32 allowed),
//      the FP32 accumulation of n terms (γ_n = n·u/(1 − n·u)), and, for FFT/Winograd engines, an
//      allowance for their transforms;
//   B  rounding the result to the output type (relative to the result itself, so an output that
//      cancels to near zero must still have the right sign);
//   F  the output type's smallest subnormal step (an element of only zero terms stays ~zero).
// Every unit roundoff is taken as 2^(1−p), twice the round-to-nearest value, so truncating
// hardware (tensor cores truncate in their additions: Fasi et al. 2021) is covered.
// The relative L2 error over the output must stay within L2 = 1.5·u_in + B + 7·√n·u_acc (+ the
// transform allowance): the rounding errors of the inputs and of the additions are independent
// from term to term and element to element, so over the whole output they behave like random
// signs (Higham & Mary 2019), not like the worst case; output rounding adds at most B.
// NaN or Inf never passes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu/conv_reference.h"

namespace cudnnup {

// What the computation being checked may do to the numbers.
struct Numerics {
  DataType type = DataType::kFloat;
  int64_t accumulation_length = 1;   // terms summed per output element (accumulation_length())
  bool tf32_inputs = false;          // fp32 inputs may be rounded to TF32 (cuDNN's default math)
  bool reduced_precision_reduction = false;  // engine note: partial sums kept in the data type
  bool transform = false;            // an FFT or Winograd algorithm
  // Roundings of partial results to the data type that the computation may make without saying
  // so: the legacy convolution API reports no numerical notes, and its split-K kernels store
  // partial outputs in fp16/bf16 (cuDNN 9.14 and 9.19 on an H200, backward-data fp16 NCHW,
  // algorithm 1: 3.4 fp16 units off at one element, docs/benchmarks.md). Each adds one unit of
  // the data type to the bound on the magnitude.
  int unseen_partial_roundings = 0;
};

// Terms per output element: forward C·R·S, backward-data K·R·S, backward-filter N·P·Q.
int64_t accumulation_length(const ConvShape& shape, ConvDirection direction);

struct Tolerance {
  double of_magnitude = 0;     // A
  double of_value = 0;         // B
  double absolute = 0;         // F
  double relative_l2 = 0;      // L2
  std::string derivation;      // "TF32 inputs 2^-10, FP32 sum of 72 terms, fp32 output": for the evidence
};

Tolerance tolerance_for(const Numerics& numerics);

struct Comparison {
  bool passed = false;
  size_t count = 0;
  size_t non_finite = 0;       // NaN or Inf in the result
  size_t violations = 0;       // elements beyond their bound
  double max_scaled_error = 0; // max |got − want| / Σ|terms|
  double worst_ratio = 0;      // max |got − want| / bound: above 1 fails
  double relative_l2 = 0;
  double l2_bound = 0;         // Tolerance::relative_l2
  size_t worst_index = 0;      // the element with the largest worst_ratio
  double worst_got = 0;
  double worst_want = 0;
  // "max error 3.1e-04 of magnitude (0.12 of its bound), relative L2 error 1.2e-05 (bound 1.0e-03);
  //  0 of 4608 elements out of bounds"
  std::string summary() const;
};

Comparison compare_to_reference(const std::vector<float>& got, const Reference& want, const Tolerance& tolerance);

}  // namespace cudnnup
