// The two hashing jobs of the install pipeline (core/install/hashing.h), with the tests' stand-in
// hash so they run in every build; SHA-256 itself is checked in installer_windows_layout_test.cc.
#include "install/hashing.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/fake_archive.h"

namespace cudnnup {
namespace {

using testing::test_digest;

std::string pattern(size_t n, int seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + seed * 7919) % 251);
  return s;
}

TEST(FileHashRing, GivesEachFileItsOwnDigestInOrder) {
  // Sizes around the slot size and far past the ring (64 slots): the producer must wait for the
  // worker, and chunk boundaries must not leak between files.
  std::vector<std::string> files = {pattern(10, 1), pattern(FileHashRing::kSlotBytes, 2), pattern(FileHashRing::kSlotBytes + 1, 3),
                                    pattern(FileHashRing::kSlotBytes * FileHashRing::kSlots * 2 + 17, 4), pattern(3, 5)};
  FileHashRing ring(testing::test_hasher());
  for (size_t f = 0; f < files.size(); ++f) {
    EXPECT_EQ(ring.begin_file(), f);
    // Fed in uneven pieces, as libarchive hands out blocks.
    for (size_t at = 0; at < files[f].size(); at += 50000) ring.add(std::string_view(files[f]).substr(at, 50000));
  }
  std::vector<std::string> digests = ring.finish();
  ASSERT_EQ(digests.size(), files.size());
  for (size_t f = 0; f < files.size(); ++f) EXPECT_EQ(digests[f], test_digest(files[f])) << "file " << f;
}

TEST(FileHashRing, EmptyFilesGetTheEmptyDigest) {
  FileHashRing ring(testing::test_hasher());
  ring.begin_file();  // empty, first
  ring.begin_file();
  ring.add("abc");
  ring.begin_file();  // empty, between
  ring.begin_file();  // empty, last
  std::vector<std::string> digests = ring.finish();
  ASSERT_EQ(digests.size(), 4u);
  EXPECT_EQ(digests[0], test_digest(""));
  EXPECT_EQ(digests[1], test_digest("abc"));
  EXPECT_EQ(digests[2], test_digest(""));
  EXPECT_EQ(digests[3], test_digest(""));
}

TEST(FileHashRing, NoFilesNoDigests) {
  FileHashRing ring(testing::test_hasher());
  EXPECT_TRUE(ring.finish().empty());
}

TEST(WholeFileHash, HashesTheWholeFileOnItsOwnThreadAndCountsWhatItRead) {
  testing::MemoryFileSystem fs;
  std::string bytes = pattern((3 << 20) + 123, 7);  // several 1 MiB pieces and a short last one
  fs.add_file("/a/archive.tar", bytes);
  WholeFileHash hash(fs, "/a/archive.tar", testing::test_hasher());
  auto digest = hash.result();
  ASSERT_TRUE(digest.ok());
  EXPECT_EQ(*digest, test_digest(bytes));
  EXPECT_EQ(hash.bytes_done(), bytes.size());
  EXPECT_EQ(*hash_file(fs, "/a/archive.tar", testing::test_hasher()), test_digest(bytes));
}

TEST(WholeFileHash, AReadErrorIsTheResult) {
  testing::MemoryFileSystem fs;
  WholeFileHash hash(fs, "/missing.tar", testing::test_hasher());
  auto digest = hash.result();
  ASSERT_FALSE(digest.ok());
  EXPECT_EQ(digest.error().code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace cudnnup
