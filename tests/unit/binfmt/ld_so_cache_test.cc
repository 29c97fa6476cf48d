#include "binfmt/ld_so_cache.h"

#include <gtest/gtest.h>

#include "binfmt/ld_so_conf.h"
#include "base/path_glob.h"
#include "platform/real_filesystem.h"
#include "support/ld_cache_writer.h"
#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using testing::CacheLayout;
using testing::CacheRecord;
using testing::make_ld_cache;

constexpr uint16_t kX8664 = 62;

std::vector<CacheRecord> sample_records() {
  return {
      {"libcudnn.so.9", "/usr/local/cuda-13.0/lib/libcudnn.so.9", 0x0303, ""},
      {"libcudnn.so.9", "/usr/lib/i386-linux-gnu/libcudnn.so.9", 0x0003, ""},
      {"libcudnn.so.9", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9", 0x0303, ""},
      {"libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1", 0x0303, ""},
  };
}

TEST(LdSoCache, ParsesEachLayoutInCacheOrder) {
  for (CacheLayout layout : {CacheLayout::kOld, CacheLayout::kCompat, CacheLayout::kNew}) {
    auto cache = parse_ld_so_cache(make_ld_cache(sample_records(), layout, "ldconfig test"));
    ASSERT_TRUE(cache) << cache.error().message;
    EXPECT_EQ(cache->format, layout == CacheLayout::kOld      ? LdCacheFormat::kOld
                             : layout == CacheLayout::kCompat ? LdCacheFormat::kCompat
                                                              : LdCacheFormat::kNew);
    ASSERT_EQ(cache->entries.size(), 4u);
    EXPECT_EQ(cache->entries[0].path, "/usr/local/cuda-13.0/lib/libcudnn.so.9");
    EXPECT_EQ(cache->entries[1].flags, 0x0003);
    EXPECT_EQ(cache->entries[2].path, "/usr/lib/x86_64-linux-gnu/libcudnn.so.9");
    EXPECT_EQ(cache->entries[3].name, "libz.so.1");
    EXPECT_EQ(cache->entries[0].describe_flags(), "libc6,x86-64");
    if (layout != CacheLayout::kOld) {
      EXPECT_EQ(cache->generator, "ldconfig test");
    }
  }
}

TEST(LdSoCache, LookupTakesFirstEntryOfTheRightClass) {
  auto cache = parse_ld_so_cache(make_ld_cache(sample_records(), CacheLayout::kNew));
  ASSERT_TRUE(cache);
  LdCacheHit hit = ld_cache_lookup(*cache, "libcudnn.so.9", true, kX8664);
  ASSERT_NE(hit.entry, nullptr);
  EXPECT_EQ(hit.entry->path, "/usr/local/cuda-13.0/lib/libcudnn.so.9");
  ASSERT_EQ(hit.skipped.size(), 2u);  // the i386 one (wrong class) and the later x86-64 one
  EXPECT_NE(hit.skipped[0].second.find("ELF class"), std::string::npos);
  EXPECT_NE(hit.skipped[1].second.find("earlier cache entry"), std::string::npos);
  // A 32-bit x86 program gets the i386 entry.
  LdCacheHit hit32 = ld_cache_lookup(*cache, "libcudnn.so.9", false, 3);
  ASSERT_NE(hit32.entry, nullptr);
  EXPECT_EQ(hit32.entry->path, "/usr/lib/i386-linux-gnu/libcudnn.so.9");
  EXPECT_EQ(ld_cache_lookup(*cache, "libnothere.so.1", true, kX8664).entry, nullptr);
}

TEST(LdSoCache, GlibcHwcapsEntryWinsOnlyWhenSupported) {
  std::vector<CacheRecord> records = {
      {"libfoo.so.1", "/usr/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v3/libfoo.so.1", 0x0303, "x86-64-v3"},
      {"libfoo.so.1", "/usr/lib/x86_64-linux-gnu/libfoo.so.1", 0x0303, ""},
  };
  auto cache = parse_ld_so_cache(make_ld_cache(records, CacheLayout::kNew));
  ASSERT_TRUE(cache);
  EXPECT_EQ(cache->entries[0].hwcap_subdir, "x86-64-v3");
  EXPECT_EQ(ld_cache_lookup(*cache, "libfoo.so.1", true, kX8664, {"x86-64-v3", "x86-64-v2"}).entry->path,
            records[0].path);
  EXPECT_EQ(ld_cache_lookup(*cache, "libfoo.so.1", true, kX8664, {"x86-64-v2"}).entry->path, records[1].path);
}

TEST(LdSoCache, RejectsGarbageAndTruncation) {
  EXPECT_EQ(parse_ld_so_cache("hello world, not a cache").error().code, ErrorCode::kCorrupt);
  std::string bytes = make_ld_cache(sample_records(), CacheLayout::kNew);
  auto cut = parse_ld_so_cache(bytes.substr(0, 80));
  ASSERT_FALSE(cut);
  EXPECT_NE(cut.error().message.find("ldconfig"), std::string::npos);
  std::string old = make_ld_cache(sample_records(), CacheLayout::kOld);
  EXPECT_FALSE(parse_ld_so_cache(old.substr(0, old.size() - 10)));  // strings cut off
}

TEST(LdSoCache, ReadsThisMachinesCache) {
  auto fs = make_real_filesystem();
  if (!fs->exists("/etc/ld.so.cache")) GTEST_SKIP() << "no /etc/ld.so.cache here";
  auto cache = read_ld_so_cache(*fs);
  ASSERT_TRUE(cache) << cache.error().message;
  ASSERT_FALSE(cache->entries.empty());
  // libc is always registered, and the entry's file exists.
  bool found_libc = false;
  for (const auto& e : cache->entries) {
    if (e.name == "libc.so.6" && fs->exists(e.path)) found_libc = true;
  }
  EXPECT_TRUE(found_libc);
}

TEST(PathGlob, MatchesLikeFnmatch) {
  EXPECT_TRUE(glob_match("*.conf", "cuda.conf"));
  EXPECT_FALSE(glob_match("*.conf", "cuda.conf.bak"));
  EXPECT_FALSE(glob_match("*.conf", ".hidden.conf"));
  EXPECT_TRUE(glob_match("libcudnn.so.*[0-9]", "libcudnn.so.9"));
  EXPECT_TRUE(glob_match("libcudnn.so.*[0-9]", "libcudnn.so.9.19.0"));
  EXPECT_FALSE(glob_match("libcudnn.so.*[0-9]", "libcudnn.so.9.txt"));
  EXPECT_TRUE(glob_match("lib?.so", "libA.so"));
  EXPECT_TRUE(glob_match("[!x]y", "ay"));
  EXPECT_FALSE(glob_match("[!x]y", "xy"));
}

TEST(LdSoConf, FollowsIncludesInGlobOrderAndDropsDuplicates) {
  testing::MemoryFileSystem fs;
  fs.add_file("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n/usr/local/lib # trailing comment\n");
  fs.add_file("/etc/ld.so.conf.d/zz-cuda.conf", "/usr/local/cuda-13.0/lib\n");
  fs.add_file("/etc/ld.so.conf.d/libc.conf", "# libc default configuration\n/usr/local/lib/\n");
  fs.add_file("/etc/ld.so.conf.d/x86_64-linux-gnu.conf", "  /lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu=ELF\ninclude sub/*.conf\n");
  fs.add_file("/etc/ld.so.conf.d/sub/a.conf", "/opt/a/lib\n");
  fs.add_file("/etc/ld.so.conf.d/ignored.txt", "/nope\n");
  LdSoConf conf = read_ld_so_conf(fs);
  std::vector<std::string> dirs;
  for (const auto& d : conf.dirs) dirs.push_back(d.dir);
  EXPECT_EQ(dirs, (std::vector<std::string>{"/usr/local/lib", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                                            "/opt/a/lib", "/usr/local/cuda-13.0/lib"}));
  EXPECT_EQ(conf.dirs[0].file, "/etc/ld.so.conf.d/libc.conf");
  EXPECT_EQ(conf.dirs[0].line, 2);
  EXPECT_EQ(conf.files_read.size(), 5u);
  EXPECT_TRUE(conf.problems.empty());
}

TEST(LdSoConf, ReportsLoopsAndMissingFiles) {
  testing::MemoryFileSystem fs;
  fs.add_file("/etc/ld.so.conf", "include /etc/loop.conf\n");
  fs.add_file("/etc/loop.conf", "/a\ninclude /etc/ld.so.conf\n");
  LdSoConf conf = read_ld_so_conf(fs);
  ASSERT_EQ(conf.dirs.size(), 1u);
  ASSERT_EQ(conf.problems.size(), 1u);
  EXPECT_NE(conf.problems[0].find("loop"), std::string::npos);
  LdSoConf missing = read_ld_so_conf(fs, "/etc/absent.conf");
  EXPECT_TRUE(missing.dirs.empty());
  EXPECT_EQ(missing.problems.size(), 1u);
}

}  // namespace
}  // namespace cudnnup
