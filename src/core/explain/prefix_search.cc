#include "explain/prefix_search.h"

#include <optional>

#include "base/strings.h"

namespace cudnnup {
namespace {

// The texts a part of a regex starts with; nullopt when unknown.
using Prefixes = std::optional<std::vector<std::string>>;

bool is_ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_ascii_alnum(char c) { return is_ascii_digit(c) || is_ascii_alpha(c); }

// Steps over a character class opened at `i` ('['); returns the index of its closing ']'.
size_t class_end(std::string_view re, size_t i) {
  ++i;
  if (i < re.size() && re[i] == '^') ++i;
  if (i < re.size() && re[i] == ']') ++i;  // a literal ] first in the class
  while (i < re.size() && re[i] != ']') i += re[i] == '\\' ? 2 : 1;
  return i;
}

// The index of the ')' closing the group opened at `open`, or npos.
size_t group_end(std::string_view re, size_t open) {
  int depth = 0;
  for (size_t i = open; i < re.size(); ++i) {
    if (re[i] == '\\') {
      ++i;
    } else if (re[i] == '[') {
      i = class_end(re, i);
    } else if (re[i] == '(') {
      ++depth;
    } else if (re[i] == ')' && --depth == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

Prefixes alternatives_prefixes(std::string_view re, size_t from, size_t to);

void add_all(std::vector<std::string>& to, const std::vector<std::string>& more) { to.insert(to.end(), more.begin(), more.end()); }

// What re[from, to), a sequence without a top-level '|', starts with.
Prefixes sequence_prefixes(std::string_view re, size_t from, size_t to) {
  static constexpr std::string_view kSpecial = "^$.*+?()[]{}|";
  std::string text;
  for (size_t i = from; i < to;) {
    const char c = re[i];
    if (text.empty() && (c == '^' || (c == '\\' && i + 1 < to && (re[i + 1] == 'b' || re[i + 1] == 'B')))) {
      i += c == '^' ? 1 : 2;  // an assertion takes no place in the match
      continue;
    }
    if (c == '(' && text.empty()) {
      if (re.substr(i).starts_with("(?=") || re.substr(i).starts_with("(?!")) break;
      size_t close = group_end(re, i);
      if (close == std::string_view::npos || close >= to) break;
      char quantifier = close + 1 < to ? re[close + 1] : '\0';
      if (quantifier == '{') break;
      Prefixes inside = alternatives_prefixes(re, i + (re.substr(i).starts_with("(?:") ? 3 : 1), close);
      if (!inside || (quantifier != '?' && quantifier != '*')) return inside;
      size_t rest = close + 2;
      if (rest < to && re[rest] == '?') ++rest;  // a lazy ?? or *?
      Prefixes after = sequence_prefixes(re, rest, to);  // the group may be absent
      if (!after) return std::nullopt;
      add_all(*inside, *after);
      return inside;
    }
    char literal = c;
    size_t next = i + 1;
    if (c == '\\') {
      // \. \( \' ... are the character itself; \d \b \x41 \1 ... are not plain text.
      if (i + 1 >= to || is_ascii_alnum(re[i + 1])) break;
      literal = re[i + 1];
      next = i + 2;
    } else if (c == '[' && i + 3 < to && re[i + 3] == ']' && is_ascii_alpha(re[i + 1]) &&
               ascii_lower(re.substr(i + 1, 1)) == ascii_lower(re.substr(i + 2, 1))) {
      // [Cc]: the letter in either case, which the case-insensitive search allows anyway
      literal = re[i + 1];
      next = i + 4;
    } else if (kSpecial.find(c) != std::string_view::npos) {
      break;
    }
    char quantifier = next < to ? re[next] : '\0';
    if (quantifier == '*' || quantifier == '?' || quantifier == '{') break;  // "s?": optional
    text += literal;
    if (quantifier == '+') break;  // at least one
    i = next;
  }
  if (text.empty()) return std::nullopt;
  return std::vector<std::string>{text};
}

// What re[from, to) starts with: the union of its top-level alternatives'.
Prefixes alternatives_prefixes(std::string_view re, size_t from, size_t to) {
  std::vector<std::string> all;
  size_t start = from;
  for (size_t i = from; i <= to; ++i) {
    if (i < to && re[i] == '\\') {
      ++i;
    } else if (i < to && re[i] == '[') {
      i = class_end(re, i);
      if (i >= to) return std::nullopt;
    } else if (i < to && re[i] == '(') {
      i = group_end(re, i);
      if (i == std::string_view::npos || i > to) return std::nullopt;
    } else if (i == to || re[i] == '|') {
      Prefixes one = sequence_prefixes(re, start, i);
      if (!one) return std::nullopt;
      add_all(all, *one);
      start = i + 1;
    }
  }
  if (start != to + 1) return std::nullopt;  // an escape or a class ran past the end
  return all;
}

}  // namespace

std::vector<std::string> literal_prefixes(std::string_view re) {
  Prefixes found = alternatives_prefixes(re, 0, re.size());
  if (!found) return {};
  for (auto& p : *found) p = ascii_lower(p);
  return *found;
}

namespace prefix_search_detail {

bool match_at(const CatalogueRegex& re, const std::string& window, size_t at, std::smatch& m) {
  auto flags = std::regex_constants::match_continuous;
  if (at > 0) flags |= std::regex_constants::match_prev_avail;
  return std::regex_search(window.begin() + std::ptrdiff_t(at), window.end(), m, re, flags);
}

}  // namespace prefix_search_detail
}  // namespace cudnnup
