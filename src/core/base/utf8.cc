#include "base/utf8.h"

namespace cudnnup {

size_t utf8_sequence_length(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
  }
  unsigned char c1 = byte(i + 1);
  if (c == 0xe0 && c1 < 0xa0) return 0;  // overlong
  if (c == 0xed && c1 > 0x9f) return 0;  // surrogates
  if (c == 0xf0 && c1 < 0x90) return 0;  // overlong
  if (c == 0xf4 && c1 > 0x8f) return 0;  // above U+10FFFF
  return n;
}

uint32_t utf8_code_point(std::string_view s, size_t i, size_t length) {
  auto byte = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[k])); };
  if (length == 1) return byte(i);
  uint32_t cp = byte(i) & (0xff >> (length + 1));
  for (size_t k = 1; k < length; ++k) cp = (cp << 6) | (byte(i + k) & 0x3f);
  return cp;
}

bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {  // ASCII, nearly every byte doctor prints
      ++i;
      continue;
    }
    size_t n = utf8_sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string utf8_replaced(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_sequence_length(s, i);
    if (n == 0) {
      out += "\xef\xbf\xbd";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace cudnnup
