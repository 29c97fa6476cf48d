// Terminal styling: ANSI colours when the context allows (a terminal, no NO_COLOR, no --json),
// plain text otherwise, so piped output stays clean.
#pragma once

#include <string>

namespace cudnnup {

struct Style {
  bool color = false;
  std::string ok() const { return color ? "\033[32m✓\033[0m" : "✓"; }
  std::string warn() const { return color ? "\033[33m!\033[0m" : "!"; }
  std::string bad() const { return color ? "\033[31m✗\033[0m" : "✗"; }
  std::string info() const { return color ? "\033[36mi\033[0m" : "i"; }
  std::string bold(const std::string& s) const { return color ? "\033[1m" + s + "\033[0m" : s; }
  std::string dim(const std::string& s) const { return color ? "\033[2m" + s + "\033[0m" : s; }
};

}  // namespace cudnnup
