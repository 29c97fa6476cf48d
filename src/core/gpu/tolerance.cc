#include "gpu/tolerance.h"

#include <cmath>
#include <cstdio>

namespace cudnnup {

namespace {

// 2^(1-p) for a type with p significand bits: fp32 24, TF32 and fp16 11, bf16 8.
double unit_roundoff(int significand_bits) { return std::ldexp(1.0, 1 - significand_bits); }

int significand_bits(DataType t) {
  switch (t) {
    case DataType::kFloat: return 24;
    case DataType::kHalf: return 11;
    case DataType::kBfloat16: return 8;
  }
  return 24;
}

// The smallest subnormal step of the output type.
double subnormal_step(DataType t) {
  switch (t) {
    case DataType::kFloat: return std::ldexp(1.0, -149);
    case DataType::kHalf: return std::ldexp(1.0, -24);
    case DataType::kBfloat16: return std::ldexp(1.0, -133);
  }
  return 0;
}

// Bound on the accumulation error of n terms, relative to Σ|terms|: Higham's γ_n = n·u/(1 − n·u)
// while n·u is small; beyond, the probabilistic λ·√n·u of Higham & Mary (2019) with λ = 7 (it
// fails with probability below 2n·exp(−λ²/2) per element): only partial sums kept in fp16/bf16
// get there.
double accumulation_bound(int64_t n, double u) {
  double nu = static_cast<double>(n) * u;
  if (nu < 0.5) return nu / (1 - nu);
  return 7.0 * std::sqrt(static_cast<double>(n)) * u;
}

}  // namespace

int64_t accumulation_length(const ConvShape& s, ConvDirection direction) {
  switch (direction) {
    case ConvDirection::kForward: return int64_t{s.c} * s.r * s.s;
    case ConvDirection::kBackwardData: return int64_t{s.k} * s.r * s.s;
    case ConvDirection::kBackwardFilter: return int64_t{s.n} * s.out_h() * s.out_w();
  }
  return 1;
}

Tolerance tolerance_for(const Numerics& x) {
  const double u_fp32 = unit_roundoff(24);
  const double u_type = unit_roundoff(significand_bits(x.type));
  const double u_in = x.type == DataType::kFloat && x.tf32_inputs ? unit_roundoff(11) : 0.0;
  const double u_acc = x.reduced_precision_reduction ? u_type : u_fp32;
  const double gamma = accumulation_bound(x.accumulation_length, u_acc);
  // Transforms (FFT, Winograd) compute the same sum through other values; 16 units of the
  // precision they compute in (the data type's for fp16/bf16, TF32 or FP32 for fp32) covers the
  // growth of their transform matrices for 3x3 filters with room to spare. An allowance, not a
  // derivation: these engines are used only when nothing else runs (verify) or chosen (bench).
  const double u_transform = x.type == DataType::kFloat ? (x.tf32_inputs ? unit_roundoff(11) : u_fp32) : u_type;
  const double transform = x.transform ? 16 * u_transform : 0.0;

  Tolerance t;
  t.of_value = u_type;
  const double partials = x.unseen_partial_roundings * u_type;
  t.of_magnitude = ((2 * u_in + u_in * u_in) + gamma * (1 + u_in) * (1 + u_in) + transform + partials) * (1 + u_type);
  t.absolute = subnormal_step(x.type);
  // Input rounding over the whole output: truncation biases each input by at most u_in/2 (so the
  // product by u_in) and spreads it by u_in/√12, √(1 + 1/6)·u_in ≈ 1.08·u_in in all (to nearest:
  // 0.41·u_in); 1.5·u_in leaves room for inputs that are not perfectly independent. The sums'
  // rounding, independent from addition to addition: λ·√n·u_acc with λ = 7.
  t.relative_l2 = 1.5 * u_in + u_type + 7.0 * std::sqrt(static_cast<double>(x.accumulation_length)) * u_acc + transform;
  char text[200];
  char partial_text[64] = "";
  if (x.unseen_partial_roundings > 0) {
    std::snprintf(partial_text, sizeof partial_text, ", up to %d partial results stored as %s", x.unseen_partial_roundings,
                  data_type_name(x.type));
  }
  std::snprintf(text, sizeof text, "%s inputs, %s sum of %lld terms%s%s, %s output",
                u_in > 0 ? "TF32-rounded" : "exact", x.reduced_precision_reduction ? data_type_name(x.type) : "FP32",
                static_cast<long long>(x.accumulation_length), x.transform ? ", FFT/Winograd transform" : "",
                partial_text, data_type_name(x.type));
  t.derivation = text;
  return t;
}

std::string Comparison::summary() const {
  char text[320];
  if (count == 0) return "no elements to compare";
  if (non_finite) {
    std::snprintf(text, sizeof text, "%zu of %zu elements are NaN or Inf", non_finite, count);
    return text;
  }
  std::snprintf(text, sizeof text,
                "max error %.2e of magnitude (%.2g of its bound), relative L2 error %.2e (bound %.1e); "
                "%zu of %zu elements out of bounds",
                max_scaled_error, worst_ratio, relative_l2, l2_bound, violations, count);
  return text;
}

Comparison compare_to_reference(const std::vector<float>& got, const Reference& want, const Tolerance& tol) {
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
    double m = want.magnitude[i];
    if (!std::isfinite(g)) {
      ++out.non_finite;
      continue;
    }
    double error = std::fabs(g - v);
    double allowed = tol.of_magnitude * m + tol.of_value * std::fabs(v) + tol.absolute;
    double ratio = allowed > 0 ? error / allowed : (error > 0 ? INFINITY : 0.0);
    if (ratio > 1) ++out.violations;
    if (m > 0) out.max_scaled_error = std::max(out.max_scaled_error, error / m);
    if (ratio > out.worst_ratio || i == 0) {
      out.worst_ratio = std::max(out.worst_ratio, ratio);
      out.worst_index = i;
      out.worst_got = g;
      out.worst_want = v;
    }
    diff_sq += error * error;
    want_sq += v * v;
  }
  out.relative_l2 = want_sq > 0 ? std::sqrt(diff_sq / want_sq) : std::sqrt(diff_sq);
  out.l2_bound = tol.relative_l2;
  out.passed = out.count > 0 && out.non_finite == 0 && out.violations == 0 && out.relative_l2 <= out.l2_bound;
  return out;
}

}  // namespace cudnnup
