// shell/shell_quote.h: one escaper per shell. bash, zsh and fish output is also run by real
// shells in tests/cli/hostile_shell_posix_test.cc; PowerShell and cmd are not installed on the
// Debian machines that build cudnnup (no pwsh package), so they are checked here by their rules.
#include "shell/shell_quote.h"

#include <gtest/gtest.h>

namespace cudnnup {
namespace {

std::string quoted(Shell s, const std::string& v) {
  auto q = shell_quote(s, v);
  EXPECT_TRUE(q) << v;
  return q ? *q : std::string();
}

TEST(ShellQuote, PosixAndFish) {
  EXPECT_EQ(quoted(Shell::kBash, "/a b/$(x)/`y`/;z"), "'/a b/$(x)/`y`/;z'");
  EXPECT_EQ(quoted(Shell::kZsh, "it's"), "'it'\\''s'");
  EXPECT_EQ(quoted(Shell::kFish, "it's a\\b"), "'it\\'s a\\\\b'");
  EXPECT_EQ(quoted(Shell::kBash, "\xff\x1b"), "'\xff\x1b'") << "bytes other than line breaks are held as they are";
}

TEST(ShellQuote, PowerShellDoublesEveryKindOfSingleQuote) {
  EXPECT_EQ(quoted(Shell::kPwsh, "C:\\it's $env:X `n"), "'C:\\it''s $env:X `n'");
  // U+2019 (right single quotation mark) ends a '...' string in PowerShell just like '.
  EXPECT_EQ(quoted(Shell::kPwsh, "a\xe2\x80\x99;calc;\xe2\x80\x98"), "'a\xe2\x80\x99\xe2\x80\x99;calc;\xe2\x80\x98\xe2\x80\x98'");
}

TEST(ShellQuote, CmdRefusesWhatItCannotQuote) {
  EXPECT_EQ(quoted(Shell::kCmd, "C:\\Program Files\\cudnn & more"), "C:\\Program Files\\cudnn & more");
  for (const char* bad : {"C:\\%PATH%", "C:\\a\"&calc", "C:\\!x!", "C:\\a\x01"}) {
    auto q = shell_quote(Shell::kCmd, bad);
    ASSERT_FALSE(q) << bad;
    EXPECT_EQ(q.error().path, bad);
  }
}

TEST(ShellQuote, LineBreaksAreRefusedEverywhereWithThePathNamed) {
  for (Shell s : {Shell::kBash, Shell::kZsh, Shell::kFish, Shell::kPwsh, Shell::kCmd}) {
    auto q = shell_quote(s, "/srv/x\ntouch /tmp/owned");
    ASSERT_FALSE(q) << shell_name(s);
    EXPECT_EQ(q.error().code, ErrorCode::kUsage);
    EXPECT_NE(q.error().message.find("/srv/x\\ntouch /tmp/owned"), std::string::npos) << q.error().message;
    EXPECT_NE(q.error().message.find("line break"), std::string::npos);
    EXPECT_FALSE(shell_quote(s, "a\rb"));
  }
}

TEST(ShellQuote, AssignmentsAndComments) {
  EXPECT_EQ(*shell_assign(Shell::kBash, "CUDNN_PATH", std::string("/a b")), "export CUDNN_PATH='/a b';\n");
  EXPECT_EQ(*shell_assign(Shell::kFish, "CPATH", std::nullopt), "set -e CPATH;\n");
  EXPECT_EQ(*shell_assign(Shell::kPwsh, "PATH", std::string("C:\\x")), "$env:PATH = 'C:\\x'\n");
  EXPECT_EQ(*shell_assign(Shell::kCmd, "PATH", std::string("C:\\x")), "set \"PATH=C:\\x\"\n");
  EXPECT_FALSE(shell_assign(Shell::kBash, "X;rm", std::string("v")));
  // A comment is one line whatever it holds; cmd comments hold no foreign text.
  EXPECT_EQ(shell_comment(Shell::kBash, "removed ", "/x\ntouch y"), "# removed /x\\ntouch y\n");
  EXPECT_EQ(shell_comment(Shell::kPwsh, "note: ", "a\xe2\x80\xa8" "b"), "# note: a\\u{2028}b\n");
  EXPECT_EQ(shell_comment(Shell::kCmd, "removed ", "C:\\x & calc"), "REM removed (a path not shown)\n");
  EXPECT_EQ(shell_comment(Shell::kCmd, "removed ", "C:\\cudnn\\9.19\\bin"), "REM removed C:\\cudnn\\9.19\\bin\n");
}

}  // namespace
}  // namespace cudnnup
