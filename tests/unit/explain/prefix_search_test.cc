// explain/prefix_search.h: the plain text a regex's matches start with, and the search that tries
// the regex only there, which must give exactly what std::sregex_iterator gives.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "base/strings.h"
#include "explain/error_catalogue.h"
#include "explain/prefix_search.h"

namespace cudnnup {
namespace {

TEST(LiteralPrefix, PlainTextUpToTheFirstRegexSyntax) {
  EXPECT_EQ(literal_prefix("Could not load library (cudnn[a-z_]*)"), "could not load library ");
  EXPECT_EQ(literal_prefix("Unable to load cuDNN\\. Is it installed\\?"), "unable to load cudnn. is it installed?");
  EXPECT_EQ(literal_prefix("cuDNN error: (CUDNN_STATUS_\\w+)"), "cudnn error: ");
  EXPECT_EQ(literal_prefix("Library \\[x\\] \\d+"), "library [x] ");
  EXPECT_EQ(literal_prefix("CUDA out of memory"), "cuda out of memory");
}

TEST(LiteralPrefix, AQuantifiedCharacterIsNotPartOfIt) {
  EXPECT_EQ(literal_prefix("Could not load library\\.? *Error"), "could not load library");
  EXPECT_EQ(literal_prefix("ab*c"), "a");
  EXPECT_EQ(literal_prefix("ab+c"), "a");
  EXPECT_EQ(literal_prefix("ab{2}c"), "a");
  EXPECT_EQ(literal_prefix("a\\.?b"), "a");
}

TEST(LiteralPrefix, NoneWhereTheStartIsNotPlainText) {
  EXPECT_EQ(literal_prefix("[Cc]ould not create"), "");
  EXPECT_EQ(literal_prefix("(?:GET|FIND) was unable"), "");
  EXPECT_EQ(literal_prefix("(libcudnn): cannot"), "");
  EXPECT_EQ(literal_prefix("\\bCUDNN_STATUS"), "");
  EXPECT_EQ(literal_prefix("\\d+ bytes"), "");
  EXPECT_EQ(literal_prefix("^\\d+ Create"), "");
  EXPECT_EQ(literal_prefix(".*x"), "");
  EXPECT_EQ(literal_prefix("out of memory|OOM when allocating"), "") << "a top-level alternative";
  EXPECT_EQ(literal_prefix("a[|]b|c"), "") << "the second | is outside the class";
  EXPECT_EQ(literal_prefix("load (?:a|b) now"), "load ") << "an alternative inside a group is after the prefix";
  EXPECT_EQ(literal_prefix("x[|]y"), "x");
}

using MatchList = std::vector<std::tuple<long, long, std::vector<std::string>>>;  // start, length, groups

MatchList with_iterator(const std::regex& re, const std::string& window, size_t limit) {
  MatchList out;
  for (std::sregex_iterator it(window.begin(), window.end(), re), end; it != end; ++it) {
    const std::smatch& m = *it;
    if (size_t(m[0].first - window.begin()) >= limit) break;
    std::vector<std::string> groups;
    for (size_t g = 0; g < m.size(); ++g) groups.push_back(m[g].matched ? m[g].str() : "<unmatched>");
    out.emplace_back(m[0].first - window.begin(), m.length(0), groups);
    if (m.length(0) == 0) break;
  }
  return out;
}

MatchList with_prefix(const CompiledPattern& p, const std::string& window, size_t limit) {
  MatchList out;
  for_each_match(p, window, ascii_lower(window), limit, [&](const std::smatch& m) {
    std::vector<std::string> groups;
    for (size_t g = 0; g < m.size(); ++g) groups.push_back(m[g].matched ? m[g].str() : "<unmatched>");
    out.emplace_back(m[0].first - window.begin(), m.length(0), groups);
    return true;
  });
  return out;
}

TEST(PrefixSearch, GivesTheMatchesTheRegexSearchGives) {
  const std::vector<std::string> patterns = {
      "Could not load library (?<lib>cudnn[a-z_]*64_\\d+\\.dll)\\.? *Error code (?<code>\\d+)",
      "cuDNN error: (?<status>CUDNN_STATUS_\\w+)",
      "load(?<what> library| dll)?\\b",
      "ab*c",
      "[Cc]ould not",  // no prefix: the regex's own search
  };
  const std::vector<std::string> windows = {
      "Could not load library cudnn_ops64_9.dll. Error code 126 and COULD NOT LOAD LIBRARY cudnn_cnn64_9.dll Error code 193",
      "could not load library cudnn_ops64_9.dll. no code here; Could not load library cudnn_adv64_9.dll. Error code 5",
      "cuDNN error: CUDNN_STATUS_BAD_PARAM cudnn ERROR: CUDNN_STATUS_NOT_SUPPORTED cuDNN error: none",
      "loader loads; load library x; reload dll; loaded",
      "ac abc abbbc xab c Could not could not",
      "",
      "nothing to see",
  };
  for (const auto& source : patterns) {
    auto p = translate_pattern(source);
    ASSERT_TRUE(p) << source;
    const std::regex* re = p->regex.get();
    ASSERT_NE(re, nullptr) << source;
    for (const auto& window : windows) {
      for (size_t limit : {std::string::npos, size_t(40), size_t(0)}) {
        EXPECT_EQ(with_prefix(*p, window, limit), with_iterator(*re, window, limit))
            << source << " in \"" << window << "\", limit " << limit;
      }
    }
  }
}

TEST(PrefixSearch, StopsWhenAskedAndSkipsABadRegex) {
  auto p = translate_pattern("abc");
  ASSERT_TRUE(p);
  int calls = 0;
  for_each_match(*p, "abc abc abc", "abc abc abc", std::string::npos, [&](const std::smatch&) { return ++calls < 2; });
  EXPECT_EQ(calls, 2);

  auto bad = translate_pattern("abc(");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->literal_prefix, "abc");
  calls = 0;
  for_each_match(*bad, "abc", "abc", std::string::npos, [&](const std::smatch&) { return ++calls > 0; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace cudnnup
