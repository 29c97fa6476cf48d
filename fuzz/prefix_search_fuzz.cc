// explain's search that tries a catalogue regex only where a match can start (prefix_search.h:
// literal prefixes, [Cc], runs of "anything but" characters) against the plain search it stands
// for: std::regex_iterator over the same window must give the same matches, groups included.
// The input is a pattern (its first line) and a window (the rest, up to 48 bytes). Patterns are
// kept small and without repeated groups, so std::regex's backtracking stays polynomial and quick.
#include <algorithm>
#include <string_view>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

#include "base/strings.h"
#include "explain/error_catalogue.h"
#include "explain/prefix_search.h"
#include "fuzz_input.h"

namespace {

using MatchList = std::vector<std::tuple<long, long, std::vector<std::string>>>;  // start, length, groups

std::vector<std::string> groups_of(const std::smatch& m) {
  std::vector<std::string> groups;
  for (size_t g = 0; g < m.size(); ++g) groups.push_back(m[g].matched ? m[g].str() : "<unmatched>");
  return groups;
}

std::string shown(const MatchList& list) {
  std::string out;
  for (const auto& [at, length, groups] : list) out += "(" + std::to_string(at) + "," + std::to_string(length) + ")";
  return out.empty() ? "none" : out;
}

// Small enough for std::regex: at most 64 bytes, 3 repetitions (* + {}: with a window of 48 bytes
// the backtracking stays within 48^4 steps), at most 6 optional parts (a?a?a?... doubles the work
// with each), and no repeated group or repeated quantifier (x?*: exponential).
bool tame(std::string_view pattern) {
  if (pattern.size() > 64) return false;
  size_t repetitions = 0, optionals = 0, digits = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    // libstdc++ reads \N and {N} into a long without a bound (signed overflow, which UBSan
    // reports in its regex_compiler.tcc): the catalogue's numbers are small.
    digits = c >= '0' && c <= '9' ? digits + 1 : 0;
    if (digits > 4) return false;
    if (c == '?' && i > 0 && pattern[i - 1] != '(' && ++optionals > 6) return false;  // a?a?a?...: 2^n
    if (c == '*' || c == '+' || c == '{') {
      ++repetitions;
      if (i > 0 && std::string_view("*+?}").find(pattern[i - 1]) != std::string_view::npos) return false;  // x?* nests
    }
    if (c == ')' && i + 1 < pattern.size() && (pattern[i + 1] == '*' || pattern[i + 1] == '+' || pattern[i + 1] == '{')) return false;
  }
  return repetitions <= 3;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = cudnnup::fuzz::bytes_of(data, size);
  size_t nl = text.find('\n');
  if (nl == std::string_view::npos) return 0;
  std::string_view source = text.substr(0, nl);
  std::string window(text.substr(nl + 1, 48));
  if (!tame(source)) return 0;
  auto pattern = cudnnup::translate_pattern(std::string(source));
  if (!pattern) return 0;
  const size_t limit = window.size() % 2 ? window.size() / 2 : std::string::npos;
  MatchList searched, iterated;
  try {
    const cudnnup::CatalogueRegex* re = pattern->regex.get();
    if (!re) return 0;  // does not compile
    cudnnup::for_each_match(*pattern, window, cudnnup::ascii_lower(window), limit, [&](const std::smatch& m) {
      searched.emplace_back(m[0].first - window.cbegin(), m.length(0), groups_of(m));
      return true;
    });
    for (cudnnup::CatalogueRegexIterator it(window.cbegin(), window.cend(), *re), end; it != end; ++it) {
      const std::smatch& m = *it;
      if (size_t(m[0].first - window.cbegin()) >= limit) break;
      iterated.emplace_back(m[0].first - window.cbegin(), m.length(0), groups_of(m));
      if (m.length(0) == 0) break;
    }
  } catch (const std::regex_error&) {
    return 0;  // too complex for std::regex either way
  }
  if (searched != iterated) {
    cudnnup::fuzz::violation("pattern '" + std::string(source) + "' (starts: " +
                             std::to_string(pattern->literal_prefixes.size()) + " texts, run breaks '" +
                             pattern->run_breaks + "'): the prefix search gives " + shown(searched) +
                             ", the regex's own search " + shown(iterated));
  }
  return 0;
}
