// Text from the machine (paths, file contents, log lines, names from archives) made safe to
// print on a terminal: control characters, invalid UTF-8 and the Unicode controls that reorder
// or hide text are shown as escapes (\n, \x1b, \u{202e}) instead of being sent to the terminal.
// Printable UTF-8 (accents, CJK, emoji) is kept as it is.
//
// TerminalFilter does the same to a stream of output, keeping only the colour codes (SGR
// sequences such as ESC[31m) that cudnnup's own renderers write: main() puts every text
// command's stdout and stderr through it, so no renderer can forget (app/cli/terminal_stream.h).
#pragma once

#include <string>
#include <string_view>

namespace cudnnup {

// Escapes everything but printable UTF-8; `keep_newlines` keeps \n and \t (for multi-line text).
std::string terminal_safe(std::string_view text, bool keep_newlines = false);
// `text` in the SGR colour `code` ("32" green, "1;31" bold red) when `color`, else as it is.
std::string paint(const std::string& text, const char* code, bool color);

// Incremental form for a stream: bytes in, safe bytes out. Keeps \n and \t, and SGR colour
// sequences (ESC [ digits/; m) with the parameters cudnnup uses; any other escape sequence is
// shown escaped. feed() holds back an incomplete UTF-8 or escape sequence until the next call;
// finish() flushes it (escaped).
class TerminalFilter {
 public:
  std::string feed(std::string_view bytes);
  std::string finish();

 private:
  std::string pending_;
};

}  // namespace cudnnup
