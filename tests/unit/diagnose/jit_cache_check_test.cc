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
  env.vars["USER"] = "ann";
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
  EXPECT_EQ(cuda_jit_cache_dir(env), "/home/ann/.nv/ComputeCache");
  env.vars["CUDA_CACHE_PATH"] = "/scratch/cuda-cache";
  EXPECT_EQ(cuda_jit_cache_dir(env), "/scratch/cuda-cache");
  env.vars["CUDA_CACHE_PATH"] = "relative/cache";  // not a place anyone can name: the default
  EXPECT_EQ(cuda_jit_cache_dir(env), "/home/ann/.nv/ComputeCache");
  env.vars["CUDA_CACHE_DISABLE"] = "1";
  EXPECT_EQ(cuda_jit_cache_dir(env), "");
  Environment windows = user_env();
  windows.os = OsKind::kWindows;
  EXPECT_EQ(cuda_jit_cache_dir(windows), "");
  Environment homeless;
  EXPECT_EQ(cuda_jit_cache_dir(homeless), "");
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

TEST(JitCacheCheck, AFileOthersMayWriteOrALinkIsNoFinding) {
  MemoryFileSystem fs = cache_with_entries();
  fs.set_other_owner("/home/ann/.nv/ComputeCache/index");
  fs.set_mode("/home/ann/.nv/ComputeCache/index", 0666);  // anyone may update it
  fs.add_symlink("/home/ann/.nv/ComputeCache/b", "/elsewhere");
  fs.set_other_owner("/home/ann/.nv/ComputeCache/b");  // a link's owner does not decide who writes
  EXPECT_TRUE(check_jit_cache(fs, user_env()).empty());
}

TEST(JitCacheCheck, TheSuperuserMayWriteEverything) {
  MemoryFileSystem fs = cache_with_entries();
  fs.set_other_owner("/home/ann/.nv/ComputeCache/index");
  Environment root = user_env();  // sudo -E keeps the user's HOME
  root.superuser = true;
  EXPECT_TRUE(check_jit_cache(fs, root).empty());
}

TEST(JitCacheCheck, AForeignDotNvWithoutACacheIsAFindingAndGetsItsOwnerBack) {
  MemoryFileSystem fs;
  fs.add_dir("/home/ann/.nv");
  fs.set_other_owner("/home/ann/.nv");
  auto found = check_jit_cache(fs, user_env());
  ASSERT_EQ(found.size(), 1u);
  ASSERT_EQ(found[0].fix.size(), 2u);
  EXPECT_EQ(found[0].fix[1].argv, (std::vector<std::string>{"sudo", "chown", "--", "ann", "/home/ann/.nv"}));
}

TEST(JitCacheCheck, ACacheTheUserNamedIsNeverPrintedForDeletion) {
  MemoryFileSystem fs;
  fs.add_dir("/home/ann/work");  // CUDA_CACHE_PATH may name a folder that holds more than the cache
  fs.add_file("/home/ann/work/thesis.tex", "x");
  fs.set_other_owner("/home/ann/work/thesis.tex");
  Environment env = user_env();
  env.vars["CUDA_CACHE_PATH"] = "/home/ann/work";
  auto found = check_jit_cache(fs, env);
  ASSERT_EQ(found.size(), 1u);
  for (const FixStep& s : found[0].fix) EXPECT_FALSE(s.is_command()) << "a plain step, no rm";
  EXPECT_NE(found[0].fix.at(0).text.find("CUDA_CACHE_PATH"), std::string::npos);
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
