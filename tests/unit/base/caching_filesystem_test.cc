#include <gtest/gtest.h>

#include <random>

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


// Counts the reads that reach the file system behind the cache.
class CountingReads final : public testing::MemoryFileSystem {
 public:
  Result<std::string> read_range(const std::string& path, uint64_t offset, size_t max_bytes) const override {
    ++reads;
    return MemoryFileSystem::read_range(path, offset, max_bytes);
  }
  mutable int reads = 0;
};

TEST(CachingFileSystem, SmallReadsAreAnsweredFromBlocksWithTheSameBytes) {
  CountingReads mem;
  std::string body;
  std::mt19937 rng(7);
  for (int i = 0; i < 100000; ++i) body += static_cast<char>(rng() & 0xff);
  mem.add_file("/lib/libx.so", body);
  CachingFileSystem cache(mem);
  // One string after another, as the ELF reader asks: one read behind the cache.
  for (uint64_t at = 50000; at < 51000; at += 97) EXPECT_EQ(*cache.read_range("/lib/libx.so", at, 2000 - (at - 50000)), body.substr(at, 2000 - (at - 50000)));
  EXPECT_EQ(mem.reads, 1);
  // Any offset and size gets exactly what the file holds there, at the end of the file too.
  std::uniform_int_distribution<uint64_t> where(0, body.size() + 100);
  std::uniform_int_distribution<size_t> size(0, 20000);
  for (int i = 0; i < 2000; ++i) {
    uint64_t at = where(rng);
    size_t n = size(rng);
    std::string want = at >= body.size() ? std::string() : body.substr(at, n);
    ASSERT_EQ(*cache.read_range("/lib/libx.so", at, n), want) << at << " " << n;
  }
  // A file that cannot be read fails alike at every offset, asked once.
  int before = mem.reads;
  EXPECT_EQ(cache.read_range("/lib/missing.so", 0, 64).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(cache.read_range("/lib/missing.so", 4096, 64).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(mem.reads, before + 1);
}

// read_file(header, 1 MiB) of a 3 KB header, over and over (the loader model reads a copy's
// cudnn_version.h for each search it models): one read behind the cache, the same bytes from any
// offset; a large file's body read in full is never kept.
TEST(CachingFileSystem, ALargeReadOfASmallFileIsKeptAndALargeFileIsNot) {
  CountingReads mem;
  const std::string header(3000, 'h');
  mem.add_file("/cuda/include/cudnn_version.h", header);
  CachingFileSystem cache(mem);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(*cache.read_file("/cuda/include/cudnn_version.h", 1 << 20), header);
  EXPECT_EQ(mem.reads, 1);
  EXPECT_EQ(*cache.read_range("/cuda/include/cudnn_version.h", 2990, 1 << 20), header.substr(2990));
  EXPECT_EQ(*cache.read_range("/cuda/include/cudnn_version.h", 5000, 1 << 20), "");
  EXPECT_EQ(*cache.read_range("/cuda/include/cudnn_version.h", 100, 50), header.substr(100, 50));
  EXPECT_EQ(mem.reads, 1);

  const std::string body(600 << 10, 'b');  // larger than what the cache keeps
  mem.add_file("/lib/libbig.so", body);
  EXPECT_EQ(*cache.read_file("/lib/libbig.so", 1 << 20), body);
  EXPECT_EQ(*cache.read_file("/lib/libbig.so", 1 << 20), body);
  EXPECT_EQ(mem.reads, 3) << "read through each time";
}

// Paths are resolved one component at a time from the cached answers: the same result as the
// file system's own canonical (tests/disk/caching_canonical_posix_test.cc compares with realpath).
TEST(CachingFileSystem, CanonicalResolvesLinksComponentByComponent) {
  testing::MemoryFileSystem mem;
  mem.add_file("/opt/cuda-13.0/lib/libcudnn.so.9", "x");
  mem.add_symlink("/opt/cuda", "/opt/cuda-13.0");
  mem.add_symlink("/opt/cuda-13.0/lib64", "lib");
  mem.add_symlink("/opt/cuda-13.0/libcudnn.so", "../cuda/lib64/libcudnn.so.9");
  CachingFileSystem cache(mem);
  EXPECT_EQ(*cache.canonical("/opt/cuda/lib64/libcudnn.so.9"), "/opt/cuda-13.0/lib/libcudnn.so.9");
  EXPECT_EQ(*cache.canonical("/opt/cuda/libcudnn.so"), "/opt/cuda-13.0/lib/libcudnn.so.9");
  EXPECT_EQ(*cache.canonical("/opt/cuda/lib64/../lib/./libcudnn.so.9"), "/opt/cuda-13.0/lib/libcudnn.so.9");
  EXPECT_EQ(*cache.canonical("/"), "/");
  EXPECT_EQ(cache.canonical("/opt/cuda/lib64/missing").error().code, ErrorCode::kNotFound);
  EXPECT_FALSE(cache.canonical("/opt/cuda/lib64/libcudnn.so.9/x")) << "a file is no directory";
  for (const std::string p : {"/opt/cuda/lib64/libcudnn.so.9", "/opt/cuda/libcudnn.so", "/opt/cuda/lib64/missing"}) {
    EXPECT_EQ(bool(cache.canonical(p)), bool(mem.canonical(p))) << p;
    if (auto c = mem.canonical(p)) {
      EXPECT_EQ(*cache.canonical(p), *c) << p;
    }
  }
}

}  // namespace
}  // namespace cudnnup
