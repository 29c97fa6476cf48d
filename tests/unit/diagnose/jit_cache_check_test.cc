// The CUDA JIT cache check on the in-memory filesystem: which files make a finding, where the cache
// is, and the fix it prints. The real filesystem's owners: tests/disk/jit_cache_check_posix_test.cc.
#include <gtest/gtest.h>

#include "diagnose/jit_cache_check.h"
#include "explain/explain_checks.h"
#include "facts/finding_ids.h"
#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;

Environment user_env() {
  Environment env;
  env.home = "/home/ann";
  env.vars["HOME"] = "/home/ann";
  env.effective_uid = 1000;
  return env;
}

MemoryFileSystem cache_with_entries() {
  MemoryFileSystem fs;
  fs.add_dir("/home/ann/.nv/ComputeCache/0");
  fs.add_dir("/home/ann/.nv/ComputeCache/a");
  fs.add_file("/home/ann/.nv/ComputeCache/index", "x");
  return fs;
}

TEST(JitCacheCheck, TheCacheIsWhereCudaPutsIt) {
  Environment env = user_env();
  EXPECT_EQ(cuda_jit_cache_dir(env).path, "/home/ann/.nv/ComputeCache");
  EXPECT_FALSE(cuda_jit_cache_dir(env).user_named);
  env.vars["CUDA_CACHE_PATH"] = "/scratch//cuda-cache/./";
  EXPECT_EQ(cuda_jit_cache_dir(env).path, "/scratch/cuda-cache");
  EXPECT_TRUE(cuda_jit_cache_dir(env).user_named);
  // Read against a working directory doctor does not know: not judged, never the default instead.
  env.vars["CUDA_CACHE_PATH"] = "relative/cache";
  EXPECT_EQ(cuda_jit_cache_dir(env).path, "");
  env.vars["CUDA_CACHE_PATH"] = "C:/cache";  // relative on POSIX
  EXPECT_EQ(cuda_jit_cache_dir(env).path, "");
  for (const char* off : {"1", "01", "1 ", "true"}) {
    Environment disabled = user_env();
    disabled.vars["CUDA_CACHE_DISABLE"] = off;
    EXPECT_EQ(cuda_jit_cache_dir(disabled).path, "") << off;
  }
  Environment enabled = user_env();
  enabled.vars["CUDA_CACHE_DISABLE"] = "0";
  EXPECT_EQ(cuda_jit_cache_dir(enabled).path, "/home/ann/.nv/ComputeCache");
  Environment windows = user_env();
  windows.os = OsKind::kWindows;
  EXPECT_EQ(cuda_jit_cache_dir(windows).path, "");
  for (const char* home : {"", "relative", "C:/Users/ann", "\\\\server\\ann"}) {
    Environment odd = user_env();
    odd.home = home;
    EXPECT_EQ(cuda_jit_cache_dir(odd).path, "") << home;
  }
  Environment dotted = user_env();
  dotted.home = "/home/ann/../bob/";
  EXPECT_EQ(cuda_jit_cache_dir(dotted).path, "/home/bob/.nv/ComputeCache");
}

TEST(JitCacheCheck, ACacheOfTheUsersOwnOrNoneGivesNoFinding) {
  MemoryFileSystem fs = cache_with_entries();
  EXPECT_TRUE(check_jit_cache(fs, user_env()).empty());
  MemoryFileSystem empty;
  EXPECT_TRUE(check_jit_cache(empty, user_env()).empty());
}

TEST(JitCacheCheck, AnotherUsersFileInTheCacheIsAFindingWithADeletionOfTheCacheOnly) {
  MemoryFileSystem fs = cache_with_entries();
  fs.set_other_owner("/home/ann/.nv/ComputeCache/index");
  fs.set_other_owner("/home/ann/.nv/ComputeCache/a");
  auto found = check_jit_cache(fs, user_env());
  ASSERT_EQ(found.size(), 1u);
  const Finding& f = found[0];
  EXPECT_EQ(f.id, finding_id::kDriverJitCacheNotWritable);
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.subject, "/home/ann/.nv/ComputeCache");
  ASSERT_EQ(f.evidence.size(), 2u);
  EXPECT_NE(f.evidence[0].find("/home/ann/.nv/ComputeCache/"), std::string::npos);
  ASSERT_EQ(f.fix.size(), 1u);
  EXPECT_EQ(f.fix[0].kind, FixKind::kSudo);
  EXPECT_EQ(f.fix[0].argv, (std::vector<std::string>{"sudo", "rm", "-rf", "--", "/home/ann/.nv/ComputeCache"}));
}

TEST(JitCacheCheck, FiveForeignEntriesAreNamedAndTheRestCounted) {
  MemoryFileSystem fs = cache_with_entries();
  for (int i = 0; i < 40; ++i) {
    std::string p = "/home/ann/.nv/ComputeCache/d" + std::to_string(i);
    fs.add_dir(p);
    fs.set_other_owner(p);
  }
  auto found = check_jit_cache(fs, user_env());
  ASSERT_EQ(found.size(), 1u);
  ASSERT_EQ(found[0].evidence.size(), 6u);
  EXPECT_EQ(found[0].evidence.back(), "and more");
}

