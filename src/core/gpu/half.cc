#include "gpu/half.h"

#include <cmath>
#include <cstring>

namespace cudnnup {
namespace {

// std::bit_cast, which GCC 10 (the portable build's compiler, scripts/build-portable.sh) lacks.
uint32_t bits_of(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float float_of(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

}  // namespace

uint16_t float_to_half(float value) {
  uint32_t f = bits_of(value);
  uint32_t sign = (f >> 16) & 0x8000u;
  uint32_t abs = f & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // Inf or NaN; keep NaN a (quiet) NaN
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504
  if (abs < 0x38800000u) {  // below the smallest normal half (2^-14): subnormal or zero
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);  // below half of 2^-24: zero
    uint32_t exponent = abs >> 23;
    uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    // value = mantissa * 2^(exponent-150); in units of the smallest subnormal (2^-24) that is
    // mantissa >> (126 - exponent), with shift between 14 and 24 here.
    uint32_t shift = 126 - exponent;
    uint32_t result = mantissa >> shift;
    uint32_t remainder = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (remainder > halfway || (remainder == halfway && (result & 1u))) ++result;
    return static_cast<uint16_t>(sign | result);
  }
  uint32_t result = ((abs >> 13) - (112u << 10));  // rebias exponent 127 -> 15
  uint32_t remainder = abs & 0x1fffu;
  if (remainder > 0x1000u || (remainder == 0x1000u && (result & 1u))) ++result;
  return static_cast<uint16_t>(sign | result);
}

float half_to_float(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0) {
    float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) return float_of(sign | 0x7f800000u | (mantissa << 13));
  return float_of(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

uint16_t float_to_bfloat16(float value) {
  uint32_t f = bits_of(value);
  if ((f & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((f >> 16) | 0x40u);  // quiet NaN
  uint32_t rounding = 0x7fffu + ((f >> 16) & 1u);
  return static_cast<uint16_t>((f + rounding) >> 16);
}

float bfloat16_to_float(uint16_t bits) { return float_of(static_cast<uint32_t>(bits) << 16); }

}  // namespace cudnnup
