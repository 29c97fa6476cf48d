// Numbers from text that anyone may have written (files, archives, logs, arguments): one checked
// parser, std::from_chars with a range check, so no input can throw (std::stoi) or wrap (atoi).
// Only decimal digits, with a leading '-' where the range allows negatives; no spaces, no '+',
// no "0x"; the whole text must be the number.
#pragma once

#include <climits>
#include <cstdint>
#include <optional>
#include <string_view>

namespace cudnnup {

std::optional<long long> checked_integer(std::string_view text, long long min, long long max);
std::optional<uint64_t> checked_unsigned(std::string_view text, uint64_t max = UINT64_MAX);

inline std::optional<int> checked_int(std::string_view text, int min = 0, int max = INT_MAX) {
  auto v = checked_integer(text, min, max);
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

}  // namespace cudnnup
