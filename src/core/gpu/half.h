// IEEE fp16 and bfloat16 conversions, done in software so the CPU reference sees exactly the
// values the GPU gets. Rounding is to nearest, ties to even, like the hardware's conversions.
#pragma once

#include <cstdint>

namespace cudnnup {

uint16_t float_to_half(float value);
float half_to_float(uint16_t bits);
uint16_t float_to_bfloat16(float value);
float bfloat16_to_float(uint16_t bits);

}  // namespace cudnnup
