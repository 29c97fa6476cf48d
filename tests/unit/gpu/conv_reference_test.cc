#include "gpu/conv_reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gpu/tolerance.h"

namespace cudnnup {
namespace {

ConvShape small_shape() {
  ConvShape s;
  s.n = 2, s.c = 3, s.h = 5, s.w = 4, s.k = 2, s.r = 3, s.s = 2;
  s.pad_h = 1, s.pad_w = 1, s.stride_h = 2, s.stride_w = 1;
  return s;
}

TEST(ConvShape, OutputSizeAndFlops) {
  ConvShape s;
  s.n = 8, s.c = 3, s.h = s.w = 64, s.k = 16, s.r = s.s = 3, s.pad_h = s.pad_w = 1;
  EXPECT_EQ(s.out_h(), 64);
  EXPECT_EQ(s.out_w(), 64);
  EXPECT_DOUBLE_EQ(s.forward_flops(), 2.0 * 8 * 16 * 64 * 64 * 3 * 3 * 3);
  EXPECT_EQ(s.str(), "N8 C3 64x64 K16 3x3 pad1");
  s.stride_h = s.stride_w = 2;
  EXPECT_EQ(s.out_h(), 32);
  EXPECT_TRUE(s.valid());
  s.h = 0;
  EXPECT_FALSE(s.valid());
}

TEST(ConvReference, ForwardByHand) {
  // 1x1x3x3 input, one 2x2 filter, no padding: each output is a 2x2 window dot product.
  ConvShape s;
  s.n = 1, s.c = 1, s.h = 3, s.w = 3, s.k = 1, s.r = 2, s.s = 2;
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<float> w = {1, 0, 0, -1};
  Reference y = conv_forward_reference(s, TensorLayout::kNchw, x, w);
  ASSERT_EQ(y.value.size(), 4u);
  EXPECT_DOUBLE_EQ(y.value[0], 1 - 5);
  EXPECT_DOUBLE_EQ(y.value[1], 2 - 6);
  EXPECT_DOUBLE_EQ(y.value[3], 5 - 9);
  EXPECT_DOUBLE_EQ(y.magnitude[0], 1 + 5);
}

// Transposes an NCHW activation into NHWC.
std::vector<float> to_nhwc(const std::vector<float>& v, int n, int c, int h, int w) {
  std::vector<float> out(v.size());
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < c; ++b)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          out[activation_index(TensorLayout::kNhwc, c, h, w, a, b, y, x)] =
              v[activation_index(TensorLayout::kNchw, c, h, w, a, b, y, x)];
  return out;
}

std::vector<float> filter_to_krsc(const ConvShape& s, const std::vector<float>& v) {
  std::vector<float> out(v.size());
  for (int k = 0; k < s.k; ++k)
    for (int c = 0; c < s.c; ++c)
      for (int r = 0; r < s.r; ++r)
        for (int q = 0; q < s.s; ++q)
          out[filter_index(TensorLayout::kNhwc, s, k, c, r, q)] = v[filter_index(TensorLayout::kNchw, s, k, c, r, q)];
  return out;
}

TEST(ConvReference, LayoutsAgree) {
  ConvShape s = small_shape();
  auto x = random_tensor(s.x_count(), 1, DataType::kFloat);
  auto w = random_tensor(s.w_count(), 2, DataType::kFloat);
  Reference nchw = conv_forward_reference(s, TensorLayout::kNchw, x, w);
  Reference nhwc = conv_forward_reference(s, TensorLayout::kNhwc, to_nhwc(x, s.n, s.c, s.h, s.w), filter_to_krsc(s, w));
  std::vector<float> nchw_as_float(nchw.value.begin(), nchw.value.end());
  auto converted = to_nhwc(nchw_as_float, s.n, s.k, s.out_h(), s.out_w());
  for (size_t i = 0; i < converted.size(); ++i) EXPECT_NEAR(converted[i], nhwc.value[i], 1e-6);
}

// The adjoint identities: <conv(x, w), dy> == <x, bwd_data(w, dy)> == <w, bwd_filter(x, dy)>.
// They hold only if the three loops index the same terms, which is what makes them references.
TEST(ConvReference, BackwardPassesAreAdjointsOfForward) {
  for (TensorLayout layout : {TensorLayout::kNchw, TensorLayout::kNhwc}) {
    ConvShape s = small_shape();
    auto x = random_tensor(s.x_count(), 3, DataType::kFloat);
    auto w = random_tensor(s.w_count(), 4, DataType::kFloat);
    auto dy = random_tensor(s.y_count(), 5, DataType::kFloat);
    Reference y = conv_forward_reference(s, layout, x, w);
    Reference dx = conv_backward_data_reference(s, layout, w, dy);
    Reference dw = conv_backward_filter_reference(s, layout, x, dy);
    double a = 0, b = 0, c = 0;
    for (size_t i = 0; i < y.value.size(); ++i) a += y.value[i] * dy[i];
    for (size_t i = 0; i < dx.value.size(); ++i) b += dx.value[i] * x[i];
    for (size_t i = 0; i < dw.value.size(); ++i) c += dw.value[i] * w[i];
    EXPECT_NEAR(a, b, 1e-9 * std::fabs(a) + 1e-9) << layout_name(layout);
    EXPECT_NEAR(a, c, 1e-9 * std::fabs(a) + 1e-9) << layout_name(layout);
  }
}

TEST(RandomTensor, DeterministicInRangeAndRoundedToType) {
  auto a = random_tensor(1000, 42, DataType::kHalf);
  auto b = random_tensor(1000, 42, DataType::kHalf);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, random_tensor(1000, 43, DataType::kHalf));
  for (float v : a) {
    EXPECT_GE(v, -1.0f);
    EXPECT_LE(v, 1.0f);
  }
  auto bytes = encode_tensor(a, DataType::kHalf);
  EXPECT_EQ(bytes.size(), 2000u);
  EXPECT_EQ(decode_tensor(bytes, DataType::kHalf), a);  // exact: values are already halves
  auto bf = random_tensor(100, 7, DataType::kBfloat16);
  EXPECT_EQ(decode_tensor(encode_tensor(bf, DataType::kBfloat16), DataType::kBfloat16), bf);
}

