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

// The plain texts one of which every match of an ECMAScript regex (std::regex's syntax, as
// translate_pattern writes it) starts with, lower-cased for a case-insensitive search; none when
// that cannot be told simply. Read from the start: plain characters (a quantified one ends the
// text), \b and ^ (they take no place), a group's alternatives, and what follows an optional
// group as further alternatives, and a class of one letter in its two cases ([Cc]: the search is
// case-insensitive); anything else (another class, \d, a lookahead, .) ends the text, and an
// alternative that would start with it makes the answer none.
std::vector<std::string> literal_prefixes(std::string_view ecmascript);

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
  if (prefixes.empty()) {
    // No prefix known: every position before `limit` is tried, as std::regex_search would try
    // them, but not the rest of the window (regex_search goes on to its end: for the Win32
    // "(?:...\.dll...)?is not a valid" pattern that was most of explain's time on a dense log).
    const CatalogueRegex* re = pattern.regex.get();
    if (!re) return;
    std::smatch m;
    for (size_t at = 0; at < limit && at <= window.size();) {
      if (!prefix_search_detail::match_at(*re, window, at, m)) {
        ++at;
        continue;
      }
      if (!on_match(m) || m.length(0) == 0) break;
      at = size_t(m[0].second - window.begin());
    }
    return;
  }
  auto next_place = [&](size_t from) {
    size_t first = std::string::npos;
    for (const std::string& p : prefixes) first = std::min(first, lower_window.find(p, from));
    return first;
  };
  const CatalogueRegex* re = nullptr;
  std::smatch m;
  for (size_t at = next_place(0); at < limit && at != std::string::npos; at = next_place(at)) {
    if (!re && !(re = pattern.regex.get())) return;
    if (!prefix_search_detail::match_at(*re, window, at, m)) {
      ++at;
      continue;
    }
    if (!on_match(m)) break;
    at = size_t(m[0].second - window.begin());  // the next match starts after this one (it is not empty)
  }
}

}  // namespace cudnnup
