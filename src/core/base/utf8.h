// UTF-8 checks shared by the JSON writer (base/json_text.h) and the terminal filter
// (base/terminal_text.h). RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cudnnup {

// Length of the valid UTF-8 sequence that starts at s[i] (1 for ASCII), 0 when none does.
size_t utf8_sequence_length(std::string_view s, size_t i);
// The code point of the valid sequence of `length` bytes at s[i].
uint32_t utf8_code_point(std::string_view s, size_t i, size_t length);
bool valid_utf8(std::string_view s);
// Every byte that does not start a valid sequence replaced by U+FFFD.
std::string utf8_replaced(std::string_view s);

}  // namespace cudnnup
