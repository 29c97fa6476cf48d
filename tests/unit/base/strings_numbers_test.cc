// base/strings.h and base/numbers.h: the helpers every domain shares.
#include <gtest/gtest.h>

#include "base/numbers.h"
#include "base/strings.h"

namespace cudnnup {
namespace {

TEST(Strings, AsciiOnlyCaseAndTrimming) {
  EXPECT_EQ(ascii_lower("CuDNN64_9.DLL"), "cudnn64_9.dll");
  EXPECT_EQ(ascii_upper("path"), "PATH");
  EXPECT_EQ(ascii_lower("\xc3\x89"), "\xc3\x89") << "bytes above 127 are left alone";
  EXPECT_TRUE(iequals("Cudnn64_9.dll", "CUDNN64_9.DLL"));
  EXPECT_TRUE(iends_with("X.DLL", ".dll"));
  EXPECT_TRUE(istarts_with("CUDNN_ops", "cudnn"));
  EXPECT_EQ(trim(" \t9.19\r\n"), "9.19");
  EXPECT_EQ(trim("   "), "");
  EXPECT_TRUE(all_digits("0123"));
  EXPECT_FALSE(all_digits(""));
  EXPECT_FALSE(all_digits("12a"));
  EXPECT_EQ(split("a,,b", ','), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(join({"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_TRUE(contains("libcudnn.so.9", ".so."));
}

TEST(Numbers, CheckedNeverThrowsOrWraps) {
  EXPECT_EQ(checked_int("12"), 12);
  EXPECT_EQ(checked_int("0"), 0);
  EXPECT_FALSE(checked_int("99999999999")) << "does not fit an int";
  EXPECT_FALSE(checked_int("12", 13, 20)) << "below the range";
  EXPECT_FALSE(checked_int("-1")) << "negative where the range does not allow it";
  EXPECT_EQ(checked_integer("-5", -10, 10), -5);
  for (const char* bad : {"", " 1", "1 ", "+1", "0x10", "1e3", "1.5", "١٢"}) EXPECT_FALSE(checked_int(bad)) << bad;
  EXPECT_EQ(checked_unsigned("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(checked_unsigned("18446744073709551616"));
  EXPECT_FALSE(checked_unsigned("100", 99));
}

}  // namespace
}  // namespace cudnnup
