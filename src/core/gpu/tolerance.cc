#include "gpu/tolerance.h"

#include <cmath>
#include <cstdio>

namespace cudnnup {

Tolerance tolerance_for(DataType type) {
  switch (type) {
    case DataType::kFloat: return {5e-3, 5e-3};     // TF32 inputs: 2^-11 each, plus headroom
    case DataType::kHalf: return {1e-2, 1e-2};      // fp16 output 2^-11, Winograd headroom
    case DataType::kBfloat16: return {3e-2, 3e-2};  // bf16 output 2^-8
  }
  return {0, 0};
}

std::string Comparison::summary() const {
  char text[256];
  if (count == 0) return "no elements to compare";
  if (non_finite) {
    std::snprintf(text, sizeof text, "%zu of %zu elements are NaN or Inf", non_finite, count);
    return text;
  }
  std::snprintf(text, sizeof text,
                "max error %.2e of magnitude, relative L2 error %.2e; %zu of %zu elements out of bounds",
                max_scaled_error, relative_l2, violations, count);
  return text;
}

Comparison compare_to_reference(const std::vector<float>& got, const Reference& want, const Tolerance& tolerance) {
  Comparison out;
  out.count = want.value.size();
  if (got.size() != want.value.size() || want.magnitude.size() != want.value.size()) {
    out.violations = out.count;
    return out;
  }
  double diff_sq = 0, want_sq = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double g = got[i];
    double v = want.value[i];
    if (!std::isfinite(g)) {
      ++out.non_finite;
      continue;
    }
    double error = std::fabs(g - v);
    // An element made only of zero terms must come out zero (up to denormal noise).
    double scaled = want.magnitude[i] > 0 ? error / want.magnitude[i] : (error > 1e-30 ? INFINITY : 0.0);
    if (scaled > tolerance.per_element) ++out.violations;
    if (scaled > out.max_scaled_error) {
      out.max_scaled_error = scaled;
      out.worst_index = i;
      out.worst_got = g;
      out.worst_want = v;
    }
    diff_sq += error * error;
    want_sq += v * v;
  }
  out.relative_l2 = want_sq > 0 ? std::sqrt(diff_sq / want_sq) : std::sqrt(diff_sq);
  out.passed = out.count > 0 && out.non_finite == 0 && out.violations == 0 && out.relative_l2 <= tolerance.relative_l2;
  return out;
}

}  // namespace cudnnup