Reference make_reference(const std::vector<double>& value, const std::vector<double>& magnitude) {
  return Reference{value, magnitude};
}

Tolerance tolerance_of(DataType type) { return tolerance_for(Numerics{type, 72, false, false, false}); }

TEST(Tolerance, AcceptsRoundingRejectsGarbageAndNaN) {
  Reference want = make_reference({1.0, -2.0, 0.5, 0.0}, {3.0, 4.0, 2.0, 1.0});
  // fp16 output rounding of these values is exact or within 2^-11 of the value; an exact zero may
  // come out off by the FP32 accumulation error only.
  auto ok = compare_to_reference({1.0f, -2.0f, 0.5f, 0.0f}, want, tolerance_of(DataType::kHalf));
  EXPECT_TRUE(ok.passed) << ok.summary();
  auto rounding = compare_to_reference({1.0005f, -2.001f, 0.5f, 2e-6f}, want, tolerance_of(DataType::kHalf));
  EXPECT_TRUE(rounding.passed) << rounding.summary();
  auto off = compare_to_reference({1.2f, -2.0f, 0.5f, 0.0f}, want, tolerance_of(DataType::kHalf));
  EXPECT_FALSE(off.passed);
  EXPECT_EQ(off.violations, 1u);
  EXPECT_EQ(off.worst_index, 0u);
  auto wrong_sign = compare_to_reference({1.0f, -2.0f, -0.5f, 0.0f}, want, tolerance_of(DataType::kBfloat16));
  EXPECT_FALSE(wrong_sign.passed);  // 0.5 of a magnitude of 2: 25%, and of the value itself 200%
  auto zeros = compare_to_reference({0, 0, 0, 0}, want, tolerance_of(DataType::kBfloat16));
  EXPECT_FALSE(zeros.passed);
  auto nan = compare_to_reference({1.0f, std::numeric_limits<float>::quiet_NaN(), 0.5f, 0.0f}, want,
                                  tolerance_of(DataType::kBfloat16));
  EXPECT_FALSE(nan.passed);
  EXPECT_EQ(nan.non_finite, 1u);
  EXPECT_NE(nan.summary().find("NaN"), std::string::npos);
  auto inf = compare_to_reference({1.0f, -2.0f, std::numeric_limits<float>::infinity(), 0.0f}, want,
                                  tolerance_of(DataType::kFloat));
  EXPECT_FALSE(inf.passed);
  EXPECT_FALSE(compare_to_reference({1.0f}, want, tolerance_of(DataType::kFloat)).passed);  // wrong size
}

TEST(Tolerance, BoundsGrowWithLessPrecision) {
  EXPECT_LT(tolerance_of(DataType::kFloat).of_value, tolerance_of(DataType::kHalf).of_value);
  EXPECT_LT(tolerance_of(DataType::kHalf).of_value, tolerance_of(DataType::kBfloat16).of_value);
  // bf16 output rounding (2^-8 relative, to nearest) must pass; an error of 10% must not.
  Reference want = make_reference({1.0}, {1.0});
  EXPECT_TRUE(compare_to_reference({1.0f + 1.0f / 256}, want, tolerance_of(DataType::kBfloat16)).passed);
  EXPECT_FALSE(compare_to_reference({1.1f}, want, tolerance_of(DataType::kBfloat16)).passed);
}

}  // namespace
}  // namespace cudnnup