TEST(JitCacheCheck, AFileOthersMayWriteOrALinkIsNoFinding) {
  MemoryFileSystem fs = cache_with_entries();
  fs.set_other_owner("/home/ann/.nv/ComputeCache/index");
  fs.set_mode("/home/ann/.nv/ComputeCache/index", 0666);  // anyone may update it
  // A link owned by another user, to a file of another user that only its owner may write: the
  // link is not the cache's own file (a stat-following check would report it).
  fs.add_file("/etc/secret", "x");
  fs.set_other_owner("/etc/secret");
  fs.add_symlink("/home/ann/.nv/ComputeCache/b", "/etc/secret");
  fs.set_other_owner("/home/ann/.nv/ComputeCache/b");
  EXPECT_TRUE(check_jit_cache(fs, user_env()).empty());
}

// A root-owned file its group may write is closed to a user outside that group, and open to one in it.
TEST(JitCacheCheck, AGroupWritableFileCountsOnlyForTheGroupsMembers) {
  MemoryFileSystem fs = cache_with_entries();
  fs.set_other_owner("/home/ann/.nv/ComputeCache/index");
  fs.set_mode("/home/ann/.nv/ComputeCache/index", 0664);
  auto found = check_jit_cache(fs, user_env());
  ASSERT_EQ(found.size(), 1u);
  ASSERT_EQ(found[0].evidence.size(), 1u);
  EXPECT_EQ(found[0].evidence[0], "/home/ann/.nv/ComputeCache/index: another user's, not writable by you");
  fs.set_our_group("/home/ann/.nv/ComputeCache/index");
  EXPECT_TRUE(check_jit_cache(fs, user_env()).empty());
}

TEST(JitCacheCheck, TheSuperuserMayWriteEverything) {
  MemoryFileSystem fs = cache_with_entries();
  fs.set_other_owner("/home/ann/.nv/ComputeCache/index");
  Environment root = user_env();  // sudo -E keeps the user's HOME
  root.effective_uid = 0;
  EXPECT_TRUE(check_jit_cache(fs, root).empty());
}

TEST(JitCacheCheck, AForeignDotNvWithoutACacheGetsItsOwnerBackByUid) {
  MemoryFileSystem fs;
  fs.add_dir("/home/ann/.nv");
  fs.set_other_owner("/home/ann/.nv");
  auto found = check_jit_cache(fs, user_env());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].evidence.at(0).rfind("/home/ann/.nv:", 0), 0u);
  ASSERT_EQ(found[0].fix.size(), 1u);
  EXPECT_EQ(found[0].fix[0].argv, (std::vector<std::string>{"sudo", "chown", "--", "1000", "/home/ann/.nv"}));
  Environment unknown_uid = user_env();
  unknown_uid.effective_uid = -1;
  auto plain = check_jit_cache(fs, unknown_uid);
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_FALSE(plain[0].fix.at(0).is_command());
  // With a cache of the user's own inside it, the cache can be updated: nothing to say.
  fs.add_dir("/home/ann/.nv/ComputeCache");
  EXPECT_TRUE(check_jit_cache(fs, user_env()).empty());
}

TEST(JitCacheCheck, ALinkedDotNvGetsNoDeletionThroughIt) {
  MemoryFileSystem fs;
  fs.add_dir("/data/elsewhere/ComputeCache");
  fs.add_file("/data/elsewhere/ComputeCache/index", "x");
  fs.set_other_owner("/data/elsewhere/ComputeCache/index");
  fs.add_dir("/home/ann");
  fs.add_symlink("/home/ann/.nv", "/data/elsewhere");
  auto found = check_jit_cache(fs, user_env());
  ASSERT_EQ(found.size(), 1u);
  for (const FixStep& s : found[0].fix) EXPECT_FALSE(s.is_command()) << "no rm through a link";
}

TEST(JitCacheCheck, AFolderTheUserNamedIsJudgedByItselfAndNeverChanged) {
  MemoryFileSystem fs;
  fs.add_dir("/tmp");
  fs.add_dir("/tmp/someone-elses");
  fs.set_other_owner("/tmp/someone-elses");  // other users' folders in a shared place: not the cache's
  Environment env = user_env();
  env.vars["CUDA_CACHE_PATH"] = "/tmp";
  EXPECT_TRUE(check_jit_cache(fs, env).empty());
  fs.set_other_owner("/tmp");
  auto found = check_jit_cache(fs, env);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].evidence.size(), 1u);
  for (const FixStep& s : found[0].fix) EXPECT_FALSE(s.is_command()) << "a plain step, no rm or chown";
  EXPECT_NE(found[0].fix.at(0).text.find("CUDA_CACHE_PATH"), std::string::npos);
  EXPECT_EQ(found[0].detail.find("deleting it is safe"), std::string::npos);
}

TEST(JitCacheCheck, ExplainsCheckHoldsOnDoctorsFindingAndIsOtherwiseUnknown) {
  Report r;
  r.os = "linux";
  MachineView m{&r, nullptr};
  EXPECT_EQ(run_check("cuda_jit_cache_unusable", m, {}, {}).verdict, Verdict::kUnknown)
      << "a damaged cache of the user's own cannot be seen from outside";
  MemoryFileSystem fs = cache_with_entries();
  fs.set_other_owner("/home/ann/.nv/ComputeCache/index");
  r.findings = check_jit_cache(fs, user_env());
  CheckResult held = run_check("cuda_jit_cache_unusable", m, {}, {});
  EXPECT_EQ(held.verdict, Verdict::kHolds);
  EXPECT_NE(held.evidence.find("/home/ann/.nv/ComputeCache"), std::string::npos);
}

}  // namespace
}  // namespace cudnnup
