#include "explain/prefix_search.h"

#include <optional>

#include "base/strings.h"

namespace cudnnup {
namespace {

// Where a part of a regex may start (MatchStarts without `known`); nullopt when unknown.
struct Starts {
  std::vector<std::string> texts;
  std::string run_breaks;
};
using Prefixes = std::optional<Starts>;

constexpr std::string_view kSpecial = "^$.*+?()[]{}|";

bool is_ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_ascii_alnum(char c) { return is_ascii_digit(c) || is_ascii_alpha(c); }

// Steps over a character class opened at `i` ('['); returns the index of its closing ']'.
size_t class_end(std::string_view re, size_t i) {
  ++i;
  if (i < re.size() && re[i] == '^') ++i;
  // No "literal ] first" as in POSIX: in ECMAScript (libstdc++'s too) [] is an empty class and
  // [^] any character (the prefix_search fuzz target found the difference).
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

// `asserted`: an assertion (^, \b) comes before re[from, to) in the match, so a match cannot
// simply start one character earlier (see run_start).
Prefixes alternatives_prefixes(std::string_view re, size_t from, size_t to, bool asserted);

void add_all(Starts& to, const Starts& more) {
  to.texts.insert(to.texts.end(), more.texts.begin(), more.texts.end());
  to.run_breaks += more.run_breaks;
}

// Whether re[from, to) has a '|' of its own (not inside a group or a class).
bool has_alternatives(std::string_view re, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i) {
    if (re[i] == '\\') {
      ++i;
    } else if (re[i] == '[') {
      i = class_end(re, i);
    } else if (re[i] == '(') {
      i = group_end(re, i);
      if (i == std::string_view::npos) return true;
    } else if (re[i] == '|') {
      return true;
    }
  }
  return false;
}

// A run at re[i, to): [^S]* or [^S]+ (lazy or not), perhaps after one optional character (c? or
// c??) and inside groups that open there, where S holds plain characters other than letters
// (\n \r \t and escaped punctuation too). Its starts: the optional character, and right after a
// character of S (MatchStarts).
Prefixes run_start(std::string_view re, size_t i, size_t to) {
  Starts starts;
  // The optional character.
  size_t j = i;
  if (j + 1 < to && re[j] == '\\' && !is_ascii_alnum(re[j + 1]) && j + 2 < to && re[j + 2] == '?') {
    starts.texts.emplace_back(1, re[j + 1]);
    j += 3;
  } else if (j < to && kSpecial.find(re[j]) == std::string_view::npos && re[j] != '\\' && j + 1 < to && re[j + 1] == '?') {
    starts.texts.emplace_back(1, re[j]);
    j += 2;
  }
  if (!starts.texts.empty() && j < to && re[j] == '?') ++j;  // c??
  // Groups the run opens: neither optional nor with alternatives, so the run is their first item.
  while (j < to && re[j] == '(' && !re.substr(j).starts_with("(?=") && !re.substr(j).starts_with("(?!")) {
    size_t close = group_end(re, j);
    if (close == std::string_view::npos || close >= to) return std::nullopt;
    if (close + 1 < to && std::string_view("?*{").find(re[close + 1]) != std::string_view::npos) return std::nullopt;
    j += re.substr(j).starts_with("(?:") ? 3 : 1;
    if (has_alternatives(re, j, close)) return std::nullopt;
  }
  // The negated class.
  if (j + 1 >= to || re[j] != '[' || re[j + 1] != '^') return std::nullopt;
  size_t close = class_end(re, j);
  if (close >= to) return std::nullopt;
  for (size_t k = j + 2; k < close; ++k) {
    char b = re[k];
    if (b == '\\') {
      char e = re[++k];
      if (e == 'n') {
        b = '\n';
      } else if (e == 'r') {
        b = '\r';
      } else if (e == 't') {
        b = '\t';
      } else if (is_ascii_alnum(e)) {
        return std::nullopt;  // \d, \s, \w, \x41...: not a plain character
      } else {
        b = e;
      }
    } else if (b == '-' && k != j + 2 && k + 1 != close) {
      return std::nullopt;  // a range
    } else if (is_ascii_alpha(b)) {
      return std::nullopt;  // case-insensitive: a letter stands for two
    }
    starts.run_breaks += b;
  }
  if (starts.run_breaks.empty() || close + 1 >= to || (re[close + 1] != '*' && re[close + 1] != '+')) return std::nullopt;
  return starts;
}

// What re[from, to), a sequence without a top-level '|', starts with.
Prefixes sequence_prefixes(std::string_view re, size_t from, size_t to, bool asserted) {
  std::string text;
  for (size_t i = from; i < to;) {
    const char c = re[i];
    if (text.empty() && (c == '^' || (c == '\\' && i + 1 < to && (re[i + 1] == 'b' || re[i + 1] == 'B')))) {
      i += c == '^' ? 1 : 2;  // an assertion takes no place in the match
      asserted = true;
      continue;
    }
    if (text.empty() && !asserted) {
      if (Prefixes run = run_start(re, i, to)) return run;
    }
    if (c == '(' && text.empty()) {
      if (re.substr(i).starts_with("(?=") || re.substr(i).starts_with("(?!")) break;
      size_t close = group_end(re, i);
      if (close == std::string_view::npos || close >= to) break;
      char quantifier = close + 1 < to ? re[close + 1] : '\0';
      if (quantifier == '{') break;
      Prefixes inside = alternatives_prefixes(re, i + (re.substr(i).starts_with("(?:") ? 3 : 1), close, asserted);
      if (!inside || (quantifier != '?' && quantifier != '*')) return inside;
      size_t rest = close + 2;
      if (rest < to && re[rest] == '?') ++rest;  // a lazy ?? or *?
      Prefixes after = sequence_prefixes(re, rest, to, asserted);  // the group may be absent
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
  return Starts{{text}, {}};
}

// What re[from, to) starts with: the union of its top-level alternatives'.
Prefixes alternatives_prefixes(std::string_view re, size_t from, size_t to, bool asserted) {
  Starts all;
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
      Prefixes one = sequence_prefixes(re, start, i, asserted);
      if (!one) return std::nullopt;
      add_all(all, *one);
      start = i + 1;
    }
  }
  if (start != to + 1) return std::nullopt;  // an escape or a class ran past the end
  return all;
}

// Whether re has a back reference (\1) or a lookahead ((?= (?!) outside a class. Either breaks
// "a match starting inside a run also starts one character earlier": a back reference to a
// group that holds the run must then match a longer text, and libstdc++ evaluates a lookahead
// at the window's first position without the text before it (^ holds there, \b sees no
// character), unlike at any later position. (Both found by a review's generated patterns.)
bool breaks_run_starts(std::string_view re) {
  for (size_t i = 0; i < re.size(); ++i) {
    if (re[i] == '\\' && i + 1 < re.size()) {
      if (is_ascii_digit(re[i + 1]) && re[i + 1] != '0') return true;
      ++i;
    } else if (re[i] == '[') {
      i = class_end(re, i);
    } else if (re.substr(i).starts_with("(?=") || re.substr(i).starts_with("(?!")) {
      return true;
    }
  }
  return false;
}

}  // namespace

MatchStarts match_starts(std::string_view re) {
  Prefixes found = alternatives_prefixes(re, 0, re.size(), false);
  if (!found) return {};
  if (!found->run_breaks.empty() && breaks_run_starts(re)) return {};
  MatchStarts out{std::move(found->texts), std::move(found->run_breaks)};
  for (auto& p : out.texts) p = ascii_lower(p);
  return out;
}

namespace prefix_search_detail {

bool match_at(const CatalogueRegex& re, const std::string& window, size_t at, std::smatch& m) {
  auto flags = std::regex_constants::match_continuous;
  if (at > 0) flags |= std::regex_constants::match_prev_avail;
  return std::regex_search(window.begin() + std::ptrdiff_t(at), window.end(), m, re, flags);
}

}  // namespace prefix_search_detail
}  // namespace cudnnup
