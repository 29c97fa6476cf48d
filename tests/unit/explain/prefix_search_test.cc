// explain/prefix_search.h: the plain texts a regex's matches start with, and the search that tries
// the regex only there, which must give exactly what std::sregex_iterator gives with a plain
// std::regex (so the catalogue's regex type, catalogue_regex.h, is checked too).
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "base/strings.h"
#include "explain/error_catalogue.h"
#include "explain/prefix_search.h"

namespace cudnnup {
namespace {

using Texts = std::vector<std::string>;

// The literal prefixes of a pattern when they are the whole answer (no run starts); none otherwise.
Texts literal_prefixes(std::string_view re) {
  MatchStarts starts = match_starts(re);
  return starts.run_breaks.empty() ? starts.texts : Texts{};
}

TEST(LiteralPrefixes, PlainTextUpToTheFirstRegexSyntax) {
  EXPECT_EQ(literal_prefixes("Could not load library (cudnn[a-z_]*)"), Texts{"could not load library "});
  EXPECT_EQ(literal_prefixes("Unable to load cuDNN\\. Is it installed\\?"), Texts{"unable to load cudnn. is it installed?"});
  EXPECT_EQ(literal_prefixes("cuDNN error: (CUDNN_STATUS_\\w+)"), Texts{"cudnn error: "});
  EXPECT_EQ(literal_prefixes("Library \\[x\\] \\d+"), Texts{"library [x] "});
  EXPECT_EQ(literal_prefixes("CUDA out of memory"), Texts{"cuda out of memory"});
}

TEST(LiteralPrefixes, AQuantifiedCharacterEndsTheText) {
  EXPECT_EQ(literal_prefixes("Could not load library\\.? *Error"), Texts{"could not load library"});
  EXPECT_EQ(literal_prefixes("ab*c"), Texts{"a"});
  EXPECT_EQ(literal_prefixes("ab+c"), Texts{"ab"}) << "at least one b";
  EXPECT_EQ(literal_prefixes("ab{2}c"), Texts{"a"});
  EXPECT_EQ(literal_prefixes("a\\.?b"), Texts{"a"});
}

TEST(LiteralPrefixes, GroupsAlternativesAndAssertions) {
  EXPECT_EQ(literal_prefixes("(libcudnn[a-z_]*\\.so): cannot"), Texts{"libcudnn"});
  EXPECT_EQ(literal_prefixes("\\b(CUDNN_STATUS_(?!SUCCESS\\b)[A-Z_]+)\\b"), Texts{"cudnn_status_"});
  EXPECT_EQ(literal_prefixes("(?:failed to|Could not) load"), (Texts{"failed to", "could not"}));
  EXPECT_EQ(literal_prefixes("out of memory|OOM when|x(y)"), (Texts{"out of memory", "oom when", "x"}));
  EXPECT_EQ(literal_prefixes("(?:(Could not load )lib\\S*? )?(lib(?:cudart|cublas))"), (Texts{"could not load ", "lib"}))
      << "an optional group, then what follows it";
  EXPECT_EQ(literal_prefixes("(?:ab)*?cd"), (Texts{"ab", "cd"}));
  EXPECT_EQ(literal_prefixes("(ab)+cd"), Texts{"ab"});
  EXPECT_EQ(literal_prefixes("^abc"), Texts{"abc"});
  EXPECT_EQ(literal_prefixes("load (?:a|b) now"), Texts{"load "}) << "a group after the text ends it";
  EXPECT_EQ(literal_prefixes("x[|]y"), Texts{"x"});
}

TEST(LiteralPrefixes, AClassOfOneLetterInBothCasesIsThatLetter) {
  // The search is case-insensitive, so [Cc] and c match the same characters.
  EXPECT_EQ(literal_prefixes("[Cc]ould not create"), Texts{"could not create"});
  EXPECT_EQ(literal_prefixes("[pP]ossibly x[Ii]n"), Texts{"possibly xin"});
  EXPECT_EQ(literal_prefixes("[Cc]?ould"), Texts{}) << "an optional letter";
  EXPECT_EQ(literal_prefixes("a[Cc]+d"), Texts{"ac"}) << "at least one c";
  EXPECT_EQ(literal_prefixes("[Cd]ould"), Texts{}) << "two letters";
  EXPECT_EQ(literal_prefixes("[^Cc]ould"), Texts{});
  EXPECT_EQ(literal_prefixes("[1!]x"), Texts{});
}

TEST(LiteralPrefixes, NoneWhereAMatchMayStartWithAnything) {
  EXPECT_EQ(literal_prefixes("(?:GET|[F]IND) was unable"), Texts{}) << "one alternative unknown";
  EXPECT_EQ(literal_prefixes("(?:\"?([^\"]*?\\.dll))?is not a valid"), Texts{}) << "the optional group starts with \"?";
  EXPECT_EQ(literal_prefixes("\\d+ bytes"), Texts{});
  EXPECT_EQ(literal_prefixes("^\\d+ Create"), Texts{});
  EXPECT_EQ(literal_prefixes(".*x"), Texts{});
  EXPECT_EQ(literal_prefixes("a|\\w"), Texts{});
  EXPECT_EQ(literal_prefixes("a[|]b|[c]"), Texts{}) << "the second | is outside the class";
  EXPECT_EQ(literal_prefixes("(?=ab)ab"), Texts{});
  EXPECT_EQ(literal_prefixes("(ab){2}"), Texts{});
  EXPECT_EQ(literal_prefixes("(?:)ab"), Texts{});
  EXPECT_EQ(literal_prefixes(""), Texts{});
  EXPECT_EQ(literal_prefixes("(ab"), Texts{}) << "unbalanced";
  EXPECT_EQ(literal_prefixes("a|b[c"), Texts{}) << "an open class";
  EXPECT_EQ(literal_prefixes("a|b\\"), Texts{}) << "a trailing backslash";
}

TEST(MatchStarts, ARunOfAnythingButSomeCharactersStartsAfterOneOfThem) {
  MatchStarts win32 = match_starts("(?:\"?([^\"\\n]*?([\\w.-]+\\.dll))\"?[^\\n]{0,40})?is not a valid");
  EXPECT_TRUE(win32.known());
  EXPECT_EQ(win32.texts, (Texts{"\"", "is not a valid"})) << "the optional quote, and the message when the group is absent";
  EXPECT_EQ(win32.run_breaks, "\"\n");

  MatchStarts plain = match_starts("[^\"]*x");
  EXPECT_TRUE(plain.known());
  EXPECT_EQ(plain.texts, Texts{});
  EXPECT_EQ(plain.run_breaks, "\"");
  EXPECT_EQ(match_starts("([^\"]*x)?y").texts, Texts{"y"});
  EXPECT_EQ(match_starts("([^\"]*x)?y").run_breaks, "\"");
  EXPECT_EQ(match_starts("[^-\\]\t]+x").run_breaks, "-]\t") << "a first '-' and escapes are characters";
  EXPECT_EQ(match_starts("[^\"-]*?x").run_breaks, "\"-") << "a last '-' too";
  EXPECT_EQ(literal_prefixes("[^\"]*x"), Texts{}) << "literal prefixes alone do not say it";
  MatchStarts either = match_starts("([^\"]*x|ab)");
  EXPECT_EQ(either.texts, Texts{"ab"}) << "each alternative starts the match";
  EXPECT_EQ(either.run_breaks, "\"");
}

TEST(MatchStarts, UnknownWhereARunCouldStartAnywhere) {
  EXPECT_FALSE(match_starts("\\b[^\"]*x").known()) << "after \\b, one character earlier may not match";
  EXPECT_FALSE(match_starts("^[^\"]*x").known());
  EXPECT_FALSE(match_starts("\"?([^\"]*x|ab)").known()) << "after the optional quote, a group with a second alternative";
  EXPECT_FALSE(match_starts("[^a\"]*x").known()) << "a letter is two under icase";
  EXPECT_FALSE(match_starts("[^\\d]*x").known());
  EXPECT_FALSE(match_starts("[^!-/]*x").known()) << "a range";
  EXPECT_FALSE(match_starts("[^\"]x").known()) << "one character is no run";
  EXPECT_FALSE(match_starts("[^\"]{2,}x").known());
  EXPECT_FALSE(match_starts("[\"]*x").known()) << "not negated";
  EXPECT_FALSE(match_starts("(?:[^\"]*x)?(?=y)").known()) << "what follows the optional group is unknown";
  EXPECT_FALSE(match_starts("([^]]*x|ab)").known()) << "[^] is any character in ECMAScript, then ]* follows";
  EXPECT_FALSE(match_starts("([^,]*)-\\1").known()) << "a back reference to the run's group";
  EXPECT_FALSE(match_starts("[^,]*?(?=\\Bx)").known()) << "a lookahead: libstdc++ sees no text before position 0 in it";
  EXPECT_FALSE(match_starts("[^,]+(?!^)").known());
  EXPECT_TRUE(match_starts("[^,]+[\\1]").known()) << "\\1 in a class is no back reference";
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
      "(?:ab|abc)+x|c",
      "(?:(?<loader>Could not )load )?(?<lib>lib(?:cudnn|cublas))",
      "\\b(?<status>CUDNN_STATUS_(?!SUCCESS\\b)[A-Z_]+)\\b",
      "[Cc]ould not",
      // no prefix: every position is tried
      "(?:\"?(?<path>[^\"\\n]*?(?<lib>[\\w.-]+\\.dll))\"?[^\\n]{0,40})?is not a valid Win32 application",
      "\\d+ (?:x|y)",
      "(?:a|\\d)*",  // may match nothing
      // runs: a match starts where the search does, after a quote or newline, or at a text
      "[^\"\\n]+x",
      "(?:'?([^'\\n]*?\\.dll))?not valid",
      "\"?[^\"]*?y",
      "([^ ]*)?",  // may match nothing
      "([^,]*)-\\1",  // a back reference to the run (a review's case)
      "[^,]*?(?=\\Bx)",  // a lookahead at position 0 (idem)
      "[^,]+(?!^)",
      "(?<w>[A-Z_]+\\d)[^\\w\\s]\\s*(?<rest>\\S+)",  // classes under icase
      "CUDNN_STATUS_[A-Z_]+\\b",
  };
  const std::vector<std::string> windows = {
      "Could not load library cudnn_ops64_9.dll. Error code 126 and COULD NOT LOAD LIBRARY cudnn_cnn64_9.dll Error code 193",
      "could not load library cudnn_ops64_9.dll. no code here; Could not load library cudnn_adv64_9.dll. Error code 5",
      "cuDNN error: CUDNN_STATUS_BAD_PARAM cudnn ERROR: CUDNN_STATUS_NOT_SUPPORTED cuDNN error: none",
      "loader loads; load library x; reload dll; loaded",
      "ac abc abbbc xab c Could not could not abx ababcx",
      "could not load libcudnn libcublas LIBCUDNN could not load lib could not load libcublas_x CUDNN_STATUS_SUCCESS",
      "XCUDNN_STATUS_BAD CUDNN_STATUS_BAD_PARAM, CUDNN_STATUS_SUCCESS_X",
      "abc_D9; Rest of_it x9:\tY mixed_Case7! END cudnn_status_not_supported",
      "",
      "nothing to see",
      "OSError: [WinError 193] %1 is not a valid Win32 application; \"C:\\x\\zlibwapi.dll\" is not a valid Win32 application",
      "at C:\\a b\\cudnn64_8.dll: is not a valid win32 application, 12 x 3 y",
      "1a2 aa 33 x",
      "a \"b.dll\" not valid 'c d.dll' not valid\n'e\\f.dll not valid x\"y \"zx",
      "x.dll not valid\nnot valid 'q.dll' y \" \"y",
      "ab-b aax",
  };
  for (const auto& source : patterns) {
    auto p = translate_pattern(source);
    ASSERT_TRUE(p) << source;
    ASSERT_NE(p->regex.get(), nullptr) << source;
    const std::regex plain(p->regex.source(), std::regex::ECMAScript | std::regex::icase);
    for (const auto& window : windows) {
      for (size_t limit : {std::string::npos, size_t(40), size_t(0)}) {
        EXPECT_EQ(with_prefix(*p, window, limit), with_iterator(plain, window, limit))
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

  auto bad = translate_pattern("abc(?)");  // "(?)" is no group std::regex knows
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->literal_prefixes, Texts{"abc"});
  calls = 0;
  for_each_match(*bad, "abc", "abc", std::string::npos, [&](const std::smatch&) { return ++calls > 0; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace cudnnup
