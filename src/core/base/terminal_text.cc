#include "base/terminal_text.h"

#include "base/utf8.h"

namespace cudnnup {
namespace {

std::string hex_escape(unsigned char c) {
  static const char* digits = "0123456789abcdef";
  return std::string("\\x") + digits[c >> 4] + digits[c & 0xf];
}

std::string control_escape(unsigned char c) {
  switch (c) {
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: return hex_escape(c);
  }
}

// Code points that are not controls by byte value but reorder, hide or break lines: C1
// controls, zero-width and bidirectional formatting characters, line/paragraph separators, BOM.
bool invisible_control(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
         (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff;
}

std::string code_point_escape(uint32_t cp) {
  static const char* digits = "0123456789abcdef";
  std::string hex;
  do {
    hex.insert(hex.begin(), digits[cp & 0xf]);
    cp >>= 4;
  } while (cp);
  return "\\u{" + hex + "}";
}

// How many bytes at text[i] form one safe unit, and what to write for them. `complete` is false
// when the text ends inside what may still become a valid sequence (the stream filter waits).
struct Unit {
  size_t length = 1;
  std::string out;
  bool complete = true;
};

bool allowed_sgr_parameter(std::string_view p) {
  for (std::string_view ok : {"0", "1", "2", "22", "31", "32", "33", "34", "35", "36", "37", "39"}) {
    if (p == ok) return true;
  }
  return false;
}

// ESC [ params m, every parameter one cudnnup's renderers use. 0 when it is not one; -1 when the
// text ends before it could be decided.
long sgr_length(std::string_view text, size_t i) {
  size_t j = i + 1;
  if (j >= text.size()) return -1;
  if (text[j] != '[') return 0;
  size_t start = ++j;
  while (j < text.size() && j - start < 16 && ((text[j] >= '0' && text[j] <= '9') || text[j] == ';')) ++j;
  if (j >= text.size()) return j - start < 16 ? -1 : 0;
  if (text[j] != 'm') return 0;
  std::string_view params = text.substr(start, j - start);
  size_t from = 0;
  while (true) {
    size_t semi = params.find(';', from);
    std::string_view p = params.substr(from, semi == std::string_view::npos ? std::string_view::npos : semi - from);
    if (!allowed_sgr_parameter(p.empty() ? "0" : p)) return 0;
    if (semi == std::string_view::npos) break;
    from = semi + 1;
  }
  return static_cast<long>(j + 1 - i);
}

Unit next_unit(std::string_view text, size_t i, bool keep_newlines, bool keep_colours) {
  unsigned char c = static_cast<unsigned char>(text[i]);
  Unit u;
  if (c >= 0x20 && c < 0x7f) {
    u.out.assign(1, static_cast<char>(c));
    return u;
  }
  if (c == '\x1b' && keep_colours) {
    long n = sgr_length(text, i);
    if (n < 0) {
      u.complete = false;
      return u;
    }
    if (n > 0) {
      u.length = static_cast<size_t>(n);
      u.out = std::string(text.substr(i, u.length));
      return u;
    }
  }
  if (c < 0x80) {
    u.out = keep_newlines && (c == '\n' || c == '\t') ? std::string(1, static_cast<char>(c)) : control_escape(c);
    return u;
  }
  size_t n = utf8_sequence_length(text, i);
  if (n == 0) {
    // A sequence cut off by the end of this piece of a stream may still complete.
    size_t want = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    bool prefix_ok = want && i + want > text.size();
    for (size_t k = i + 1; prefix_ok && k < text.size(); ++k) prefix_ok = (static_cast<unsigned char>(text[k]) & 0xc0) == 0x80;
    if (prefix_ok) {
      u.complete = false;
      return u;
    }
    u.out = hex_escape(c);
    return u;
  }
  uint32_t cp = utf8_code_point(text, i, n);
  u.length = n;
  u.out = invisible_control(cp) ? code_point_escape(cp) : std::string(text.substr(i, n));
  return u;
}

}  // namespace

std::string terminal_safe(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    Unit u = next_unit(text, i, keep_newlines, false);
    if (!u.complete) {  // the text ends inside a sequence: each byte is shown
      out += hex_escape(static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    out += u.out;
    i += u.length;
  }
  return out;
}

std::string TerminalFilter::feed(std::string_view bytes) {
  pending_.append(bytes);
  std::string out;
  size_t i = 0;
  while (i < pending_.size()) {
    Unit u = next_unit(pending_, i, true, true);
    if (!u.complete) break;
    out += u.out;
    i += u.length;
  }
  pending_.erase(0, i);
  return out;
}

std::string TerminalFilter::finish() {
  std::string out = terminal_safe(pending_, true);
  pending_.clear();
  return out;
}

std::string paint(const std::string& text, const char* code, bool color) {
  return color ? std::string("\033[") + code + "m" + text + "\033[0m" : text;
}

}  // namespace cudnnup
