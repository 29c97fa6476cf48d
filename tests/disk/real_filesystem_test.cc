// The real filesystem on this machine's disk: the behaviour the in-memory fake imitates.
#include <gtest/gtest.h>

#include <filesystem>

#include "platform/real_filesystem.h"
#include "support/fixture_libs.h"

namespace cudnnup::testing {
namespace {

TEST(RealFileSystem, ReadRangeSizesByFileAndReadsProcFiles) {
  auto fs = make_real_filesystem();
  TempDir tmp;
  write_text(tmp / "a.txt", "hello world");
  EXPECT_EQ(*fs->read_range(tmp / "a.txt", 6, 1 << 24), "world");
  EXPECT_EQ(*fs->read_range(tmp / "a.txt", 50, 10), "");
  EXPECT_EQ(*fs->read_file(tmp / "a.txt", 5), "hello");
#ifndef _WIN32
  // /proc files report size 0 but have contents.
  auto status = fs->read_file("/proc/self/status", 1 << 20);
  ASSERT_TRUE(status) << status.error().message;
  EXPECT_NE(status->find("Pid:"), std::string::npos);
#endif
  EXPECT_EQ(fs->read_file(tmp / "missing").error().code, ErrorCode::kNotFound);
}

#ifndef _WIN32  // Wine cannot create symlinks; the Windows link code is tested in memory_fs tests.
TEST(RealFileSystem, LinksCanonicalAndListing) {
  auto fs = make_real_filesystem();
  TempDir tmp;
  write_text(tmp / "d/f", "x");
  ASSERT_TRUE(fs->symlink("d", tmp / "l"));
  auto info = fs->lstat(tmp / "l");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->type, FileType::kSymlink);
  EXPECT_EQ(*fs->read_link(tmp / "l"), "d");
  EXPECT_EQ(*fs->canonical(tmp / "l/f"), *fs->canonical(tmp / "d/f"));
  auto listing = fs->list_dir(tmp.path());
  ASSERT_TRUE(listing);
  EXPECT_EQ(listing->size(), 2u);
  ASSERT_TRUE(fs->rename(tmp / "d/f", tmp / "d/g"));
  EXPECT_FALSE(fs->exists(tmp / "d/f"));
  EXPECT_TRUE(fs->is_file(tmp / "d/g"));
}
#endif

}  // namespace
}  // namespace cudnnup::testing
