#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>

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
  mutable std::atomic<int> reads{0};  // two threads ask at once in one test
};

// doctor's main thread and its helper thread ask at once (diagnose/doctor.cc): every answer is the
// filesystem's own, whichever thread asked first, and once both are done the cache answers every
// repeat without asking again.
TEST(CachingFileSystem, ThreadsAskingAtOnceGetTheFilesystemsAnswers) {
  CountingReads mem;
  std::vector<std::string> paths;
  for (int d = 0; d < 8; ++d) {
    for (int f = 0; f < 40; ++f) {
      std::string path = "/d" + std::to_string(d) + "/f" + std::to_string(f);
      if (f % 3 != 0) mem.add_file(path, path + " contents");  // every third is missing
      paths.push_back(path);
    }
  }
  CachingFileSystem cache(mem);
  auto ask_all = [&](unsigned seed, std::vector<std::string>* answers) {
    std::vector<size_t> order(paths.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), std::mt19937(seed));
    answers->assign(paths.size(), "");
    for (size_t i : order) {
      auto info = cache.stat(paths[i]);
      auto bytes = cache.read_range(paths[i], 0, 64);
      auto dir = cache.list_dir(paths[i].substr(0, 3));
      (*answers)[i] = (info ? std::to_string(info->size) : "stat error") + "|" + (bytes ? *bytes : "read error") + "|" +
                      (dir ? std::to_string(dir->size()) : "list error");
    }
  };
  std::vector<std::string> a, b;
  std::thread other([&] { ask_all(1, &b); });
  ask_all(2, &a);
  other.join();
  for (size_t i = 0; i < paths.size(); ++i) {
    auto info = mem.stat(paths[i]);
    auto bytes = mem.read_range(paths[i], 0, 64);
    std::string expected = (info ? std::to_string(info->size) : "stat error") + "|" + (bytes ? *bytes : "read error") + "|" +
                           std::to_string(mem.list_dir(paths[i].substr(0, 3))->size());
    EXPECT_EQ(a[i], expected) << paths[i];
    EXPECT_EQ(b[i], expected) << paths[i];
  }
  const int reads = mem.reads.load();
  std::vector<std::string> again;
  ask_all(3, &again);
  EXPECT_EQ(again, a);
  EXPECT_EQ(mem.reads.load(), reads) << "every repeat answered from memory";
}

TEST(CachingFileSystem, SmallReadsAreAnsweredFromBlocksWithTheSameBytes) {
  CountingReads mem;
  std::string body;
  std::mt19937 rng(7);
  for (int i = 0; i < 100000; ++i) body += static_cast<char>(rng() & 0xff);
  mem.add_file("/lib/libx.so", body);
  CachingFileSystem cache(mem);
  // One string after another, as the ELF reader asks: one read behind the cache.
  for (uint64_t at = 50000; at < 51000; at += 97) EXPECT_EQ(*cache.read_range("/lib/libx.so", at, 2000 - (at - 50000)), body.substr(at, 2000 - (at - 50000)));
  EXPECT_EQ(mem.reads.load(), 1);
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
  int before = mem.reads.load();
  EXPECT_EQ(cache.read_range("/lib/missing.so", 0, 64).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(cache.read_range("/lib/missing.so", 4096, 64).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(mem.reads.load(), before + 1);
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
  EXPECT_EQ(mem.reads.load(), 1);
  EXPECT_EQ(*cache.read_range("/cuda/include/cudnn_version.h", 2990, 1 << 20), header.substr(2990));
  EXPECT_EQ(*cache.read_range("/cuda/include/cudnn_version.h", 5000, 1 << 20), "");
  EXPECT_EQ(*cache.read_range("/cuda/include/cudnn_version.h", 100, 50), header.substr(100, 50));
  EXPECT_EQ(mem.reads.load(), 1);

  const std::string body(600 << 10, 'b');  // larger than what the cache keeps
  mem.add_file("/lib/libbig.so", body);
  EXPECT_EQ(*cache.read_file("/lib/libbig.so", 1 << 20), body);
  EXPECT_EQ(*cache.read_file("/lib/libbig.so", 1 << 20), body);
  EXPECT_EQ(mem.reads.load(), 3) << "read through each time";
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
