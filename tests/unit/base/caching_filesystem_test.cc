#include <gtest/gtest.h>

#include "base/caching_filesystem.h"
#include "support/memory_fs.h"

namespace cudnnup {
namespace {

TEST(CachingFileSystem, AnswersRepeatsFromMemoryAndForgetsOnWrite) {
  testing::MemoryFileSystem mem;
  mem.add_file("/a/f", "one");
  CachingFileSystem cache(mem);
  EXPECT_EQ(*cache.read_file("/a/f", 100), "one");
  // A change behind the cache's back is not seen (documented): the cache answered from memory.
  mem.add_file("/a/f", "two");
  EXPECT_EQ(*cache.read_file("/a/f", 100), "one");
  // A write through the cache clears it.
  ASSERT_TRUE(cache.write_file("/a/g", "x", false));
  EXPECT_EQ(*cache.read_file("/a/f", 100), "two");
  EXPECT_TRUE(cache.exists("/a/g"));
  // Errors are cached too, and a read-only view refuses writes.
  EXPECT_FALSE(cache.stat("/nope"));
  const testing::MemoryFileSystem& ro = mem;
  CachingFileSystem view(ro);
  EXPECT_EQ(view.write_file("/a/h", "", false).error().code, ErrorCode::kInternal);
  EXPECT_FALSE(mem.exists("/a/h"));
}

}  // namespace
}  // namespace cudnnup
