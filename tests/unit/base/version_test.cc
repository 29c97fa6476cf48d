#include "base/version.h"

#include <gtest/gtest.h>

namespace cudnnup {
namespace {

TEST(Version, ParsesDottedAndCompares) {
  auto v = Version::parse("9.1.0.70");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->str(), "9.1.0.70");
  EXPECT_LT(*Version::parse("9.1.0"), *Version::parse("9.10.0"));
  EXPECT_EQ(*Version::parse("9.1"), *Version::parse("9.1.0"));
  EXPECT_TRUE(v->has_prefix(*Version::parse("9.1")));
  EXPECT_FALSE(v->has_prefix(*Version::parse("9.10")));
  EXPECT_EQ(Version::parse("580.159.04")->str(), "580.159.4");
}

TEST(Version, RejectsGarbage) {
  EXPECT_FALSE(Version::parse(""));
  EXPECT_FALSE(Version::parse("9..1"));
  EXPECT_FALSE(Version::parse("9.1a"));
  EXPECT_FALSE(Version::parse("v9"));
}

TEST(Version, DecodesCudnnNumbersOfBothEras) {
  EXPECT_EQ(decode_cudnn_version_number(91900).str(), "9.19.0");
  EXPECT_EQ(decode_cudnn_version_number(90100).str(), "9.1.0");
  EXPECT_EQ(decode_cudnn_version_number(8907).str(), "8.9.7");
  EXPECT_EQ(decode_cudnn_version_number(7605).str(), "7.6.5");
  EXPECT_EQ(decode_cuda_version_number(13010).str(), "13.1");
  EXPECT_EQ(decode_cuda_version_number(12020).str(), "12.2");
}

}  // namespace
}  // namespace cudnnup
