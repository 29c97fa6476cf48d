// base/terminal_text.h: what reaches a terminal from the machine is printable.
#include "base/terminal_text.h"

#include <gtest/gtest.h>

namespace cudnnup {
namespace {

TEST(TerminalText, ControlsAreShownNotSent) {
  EXPECT_EQ(terminal_safe("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(terminal_safe("a\nb", /*keep_newlines=*/true), "a\nb");
  EXPECT_EQ(terminal_safe("\x1b]0;owned\x07"), "\\x1b]0;owned\\x07");
  EXPECT_EQ(terminal_safe("\x7f"), "\\x7f");
  EXPECT_EQ(terminal_safe("gbk \xb4\xed\xce\xf3"), "gbk \\xb4\\xed\\xce\\xf3") << "invalid UTF-8 byte by byte";
  EXPECT_EQ(terminal_safe("\xc2\x9b" "31m"), "\\u{9b}31m") << "C1 CSI";
  EXPECT_EQ(terminal_safe("abc\xe2\x80\xae" "fdp.exe"), "abc\\u{202e}fdp.exe") << "bidi override";
  EXPECT_EQ(terminal_safe("caf\xc3\xa9 \xe6\x96\x87 C:\\Users"), "caf\xc3\xa9 \xe6\x96\x87 C:\\Users") << "printable text stays";
}

TEST(TerminalFilter, KeepsOurColoursAndNothingElse) {
  TerminalFilter f;
  EXPECT_EQ(f.feed("\x1b[31;1mred\x1b[0m\n"), "\x1b[31;1mred\x1b[0m\n");
  EXPECT_EQ(f.feed("\x1b[2J\x1b]8;;http://x\x07"), "\\x1b[2J\\x1b]8;;http://x\\x07") << "clear screen, hyperlink";
  EXPECT_EQ(f.feed("\x1b[8mhidden"), "\\x1b[8mhidden") << "conceal is not one of ours";
}

TEST(TerminalFilter, SequencesSplitAcrossWritesAreJudgedWhole) {
  TerminalFilter f;
  EXPECT_EQ(f.feed("caf\xc3"), "caf");
  EXPECT_EQ(f.feed("\xa9 \x1b["), "\xc3\xa9 ");
  EXPECT_EQ(f.feed("32mok"), "\x1b[32mok");
  EXPECT_EQ(f.feed("\xe2\x80"), "");
  EXPECT_EQ(f.finish(), "\\xe2\\x80") << "a sequence cut off at the end is shown escaped";
}

}  // namespace
}  // namespace cudnnup
