// A plain CPU convolution (cross-correlation, as frameworks and cuDNN's CROSS_CORRELATION mode
// compute it) used as the reference that verify compares cuDNN's results with. Small shapes
// only: it is the obvious nested loop, in double precision.
//
// Each result also carries, per element, the sum of |terms| that went into it. Rounding error
// of any correct algorithm is bounded by a multiple of that sum, so the tolerance check
// (core/tolerance.h) scales by it instead of by the result, which may cancel to near zero.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cudnnup {

enum class TensorLayout { kNchw, kNhwc };
enum class DataType { kFloat, kHalf, kBfloat16 };
enum class ConvDirection { kForward, kBackwardData, kBackwardFilter };

const char* layout_name(TensorLayout layout);      // "NCHW"
const char* data_type_name(DataType type);         // "fp32", "fp16", "bf16"
const char* direction_name(ConvDirection dir);     // "fwd", "bwd-data", "bwd-filter"
size_t data_type_size(DataType type);

struct ConvShape {
  int n = 1, c = 1, h = 1, w = 1;  // input
  int k = 1, r = 1, s = 1;         // filters: k outputs, r x s window
  int pad_h = 0, pad_w = 0;
  int stride_h = 1, stride_w = 1;
  int dilation_h = 1, dilation_w = 1;

  int out_h() const;
  int out_w() const;
  size_t x_count() const { return static_cast<size_t>(n) * c * h * w; }
  size_t w_count() const { return static_cast<size_t>(k) * c * r * s; }
  size_t y_count() const { return static_cast<size_t>(n) * k * out_h() * out_w(); }
  // 2 * N * K * P * Q * C * R * S: the multiply-adds of the forward pass, counted as two.
  double forward_flops() const;
  bool valid() const;  // positive sizes and an output of at least 1x1
  std::string str() const;  // "N8 C3 64x64 K16 3x3 pad1 stride1"
};

// Element offsets in each layout. Activations: NCHW or NHWC; filters: KCRS for NCHW and KRSC
// for NHWC (cuDNN's filter formats of the same names).
size_t activation_index(TensorLayout layout, int c_count, int h_count, int w_count, int n, int c, int h, int w);
size_t filter_index(TensorLayout layout, const ConvShape& shape, int k, int c, int r, int s);

// Visits every (output position, filter tap) pair that touches the input, once, as
// visit(n, k, p, q, c, r, s, h, w): output position (n, k, p, q), input position (n, c, h, w),
// filter tap (k, c, r, s). The references below are sums over these terms.
template <typename Visit>
void for_each_conv_term(const ConvShape& sh, Visit visit) {
  const int p_count = sh.out_h(), q_count = sh.out_w();
  for (int n = 0; n < sh.n; ++n)
    for (int k = 0; k < sh.k; ++k)
      for (int p = 0; p < p_count; ++p)
        for (int q = 0; q < q_count; ++q)
          for (int c = 0; c < sh.c; ++c)
            for (int r = 0; r < sh.r; ++r) {
              int h = p * sh.stride_h - sh.pad_h + r * sh.dilation_h;
              if (h < 0 || h >= sh.h) continue;
              for (int s = 0; s < sh.s; ++s) {
                int w = q * sh.stride_w - sh.pad_w + s * sh.dilation_w;
                if (w < 0 || w >= sh.w) continue;
                visit(n, k, p, q, c, r, s, h, w);
              }
            }
}

struct Reference {
  std::vector<double> value;
  std::vector<double> magnitude;  // sum of |terms| per element
};

// y = conv(x, w); dx = conv_transpose(dy, w); dw = correlate(x, dy). Inputs and outputs are in
// `layout` (activations: x and dx have the input shape, y and dy the output shape).
Reference conv_forward_reference(const ConvShape& shape, TensorLayout layout, const std::vector<float>& x,
                                 const std::vector<float>& w);
Reference conv_backward_data_reference(const ConvShape& shape, TensorLayout layout, const std::vector<float>& w,
                                       const std::vector<float>& dy);
Reference conv_backward_filter_reference(const ConvShape& shape, TensorLayout layout, const std::vector<float>& x,
                                         const std::vector<float>& dy);

// The forward reference at some output elements only (`indices` into y in `layout`): what bench
// checks its results with, where the whole output would take the CPU minutes.
Reference conv_forward_reference_at(const ConvShape& shape, TensorLayout layout, const std::vector<float>& x,
                                    const std::vector<float>& w, const std::vector<size_t>& indices);

// The next value of the splitmix64 sequence that starts at `state`: simple, fast and the same on
// every platform and compiler (std::mt19937's distributions are not).
uint64_t splitmix64_next(uint64_t& state);

// Deterministic values in [-1, 1), already rounded to `type` so the reference sees exactly what
// the GPU gets.
std::vector<float> random_tensor(size_t count, uint64_t seed, DataType type);
// Packs floats into the bytes of `type` (fp32, IEEE fp16 or bfloat16) and back.
std::vector<uint8_t> encode_tensor(const std::vector<float>& values, DataType type);
std::vector<float> decode_tensor(const std::vector<uint8_t>& bytes, DataType type);

}  // namespace cudnnup
