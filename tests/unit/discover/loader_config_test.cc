// The machine's ld.so configuration read from bytes: SYSTEM_DIRS, the glibc banner, CPU features
// and the hardware-capability subdirectories each glibc release searches. The real ld.so is
// checked against `ld.so --help` in tests/disk/loader_differential_test.cc.
#include "discover/loader_config.h"

#include <gtest/gtest.h>

#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using namespace std::string_literals;
using testing::MemoryFileSystem;

// The bytes around SYSTEM_DIRS as glibc's gen-trusted-dirs.awk lays them out: each directory
// NUL-terminated, the list ended by an empty string.
std::string ld_so_with(const std::string& dirs_block, const std::string& banner) {
  return "\x7f" "ELF junk\0/etc/ld.so.cache\0\0\0"s + dirs_block + "\0more\0"s + banner + "\0"s;
}
const std::string kDebianDirs = "/lib/x86_64-linux-gnu/\0/usr/lib/x86_64-linux-gnu/\0/lib/\0/usr/lib/\0"s;

const char* kIntelFlags =
    "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu pni ssse3 fma cx16 sse4_1 sse4_2 movbe popcnt xsave avx "
    "f16c lahf_lm abm bmi1 avx2 bmi2 avx512f avx512dq avx512cd avx512bw avx512vl\n\nprocessor\t: 1\nflags\t\t: fpu\n";

TEST(LoaderConfig, FindsSystemDirsOfEachLayout) {
  EXPECT_EQ(find_system_dirs(ld_so_with(kDebianDirs, "")),
            (std::vector<std::string>{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib"}));
  EXPECT_EQ(find_system_dirs(ld_so_with("/lib64/\0/usr/lib64/\0"s, "")), (std::vector<std::string>{"/lib64", "/usr/lib64"}));
  // A lone path, or paths that are not directories, are not the list.
  EXPECT_TRUE(find_system_dirs("\0/lib/\0x\0"s).empty());
  EXPECT_TRUE(find_system_dirs("\0/lib/libc.so.6\0/usr/lib/\0\0"s).empty());
  EXPECT_TRUE(find_system_dirs("").empty());
}

TEST(LoaderConfig, ReadsTheGlibcRelease) {
  EXPECT_EQ(find_glibc_release("ld.so (Debian GLIBC 2.36-9+deb12u14) stable release version 2.36."), (Version{2, 36}));
  EXPECT_EQ(find_glibc_release("GNU C Library (GNU libc) release release version 2.31.\0"s), (Version{2, 31}));
  EXPECT_FALSE(find_glibc_release("release version x"));
}

TEST(LoaderConfig, X8664LevelsPlatformAndHwcapNames) {
  CpuFeatures intel = parse_cpuinfo(kIntelFlags);
  EXPECT_EQ(intel.vendor, "GenuineIntel");
  EXPECT_EQ(x86_64_hwcaps_levels(intel), (std::vector<std::string>{"x86-64-v4", "x86-64-v3", "x86-64-v2"}));
  EXPECT_EQ(x86_64_platform(intel), "haswell");
  EXPECT_EQ(x86_64_hwcap_names(intel), (std::vector<std::string>{"avx512_1", "x86_64"}));
  CpuFeatures amd = intel;
  amd.vendor = "AuthenticAMD";
  EXPECT_EQ(x86_64_platform(amd), "x86_64") << "glibc sets a platform only on Intel CPUs";
  EXPECT_EQ(x86_64_hwcap_names(amd), (std::vector<std::string>{"x86_64"}));
  CpuFeatures old = parse_cpuinfo("vendor_id : GenuineIntel\nflags : pni ssse3 cx16 sse4_1 sse4_2 popcnt lahf_lm\n");
  EXPECT_EQ(x86_64_hwcaps_levels(old), (std::vector<std::string>{"x86-64-v2"}));
  EXPECT_EQ(x86_64_platform(old), "x86_64");
}

TEST(LoaderConfig, LegacyPowerSetInLdSoOrder) {
  // As glibc 2.36 on an AVX-512 Intel CPU searches them (LD_DEBUG=libs "search path=").
  auto dirs = legacy_hwcaps_subdirs({"tls", "haswell", "avx512_1", "x86_64"});
  ASSERT_EQ(dirs.size(), 15u);
  EXPECT_EQ(dirs.front(), "tls/haswell/avx512_1/x86_64");
  EXPECT_EQ(dirs[1], "tls/haswell/avx512_1");
  EXPECT_EQ(dirs[2], "tls/haswell/x86_64");
  EXPECT_EQ(dirs[7], "tls");
  EXPECT_EQ(dirs[8], "haswell/avx512_1/x86_64");
  EXPECT_EQ(dirs.back(), "x86_64");
}

class LoaderConfigOnAMachine : public ::testing::Test {
 protected:
  void machine(const std::string& release) {
 fs.add_file("/lib64/ld-linux-x86-64.so.2", ld_so_with(kDebianDirs, "ld.so (GNU libc) stable release version " + release + "."));
    fs.add_file("/proc/cpuinfo", kIntelFlags);
  }
  MemoryFileSystem fs;
};

TEST_F(LoaderConfigOnAMachine, Glibc236SearchesBothKindsOfSubdirectories) {
  machine("2.36");
  LoaderConfig cfg = read_loader_config(fs, true, 62);
  EXPECT_EQ(cfg.system_dirs.front(), "/lib/x86_64-linux-gnu");
  EXPECT_EQ(cfg.lib_token, "lib/x86_64-linux-gnu");
  EXPECT_EQ(cfg.platform, "haswell");
  EXPECT_EQ(cfg.glibc_version, (Version{2, 36}));
  EXPECT_EQ(cfg.hwcaps.size(), 3u);
  EXPECT_EQ(cfg.legacy_hwcaps.size(), 15u);
}

TEST_F(LoaderConfigOnAMachine, Glibc237DroppedTheLegacyOnesAnd232HadNoGlibcHwcaps) {
  machine("2.37");
  LoaderConfig new_one = read_loader_config(fs, true, 62);
  EXPECT_EQ(new_one.hwcaps.size(), 3u);
  EXPECT_TRUE(new_one.legacy_hwcaps.empty());
  machine("2.32");
  LoaderConfig old_one = read_loader_config(fs, true, 62);
  EXPECT_TRUE(old_one.hwcaps.empty());
  EXPECT_EQ(old_one.legacy_hwcaps.size(), 15u);
}

TEST_F(LoaderConfigOnAMachine, FallsBackToTheLayoutAndSaysSo) {
  fs.add_dir("/usr/lib64");
  LoaderConfig cfg = read_loader_config(fs, true, 62);
  EXPECT_EQ(cfg.system_dirs, (std::vector<std::string>{"/lib64", "/usr/lib64"}));
  EXPECT_FALSE(cfg.glibc_version);
  EXPECT_FALSE(cfg.notes.empty());
  EXPECT_TRUE(cfg.hwcaps.empty());
}

}  // namespace
}  // namespace cudnnup
