#include "base/numbers.h"

#include <charconv>

namespace cudnnup {

std::optional<long long> checked_integer(std::string_view text, long long min, long long max) {
  if (text.empty() || (text[0] == '-' && min >= 0)) return std::nullopt;
  long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) return std::nullopt;
  return value;
}

std::optional<uint64_t> checked_unsigned(std::string_view text, uint64_t max) {
  if (text.empty() || text[0] == '-') return std::nullopt;
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value > max) return std::nullopt;
  return value;
}

}  // namespace cudnnup
