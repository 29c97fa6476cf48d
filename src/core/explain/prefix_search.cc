#include "explain/prefix_search.h"

#include "base/strings.h"

namespace cudnnup {
namespace {

bool is_ascii_alnum(char c) { return is_ascii_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// A '|' outside every group and class: the match may start with either side.
bool has_top_level_alternative(std::string_view re) {
  int depth = 0;
  bool in_class = false;
  for (size_t i = 0; i < re.size(); ++i) {
    char c = re[i];
    if (c == '\\') {
      ++i;
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
      if (i + 1 < re.size() && re[i + 1] == '^') ++i;
      if (i + 1 < re.size() && re[i + 1] == ']') ++i;  // a literal ] first in the class
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      --depth;
    } else if (c == '|' && depth == 0) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::string literal_prefix(std::string_view re) {
  if (has_top_level_alternative(re)) return "";
  static constexpr std::string_view kSpecial = "^$.*+?()[]{}|";
  static constexpr std::string_view kQuantifier = "*+?{";
  std::string prefix;
  for (size_t i = 0; i < re.size(); ++i) {
    char c = re[i];
    if (c == '\\') {
      // \. \( \' ... are the character itself; \d \b \x41 \1 ... are not plain text.
      if (i + 1 >= re.size() || is_ascii_alnum(re[i + 1])) break;
      c = re[++i];
    } else if (kSpecial.find(c) != std::string_view::npos) {
      break;
    }
    if (i + 1 < re.size() && kQuantifier.find(re[i + 1]) != std::string_view::npos) break;  // "s?": optional
    prefix += c;
  }
  return ascii_lower(prefix);
}

namespace prefix_search_detail {

bool match_at(const std::regex& re, const std::string& window, size_t at, std::smatch& m) {
  auto flags = std::regex_constants::match_continuous;
  if (at > 0) flags |= std::regex_constants::match_prev_avail;
  return std::regex_search(window.begin() + std::ptrdiff_t(at), window.end(), m, re, flags);
}

}  // namespace prefix_search_detail
}  // namespace cudnnup
