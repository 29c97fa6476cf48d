#include "app/commands/background_hasher.h"

#if CUDNNUP_HAVE_INSTALL

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "platform/sha256.h"

namespace cudnnup {
namespace {

std::string sha256_of(const std::string& bytes) {
  Sha256 h;
  h.update(bytes);
  return h.hex_digest();
}

std::string pattern(size_t n, int seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + seed * 7919) % 251);
  return s;
}

TEST(BackgroundHasher, GivesEachFileItsOwnDigestInOrder) {
  // Sizes around the slot size and far past the ring (64 slots): the producer must wait for the
  // worker, and chunk boundaries must not leak between files.
  std::vector<std::string> files = {pattern(10, 1), pattern(BackgroundHasher::kSlotBytes, 2),
                                    pattern(BackgroundHasher::kSlotBytes + 1, 3),
                                    pattern(BackgroundHasher::kSlotBytes * BackgroundHasher::kSlots * 2 + 17, 4), pattern(3, 5)};
  BackgroundHasher hasher;
  for (size_t f = 0; f < files.size(); ++f) {
    EXPECT_EQ(hasher.begin_file(), f);
    // Fed in uneven pieces, as libarchive hands out blocks.
    for (size_t at = 0; at < files[f].size(); at += 50000) hasher.add(std::string_view(files[f]).substr(at, 50000));
  }
  std::vector<std::string> digests = hasher.finish();
  ASSERT_EQ(digests.size(), files.size());
  for (size_t f = 0; f < files.size(); ++f) EXPECT_EQ(digests[f], sha256_of(files[f])) << "file " << f;
}

TEST(BackgroundHasher, EmptyFilesGetTheEmptyDigest) {
  const std::string empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  BackgroundHasher hasher;
  hasher.begin_file();                   // empty, first
  hasher.begin_file();
  hasher.add("abc");
  hasher.begin_file();                   // empty, between
  hasher.begin_file();                   // empty, last
  std::vector<std::string> digests = hasher.finish();
  ASSERT_EQ(digests.size(), 4u);
  EXPECT_EQ(digests[0], empty);
  EXPECT_EQ(digests[1], sha256_of("abc"));
  EXPECT_EQ(digests[2], empty);
  EXPECT_EQ(digests[3], empty);
}

TEST(BackgroundHasher, NoFilesNoDigests) {
  BackgroundHasher hasher;
  EXPECT_TRUE(hasher.finish().empty());
}

}  // namespace
}  // namespace cudnnup

#endif  // CUDNNUP_HAVE_INSTALL
