// CachingFileSystem::canonical resolves POSIX paths itself, one component at a time from its
// cached lstat/read_link answers. realpath(3) on this machine's disk is the oracle: thousands of
// generated paths through relative, absolute, chained, dangling and looping links, "." and "..",
// links to files followed by more components, and trailing slashes must get the same answer
// (the same path, or a failure of the same kind).
#include <gtest/gtest.h>

#include <random>

#include "base/caching_filesystem.h"
#include "platform/real_filesystem.h"
#include "support/fixture_libs.h"

namespace cudnnup::testing {
namespace {

TEST(CachingCanonical, AgreesWithRealpathOnGeneratedPaths) {
  auto real = make_real_filesystem();
  TempDir tmp;
  write_text(tmp / "a/f", "x");
  write_text(tmp / "a/b/g", "y");
  const std::string root = *real->canonical(tmp.path());  // TMPDIR itself may sit behind a link
  auto link = [&](const std::string& target, const std::string& name) { ASSERT_TRUE(real->symlink(target, tmp / name)); };
  link("a", "la");                     // relative
  link(root + "/a", "labs");           // absolute
  link("la", "chain");                 // a link to a link
  link("a/b/..", "up");                // ".." inside a target
  link("a/f", "lf");                   // a link to a file
  link("nowhere", "dangle");           // dangling
  link("loop2", "loop1");              // a loop
  link("loop1", "loop2");
  link("self", "self");
  link("..", "a/b/parent");            // ".." from inside a directory reached through a link
  link("../../la", "a/b/rootward");
  link(".", "dot");
  link("/", "toroot");

  const std::vector<std::string> words = {"a",     "b",      "f",     "g",  "la",     "labs", "chain", "up",
                                          "lf",    "dangle", "loop1", "self", "parent", "rootward",
                                          "dot",   ".",      "..",    "",     "missing", "toroot"};
  std::mt19937 rng(20261206);
  std::uniform_int_distribution<size_t> count(1, 6), pick(0, words.size() - 1);
  CachingFileSystem shared(*real);  // one cache across all queries, as doctor uses it
  size_t resolved = 0, failed = 0;
  for (int i = 0; i < 4000; ++i) {
    std::string path = root;
    for (size_t n = count(rng); n > 0; --n) path += "/" + words[pick(rng)];
    if (i % 7 == 0) path += "/";
    auto want = real->canonical(path);
    CachingFileSystem fresh(*real);
    for (const CachingFileSystem* cache : {&shared, &fresh}) {
      auto got = cache->canonical(path);
      SCOPED_TRACE(path);
      ASSERT_EQ(bool(got), bool(want)) << (want ? "realpath: " + *want : "realpath failed: " + want.error().message) << "; "
                                       << (got ? "cache: " + *got : "cache failed: " + got.error().message);
      if (want) {
        EXPECT_EQ(*got, *want);
      } else {
        EXPECT_EQ(got.error().code, want.error().code) << got.error().message << " vs " << want.error().message;
      }
    }
    (want ? resolved : failed)++;
  }
  // Both outcomes must be well represented, or the comparison proves little.
  EXPECT_GT(resolved, 500u);
  EXPECT_GT(failed, 500u);
}

}  // namespace
}  // namespace cudnnup::testing
