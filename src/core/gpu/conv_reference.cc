#include "gpu/conv_reference.h"

#include <cmath>
#include <cstring>

#include "gpu/half.h"

namespace cudnnup {

const char* layout_name(TensorLayout layout) { return layout == TensorLayout::kNchw ? "NCHW" : "NHWC"; }

const char* data_type_name(DataType type) {
  switch (type) {
    case DataType::kFloat: return "fp32";
    case DataType::kHalf: return "fp16";
    case DataType::kBfloat16: return "bf16";
  }
  return "?";
}

const char* direction_name(ConvDirection dir) {
  switch (dir) {
    case ConvDirection::kForward: return "fwd";
    case ConvDirection::kBackwardData: return "bwd-data";
    case ConvDirection::kBackwardFilter: return "bwd-filter";
  }
  return "?";
}

size_t data_type_size(DataType type) { return type == DataType::kFloat ? 4 : 2; }

int ConvShape::out_h() const { return (h + 2 * pad_h - dilation_h * (r - 1) - 1) / stride_h + 1; }
int ConvShape::out_w() const { return (w + 2 * pad_w - dilation_w * (s - 1) - 1) / stride_w + 1; }

double ConvShape::forward_flops() const {
  return 2.0 * n * k * out_h() * out_w() * static_cast<double>(c) * r * s;
}

bool ConvShape::valid() const {
  if (n < 1 || c < 1 || h < 1 || w < 1 || k < 1 || r < 1 || s < 1) return false;
  if (pad_h < 0 || pad_w < 0 || stride_h < 1 || stride_w < 1 || dilation_h < 1 || dilation_w < 1) return false;
  return h + 2 * pad_h >= dilation_h * (r - 1) + 1 && w + 2 * pad_w >= dilation_w * (s - 1) + 1;
}

std::string ConvShape::str() const {
  std::string out = "N" + std::to_string(n) + " C" + std::to_string(c) + " " + std::to_string(h) + "x" +
                    std::to_string(w) + " K" + std::to_string(k) + " " + std::to_string(r) + "x" + std::to_string(s);
  if (pad_h || pad_w) out += " pad" + std::to_string(pad_h) + (pad_h == pad_w ? "" : "," + std::to_string(pad_w));
  if (stride_h != 1 || stride_w != 1) out += " stride" + std::to_string(stride_h);
  if (dilation_h != 1 || dilation_w != 1) out += " dilation" + std::to_string(dilation_h);
  return out;
}

size_t activation_index(TensorLayout layout, int c_count, int h_count, int w_count, int n, int c, int h, int w) {
  if (layout == TensorLayout::kNchw) {
    return ((static_cast<size_t>(n) * c_count + c) * h_count + h) * w_count + w;
  }
  return ((static_cast<size_t>(n) * h_count + h) * w_count + w) * c_count + c;
}

size_t filter_index(TensorLayout layout, const ConvShape& sh, int k, int c, int r, int s) {
  if (layout == TensorLayout::kNchw) return ((static_cast<size_t>(k) * sh.c + c) * sh.r + r) * sh.s + s;
  return ((static_cast<size_t>(k) * sh.r + r) * sh.s + s) * sh.c + c;
}

Reference conv_forward_reference(const ConvShape& sh, TensorLayout layout, const std::vector<float>& x,
                                 const std::vector<float>& wt) {
  Reference out{std::vector<double>(sh.y_count(), 0.0), std::vector<double>(sh.y_count(), 0.0)};
  const int p_count = sh.out_h(), q_count = sh.out_w();
  for_each_conv_term(sh, [&](int n, int k, int p, int q, int c, int r, int s, int h, int w) {
    double term = static_cast<double>(x[activation_index(layout, sh.c, sh.h, sh.w, n, c, h, w)]) *
                  wt[filter_index(layout, sh, k, c, r, s)];
    size_t yi = activation_index(layout, sh.k, p_count, q_count, n, k, p, q);
    out.value[yi] += term;
    out.magnitude[yi] += std::fabs(term);
  });
  return out;
}

Reference conv_backward_data_reference(const ConvShape& sh, TensorLayout layout, const std::vector<float>& wt,
                                       const std::vector<float>& dy) {
  Reference out{std::vector<double>(sh.x_count(), 0.0), std::vector<double>(sh.x_count(), 0.0)};
  const int p_count = sh.out_h(), q_count = sh.out_w();
  for_each_conv_term(sh, [&](int n, int k, int p, int q, int c, int r, int s, int h, int w) {
    double term = static_cast<double>(dy[activation_index(layout, sh.k, p_count, q_count, n, k, p, q)]) *
                  wt[filter_index(layout, sh, k, c, r, s)];
    size_t xi = activation_index(layout, sh.c, sh.h, sh.w, n, c, h, w);
    out.value[xi] += term;
    out.magnitude[xi] += std::fabs(term);
  });
  return out;
}

Reference conv_backward_filter_reference(const ConvShape& sh, TensorLayout layout, const std::vector<float>& x,
                                         const std::vector<float>& dy) {
  Reference out{std::vector<double>(sh.w_count(), 0.0), std::vector<double>(sh.w_count(), 0.0)};
  const int p_count = sh.out_h(), q_count = sh.out_w();
  for_each_conv_term(sh, [&](int n, int k, int p, int q, int c, int r, int s, int h, int w) {
    double term = static_cast<double>(dy[activation_index(layout, sh.k, p_count, q_count, n, k, p, q)]) *
                  x[activation_index(layout, sh.c, sh.h, sh.w, n, c, h, w)];
    size_t wi = filter_index(layout, sh, k, c, r, s);
    out.value[wi] += term;
    out.magnitude[wi] += std::fabs(term);
  });
  return out;
}

Reference conv_forward_reference_at(const ConvShape& sh, TensorLayout layout, const std::vector<float>& x,
                                    const std::vector<float>& wt, const std::vector<size_t>& indices) {
  Reference out{std::vector<double>(indices.size(), 0.0), std::vector<double>(indices.size(), 0.0)};
  const size_t P = static_cast<size_t>(sh.out_h()), Q = static_cast<size_t>(sh.out_w()), K = static_cast<size_t>(sh.k);
  for (size_t i = 0; i < indices.size(); ++i) {
    const size_t at = indices[i];
    size_t n, k, p, q;
    if (layout == TensorLayout::kNchw) {
      q = at % Q, p = at / Q % P, k = at / (Q * P) % K, n = at / (Q * P * K);
    } else {
      k = at % K, q = at / K % Q, p = at / (K * Q) % P, n = at / (K * Q * P);
    }
    for (int c = 0; c < sh.c; ++c)
      for (int r = 0; r < sh.r; ++r) {
        int h = static_cast<int>(p) * sh.stride_h - sh.pad_h + r * sh.dilation_h;
        if (h < 0 || h >= sh.h) continue;
        for (int s = 0; s < sh.s; ++s) {
          int w = static_cast<int>(q) * sh.stride_w - sh.pad_w + s * sh.dilation_w;
          if (w < 0 || w >= sh.w) continue;
          double term = static_cast<double>(x[activation_index(layout, sh.c, sh.h, sh.w, static_cast<int>(n), c, h, w)]) *
                        wt[filter_index(layout, sh, static_cast<int>(k), c, r, s)];
          out.value[i] += term;
          out.magnitude[i] += std::fabs(term);
        }
      }
  }
  return out;
}

namespace {

float round_to(float v, DataType type) {
  switch (type) {
    case DataType::kFloat: return v;
    case DataType::kHalf: return half_to_float(float_to_half(v));
    case DataType::kBfloat16: return bfloat16_to_float(float_to_bfloat16(v));
  }
  return v;
}

}  // namespace

uint64_t splitmix64_next(uint64_t& state) {
  state += 0x9e3779b97f4a7c15ull;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::vector<float> random_tensor(size_t count, uint64_t seed, DataType type) {
  std::vector<float> out(count);
  uint64_t state = seed;
  for (auto& v : out) {
    uint64_t z = splitmix64_next(state);
    float unit = static_cast<float>(z >> 40) / static_cast<float>(1ull << 24);  // [0, 1)
    v = round_to(unit * 2.0f - 1.0f, type);
  }
  return out;
}

std::vector<uint8_t> encode_tensor(const std::vector<float>& values, DataType type) {
  std::vector<uint8_t> out(values.size() * data_type_size(type));
  for (size_t i = 0; i < values.size(); ++i) {
    if (type == DataType::kFloat) {
      std::memcpy(&out[i * 4], &values[i], 4);
    } else {
      uint16_t bits = type == DataType::kHalf ? float_to_half(values[i]) : float_to_bfloat16(values[i]);
      std::memcpy(&out[i * 2], &bits, 2);
    }
  }
  return out;
}

std::vector<float> decode_tensor(const std::vector<uint8_t>& bytes, DataType type) {
  size_t size = data_type_size(type);
  std::vector<float> out(bytes.size() / size);
  for (size_t i = 0; i < out.size(); ++i) {
    if (type == DataType::kFloat) {
      std::memcpy(&out[i], &bytes[i * 4], 4);
    } else {
      uint16_t bits;
      std::memcpy(&bits, &bytes[i * 2], 2);
      out[i] = type == DataType::kHalf ? half_to_float(bits) : bfloat16_to_float(bits);
    }
  }
  return out;
}

}  // namespace cudnnup
