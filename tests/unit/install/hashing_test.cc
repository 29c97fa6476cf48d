// The two hashing jobs of the install pipeline (core/install/hashing.h), with the tests' stand-in
// hash so they run in every build; SHA-256 itself is checked in installer_windows_layout_test.cc.
#include "install/hashing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
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

// Writes `bytes` as the extraction does: the prefix grows on disk piece by piece (a real
// filesystem shows it at once), the workers are told after each piece, then the file is closed.
void write_growing(testing::MemoryFileSystem& fs, StagedFileHashes& hashes, const std::string& rel, const std::string& bytes) {
  size_t index = hashes.begin_file(rel);
  for (size_t at = 0; at < bytes.size();) {
    at = std::min(bytes.size(), at + 300000);  // uneven against the workers' 1 MiB pieces
    ASSERT_TRUE(fs.write_file("/stage/" + rel, bytes.substr(0, at), false).ok());
    hashes.wrote(index, at);
  }
  if (bytes.empty()) {
    ASSERT_TRUE(fs.write_file("/stage/" + rel, "", false).ok());
  }
  hashes.closed(index, bytes.size());
}

TEST(StagedFileHashes, GivesEachFileItsOwnDigestInOrderWithAnyNumberOfWorkers) {
  // Sizes around the 1 MiB read piece, one large file among small ones, empty files first,
  // between and last.
  std::vector<std::string> files = {"", pattern(10, 1), pattern(1 << 20, 2), pattern((1 << 20) + 1, 3), "",
                                    pattern((5 << 20) + 17, 4), pattern(3, 5), ""};
  for (unsigned workers : {1u, 2u, 4u}) {
    testing::MemoryFileSystem fs;
    fs.add_dir("/stage/lib");
    StagedFileHashes hashes(fs, "/stage", testing::test_hasher(), workers);
    for (size_t f = 0; f < files.size(); ++f) write_growing(fs, hashes, "lib/f" + std::to_string(f), files[f]);
    auto digests = hashes.finish();
    ASSERT_TRUE(digests.ok()) << digests.error().message;
    ASSERT_EQ(digests->size(), files.size());
    for (size_t f = 0; f < files.size(); ++f) EXPECT_EQ((*digests)[f], test_digest(files[f])) << "file " << f << ", " << workers << " workers";
  }
}

TEST(StagedFileHashes, AFileShownOnlyWhenClosedIsHashedThen) {
  // The in-memory filesystem's create_file() shows the file at close(), as a Windows share mode may.
  testing::MemoryFileSystem fs;
  fs.add_dir("/stage");
  StagedFileHashes hashes(fs, "/stage", testing::test_hasher(), 2);
  std::string bytes = pattern((3 << 20) + 5, 6);
  auto writer = fs.create_file("/stage/a.so");
  ASSERT_TRUE(writer.ok());
  size_t index = hashes.begin_file("a.so");
  for (size_t at = 0; at < bytes.size(); at += 128 << 10) {
    ASSERT_TRUE((*writer)->write(std::string_view(bytes).substr(at, 128 << 10)).ok());
    hashes.wrote(index, std::min(bytes.size(), at + (128 << 10)));
  }
  ASSERT_TRUE((*writer)->close(false).ok());
  hashes.closed(index, bytes.size());
  auto digests = hashes.finish();
  ASSERT_TRUE(digests.ok()) << digests.error().message;
  EXPECT_EQ(digests->at(0), test_digest(bytes));
}

TEST(StagedFileHashes, AFileShorterOnDiskThanWrittenIsAnError) {
  testing::MemoryFileSystem fs;
  fs.add_dir("/stage");
  StagedFileHashes hashes(fs, "/stage", testing::test_hasher(), 1);
  size_t index = hashes.begin_file("a.so");
  ASSERT_TRUE(fs.write_file("/stage/a.so", "abc", false).ok());  // someone cut it short
  hashes.closed(index, 10);
  auto digests = hashes.finish();
  ASSERT_FALSE(digests.ok());
  EXPECT_NE(digests.error().message.find("/stage/a.so changed while it was installed"), std::string::npos) << digests.error().message;
}

TEST(StagedFileHashes, AnUnreadableFileIsTheReadError) {
  testing::MemoryFileSystem fs;
  fs.add_dir("/stage");
  StagedFileHashes hashes(fs, "/stage", testing::test_hasher(), 1);
  size_t index = hashes.begin_file("a.so");
  fs.add_file("/stage/a.so", "abc");
  fs.set_unreadable("/stage/a.so");
  hashes.closed(index, 3);
  auto digests = hashes.finish();
  ASSERT_FALSE(digests.ok());
  EXPECT_EQ(digests.error().code, ErrorCode::kPermission);
}

TEST(StagedFileHashes, AFailedExtractionStopsTheWorkersWithoutFinish) {
  // A file begun and never closed: the destructor must not wait for it (a hang fails by timeout).
  testing::MemoryFileSystem fs;
  fs.add_dir("/stage");
  auto hashes = std::make_unique<StagedFileHashes>(fs, "/stage", testing::test_hasher(), 3);
  size_t index = hashes->begin_file("a.so");
  ASSERT_TRUE(fs.write_file("/stage/a.so", pattern(2 << 20, 7), false).ok());
  hashes->wrote(index, 2 << 20);
  hashes.reset();
  SUCCEED();
}

TEST(StagedFileHashes, NoFilesNoDigests) {
  testing::MemoryFileSystem fs;
  StagedFileHashes hashes(fs, "/stage", testing::test_hasher());
  auto digests = hashes.finish();
  ASSERT_TRUE(digests.ok());
  EXPECT_TRUE(digests->empty());
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
