#include "shell/windows_command_line.h"

#include <gtest/gtest.h>

namespace cudnnup {
namespace {

TEST(WindowsCommandLine, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(quote_windows_argument("doctor"), "doctor");
  EXPECT_EQ(quote_windows_argument(""), "\"\"");
  EXPECT_EQ(quote_windows_argument("C:\\Program Files\\x.dll"), "\"C:\\Program Files\\x.dll\"");
  // Backslashes not before a quote stay as they are.
  EXPECT_EQ(quote_windows_argument("C:\\a\\b"), "C:\\a\\b");
}

TEST(WindowsCommandLine, EscapesQuotesAndTrailingBackslashes) {
  EXPECT_EQ(quote_windows_argument("say \"hi\""), "\"say \\\"hi\\\"\"");
  // A trailing backslash inside quotes must be doubled or it would escape the closing quote.
  EXPECT_EQ(quote_windows_argument("C:\\dir with space\\"), "\"C:\\dir with space\\\\\"");
  EXPECT_EQ(quote_windows_argument("a\\\"b"), "\"a\\\\\\\"b\"");
}

TEST(WindowsCommandLine, JoinsArguments) {
  EXPECT_EQ(windows_command_line({"cudnnup.exe", "__probe", "cudnn", "C:/x y/cudnn64_9.dll"}),
            "cudnnup.exe __probe cudnn \"C:/x y/cudnn64_9.dll\"");
}

}  // namespace
}  // namespace cudnnup
