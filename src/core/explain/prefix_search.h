// Running a catalogue regex only where a match can start. libstdc++'s std::regex_search tries
// the pattern at every position of the text, at several hundred instructions a position, and
// most of explain's time on a log full of messages went there (a window of a few thousand bytes
// per candidate line, per entry). Most patterns start with plain text ("Could not load library
// ", or one of a few: "(?:failed to|cannot) load"); every match starts with one of them, so the
// search tries only the places where one occurs (found with std::string::find in the
// lower-cased window) and gives the same matches.
#pragma once

#include <algorithm>
#include <cstddef>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "explain/error_catalogue.h"

namespace cudnnup {

// Where a match of an ECMAScript regex (std::regex's syntax, as translate_pattern writes it) can
// start. `texts`: plain texts, lower-cased for a case-insensitive search, one of which every match
// starts with. Read from the start: plain characters (a quantified one ends the text), \b and ^
// (they take no place), a group's alternatives, what follows an optional group as further
// alternatives, and a class of one letter in its two cases ([Cc]: the search is
// case-insensitive); anything else (another class, \d, a lookahead, .) ends the text, and an
// alternative that would start with it makes the answer unknown.
// `run_breaks`: an alternative may instead start with a run of "anything but these characters"
// ([^"\n]*?, perhaps after one optional character: "?[^"\n]*?). A match starting inside such a
// run would also match one character earlier (the run takes that character too), so the leftmost
// match starts where the search starts, right after one of the run's excluded characters, or at
// the optional character (kept in `texts`); not in a pattern with a back reference or a
// lookahead (prefix_search.cc says why). The Win32 pattern "(?:"?(?<path>[^"\n]*?...\.dll)..)?
// is not a valid" is one: tried at every position, it cost about a tenth of explain's
// instructions on a log of real messages (docs/benchmarks.md).
struct MatchStarts {
  std::vector<std::string> texts;
  std::string run_breaks;
  bool known() const { return !texts.empty() || !run_breaks.empty(); }  // false: anywhere
};
MatchStarts match_starts(std::string_view ecmascript);

// Calls on_match(m) for each successive match of `pattern` in `window` (as std::sregex_iterator
// would give them) that starts before `limit`, until on_match returns false. `lower_window` is
// ascii_lower(window). Positions in m are from window.begin(): m[0].first - window.begin(). A
// pattern that does not compile matches nothing; it is compiled only when a prefix occurs.
template <typename OnMatch>
void for_each_match(const CompiledPattern& pattern, const std::string& window, const std::string& lower_window,
                    size_t limit, OnMatch&& on_match);

namespace prefix_search_detail {
// The match starting exactly at `at`, with what precedes `at` visible to \b and ^.
bool match_at(const CatalogueRegex& re, const std::string& window, size_t at, std::smatch& m);
}  // namespace prefix_search_detail

template <typename OnMatch>
void for_each_match(const CompiledPattern& pattern, const std::string& window, const std::string& lower_window,
                    size_t limit, OnMatch&& on_match) {
  const std::vector<std::string>& prefixes = pattern.literal_prefixes;
  const std::string& run_breaks = pattern.run_breaks;
  // No start known: every position before `limit` is tried, as std::regex_search would try them,
  // but not the rest of the window (regex_search goes on to its end).
  const bool anywhere = prefixes.empty() && run_breaks.empty();
  // The first place at or after `from` where a match may start (npos: none).
  auto next_place = [&](size_t from) {
    if (anywhere) return from <= window.size() ? from : std::string::npos;
    size_t first = std::string::npos;
    for (const std::string& p : prefixes) first = std::min(first, lower_window.find(p, from));
    if (!run_breaks.empty() && from > 0) {
      size_t b = window.find_first_of(run_breaks, from - 1);
      if (b != std::string::npos) first = std::min(first, b + 1);
    }
    return first;
  };
  const CatalogueRegex* re = nullptr;
  std::smatch m;
  // Where the search starts (here, and after each match) a run may start.
  for (size_t at = run_breaks.empty() ? next_place(0) : 0; at < limit && at != std::string::npos;) {
    if (!re && !(re = pattern.regex.get())) return;
    if (!prefix_search_detail::match_at(*re, window, at, m)) {
      at = next_place(at + 1);
      continue;
    }
    if (!on_match(m) || m.length(0) == 0) break;
    at = size_t(m[0].second - window.begin());  // the next search starts after this match
    if (run_breaks.empty()) at = next_place(at);
  }
}

}  // namespace cudnnup
