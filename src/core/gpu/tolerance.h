// Whether a GPU result matches the CPU reference closely enough for its data type.
//
// Each element must satisfy |got - want| <= bound * magnitude, where magnitude is the sum of
// |terms| that made the element (core/conv_reference.h): a correct algorithm's rounding error
// is bounded by that, whatever cancellation did to the result. The bounds per type allow the
// output's own rounding (fp16 2^-11, bf16 2^-8), TF32 inputs for fp32 (cuDNN's default math on
// Ampere and later, as in PyTorch), and the larger error of Winograd/FFT algorithms, with
// headroom; a wrong kernel, garbage or zeros miss them by orders of magnitude. NaN or Inf never
// passes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "gpu/conv_reference.h"

namespace cudnnup {

struct Tolerance {
  double per_element = 0;  // bound on |got - want| / magnitude
  double relative_l2 = 0;  // bound on ||got - want|| / ||want||
};

Tolerance tolerance_for(DataType type);

struct Comparison {
  bool passed = false;
  size_t count = 0;
  size_t non_finite = 0;       // NaN or Inf in the result
  size_t violations = 0;       // elements beyond the per-element bound
  double max_scaled_error = 0; // max |got - want| / magnitude
  double relative_l2 = 0;
  size_t worst_index = 0;
  double worst_got = 0;
  double worst_want = 0;
  std::string summary() const;  // "max error 3.1e-04 of magnitude (bound 5e-03), L2 1.2e-05"
};

Comparison compare_to_reference(const std::vector<float>& got, const Reference& want, const Tolerance& tolerance);

}  // namespace cudnnup
