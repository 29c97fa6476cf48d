// Running a catalogue regex only where a match can start. libstdc++'s std::regex_search tries
// the pattern at every position of the text, at several hundred instructions a position, and
// most of explain's time on a log full of messages went there (a window of a few thousand bytes
// per candidate line, per entry). Most patterns start with plain text ("Could not load library
// "); every match starts with that text, so the search tries only the places where it occurs
// (found with std::string::find in the lower-cased window) and gives the same matches.
#pragma once

#include <cstddef>
#include <regex>
#include <string>
#include <string_view>

#include "explain/error_catalogue.h"

namespace cudnnup {

// The plain text every match of an ECMAScript regex (std::regex's syntax, as translate_pattern
// writes it) starts with, lower-cased for a case-insensitive search; "" when it cannot be told
// simply (the pattern starts with a group, a class, an anchor or an escape such as \d, or has a
// top-level alternative). A character followed by a quantifier is not part of it.
std::string literal_prefix(std::string_view ecmascript);

// Calls on_match(m) for each successive match of `pattern` in `window` (as std::sregex_iterator
// would give them) that starts before `limit`, until on_match returns false. `lower_window` is
// ascii_lower(window). Positions in m are from window.begin(): m[0].first - window.begin(). A
// pattern that does not compile matches nothing; it is compiled only when its prefix occurs.
template <typename OnMatch>
void for_each_match(const CompiledPattern& pattern, const std::string& window, const std::string& lower_window,
                    size_t limit, OnMatch&& on_match);

namespace prefix_search_detail {
// The match starting exactly at `at`, with what precedes `at` visible to \b and ^.
bool match_at(const std::regex& re, const std::string& window, size_t at, std::smatch& m);
}  // namespace prefix_search_detail

template <typename OnMatch>
void for_each_match(const CompiledPattern& pattern, const std::string& window, const std::string& lower_window,
                    size_t limit, OnMatch&& on_match) {
  const std::string& prefix = pattern.literal_prefix;
  if (prefix.empty()) {  // no prefix known: the regex's own search, every position
    const std::regex* re = pattern.regex.get();
    if (!re) return;
    for (std::sregex_iterator it(window.begin(), window.end(), *re), end; it != end; ++it) {
      const std::smatch& m = *it;
      if (size_t(m[0].first - window.begin()) >= limit || !on_match(m) || m.length(0) == 0) break;
    }
    return;
  }
  const std::regex* re = nullptr;
  std::smatch m;
  for (size_t at = lower_window.find(prefix); at < limit && at != std::string::npos; at = lower_window.find(prefix, at)) {
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
