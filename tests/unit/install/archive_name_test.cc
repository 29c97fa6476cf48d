#include "install/archive_name.h"

#include <gtest/gtest.h>

namespace cudnnup {
namespace {

struct NameCase {
  const char* file;
  const char* version;
  ArchivePlatform platform;
  ArchiveArch arch;
  const char* cuda_variant;
  int cuda_major;
  ArchiveEra era;
  bool canonical;
  const char* top_dir;
};
// Names each case by its file name in test lists (ctest shows the printed parameter; without this
// it was the struct's raw bytes, pointers included, so the test names changed on every build).
void PrintTo(const NameCase& c, std::ostream* os) { *os << c.file; }

using P = ArchivePlatform;
using A = ArchiveArch;
using E = ArchiveEra;

const NameCase kCases[] = {
    // Legacy (<= 8.2).
    {"cudnn-10.2-linux-x64-v7.6.5.32.tgz", "7.6.5.32", P::kLinux, A::kX86_64, "10.2", 10, E::kLegacy, true, "cuda"},
    {"cudnn-11.2-linux-x64-v8.1.1.33.tgz", "8.1.1.33", P::kLinux, A::kX86_64, "11.2", 11, E::kLegacy, true, "cuda"},
    {"cudnn-10.2-linux-ppc64le-v7.6.5.32.tgz", "7.6.5.32", P::kLinux, A::kPpc64le, "10.2", 10, E::kLegacy, true, "cuda"},
    {"cudnn-11.4-linux-aarch64sbsa-v8.2.4.15.tgz", "8.2.4.15", P::kLinux, A::kSbsa, "11.4", 11, E::kLegacy, true, "cuda"},
    {"cudnn-10.2-windows10-x64-v7.6.5.32.zip", "7.6.5.32", P::kWindows, A::kX86_64, "10.2", 10, E::kLegacy, true, "cuda"},
    {"cudnn-11.2-windows-x64-v8.1.1.33.zip", "8.1.1.33", P::kWindows, A::kX86_64, "11.2", 11, E::kLegacy, true, "cuda"},
    {"cudnn-10.1-osx-x64-v7.6.5.32.tgz", "7.6.5.32", P::kMacos, A::kX86_64, "10.1", 10, E::kLegacy, true, "cuda"},
    // 8.3-8.4: CUDA major.minor suffix.
    {"cudnn-linux-x86_64-8.3.3.40_cuda11.5-archive.tar.xz", "8.3.3.40", P::kLinux, A::kX86_64, "11.5", 11, E::kArchive, true,
     "cudnn-linux-x86_64-8.3.3.40_cuda11.5-archive"},
    {"cudnn-linux-x86_64-8.3.3.40_cuda10.2-archive.tar.xz", "8.3.3.40", P::kLinux, A::kX86_64, "10.2", 10, E::kArchive, true,
     "cudnn-linux-x86_64-8.3.3.40_cuda10.2-archive"},
    {"cudnn-windows-x86_64-8.3.2.44_cuda11.5-archive.zip", "8.3.2.44", P::kWindows, A::kX86_64, "11.5", 11, E::kArchive, true,
     "cudnn-windows-x86_64-8.3.2.44_cuda11.5-archive"},
    // 8.5+ and 9.x: CUDA major suffix.
    {"cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz", "8.9.7.29", P::kLinux, A::kX86_64, "12", 12, E::kArchive, true,
     "cudnn-linux-x86_64-8.9.7.29_cuda12-archive"},
    {"cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip", "9.1.0.70", P::kWindows, A::kX86_64, "12", 12, E::kArchive, true,
     "cudnn-windows-x86_64-9.1.0.70_cuda12-archive"},
    {"cudnn-linux-sbsa-9.1.0.70_cuda11-archive.tar.xz", "9.1.0.70", P::kLinux, A::kSbsa, "11", 11, E::kArchive, true,
     "cudnn-linux-sbsa-9.1.0.70_cuda11-archive"},
    {"cudnn-linux-aarch64-9.1.0.70_cuda12-archive.tar.xz", "9.1.0.70", P::kLinux, A::kAarch64Jetson, "12", 12, E::kArchive,
     true, "cudnn-linux-aarch64-9.1.0.70_cuda12-archive"},
    {"cudnn-linux-ppc64le-9.0.0.312_cuda12-archive.tar.xz", "9.0.0.312", P::kLinux, A::kPpc64le, "12", 12, E::kArchive, true,
     "cudnn-linux-ppc64le-9.0.0.312_cuda12-archive"},
    {"cudnn-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz", "9.13.0.50", P::kLinux, A::kX86_64, "13", 13, E::kArchive, true,
     "cudnn-linux-x86_64-9.13.0.50_cuda13-archive"},
    {"cudnn-windows-arm64-9.27.0.42_cuda13-archive.zip", "9.27.0.42", P::kWindows, A::kArm64, "13", 13, E::kArchive, true,
     "cudnn-windows-arm64-9.27.0.42_cuda13-archive"},
    // The flat 9.27 windows-arm64 entry spells the variant with a minor.
    {"cudnn-windows-arm64-9.27.0.42_cuda13.4-archive.zip", "9.27.0.42", P::kWindows, A::kArm64, "13.4", 13, E::kArchive, true,
     "cudnn-windows-arm64-9.27.0.42_cuda13.4-archive"},
    // Hand-renamed forms seen in guides, and browser duplicates: recognised, marked non-canonical.
    {"cudnn-windows-x86-64-9.1.0.70-cuda12-archive.zip", "9.1.0.70", P::kWindows, A::kX86_64, "12", 12, E::kArchive, false,
     "cudnn-windows-x86_64-9.1.0.70_cuda12-archive"},
    {"cudnn_linux_x86_64_9.1.0.70_cuda12.tar.xz", "9.1.0.70", P::kLinux, A::kX86_64, "12", 12, E::kArchive, false,
     "cudnn-linux-x86_64-9.1.0.70_cuda12-archive"},
    {"CUDNN-Linux-X86_64-9.1.0.70_CUDA12-Archive.tar.xz", "9.1.0.70", P::kLinux, A::kX86_64, "12", 12, E::kArchive, false,
     "cudnn-linux-x86_64-9.1.0.70_cuda12-archive"},
    {"cudnn-linux-x86_64-9.1.0.70_cuda12-archive (1).tar.xz", "9.1.0.70", P::kLinux, A::kX86_64, "12", 12, E::kArchive, false,
     "cudnn-linux-x86_64-9.1.0.70_cuda12-archive"},
    {"/tmp/downloads/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar", "9.19.0.56", P::kLinux, A::kX86_64, "13", 13,
     E::kArchive, false, "cudnn-linux-x86_64-9.19.0.56_cuda13-archive"},
};

class ArchiveNameTable : public ::testing::TestWithParam<NameCase> {};

TEST_P(ArchiveNameTable, ParsesEveryField) {
  const NameCase& c = GetParam();
  auto parsed = parse_archive_name(c.file);
  ASSERT_TRUE(parsed.ok()) << c.file << ": " << parsed.error().message;
  EXPECT_EQ(parsed->version.str(), c.version) << c.file;
  EXPECT_EQ(parsed->platform, c.platform) << c.file;
  EXPECT_EQ(parsed->arch, c.arch) << c.file;
  EXPECT_EQ(parsed->cuda_variant, c.cuda_variant) << c.file;
  EXPECT_EQ(parsed->cuda_major, c.cuda_major) << c.file;
  EXPECT_EQ(parsed->era, c.era) << c.file;
  EXPECT_EQ(parsed->canonical, c.canonical) << c.file << " vs " << parsed->canonical_name;
  EXPECT_EQ(parsed->expected_top_dir(), c.top_dir) << c.file;
}

INSTANTIATE_TEST_SUITE_P(AllEras, ArchiveNameTable, ::testing::ValuesIn(kCases));

TEST(ArchiveName, PlatformKeysMatchRedistribManifests) {
  EXPECT_EQ(parse_archive_name("cudnn-linux-aarch64-9.1.0.70_cuda12-archive.tar.xz")->platform_key(), "linux-aarch64");
  EXPECT_EQ(parse_archive_name("cudnn-11.4-linux-aarch64sbsa-v8.2.4.15.tgz")->platform_key(), "linux-sbsa");
  EXPECT_EQ(parse_archive_name("cudnn-windows-x86-64-9.1.0.70-cuda12-archive.zip")->platform_key(), "windows-x86_64");
}

TEST(ArchiveName, RefusesOtherArchivesWithTheReason) {
  auto samples = parse_archive_name("cudnn_samples-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz");
  ASSERT_FALSE(samples.ok());
  EXPECT_EQ(samples.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(samples.error().message.find("samples"), std::string::npos);

  auto jit = parse_archive_name("cudnn_jit-linux-x86_64-9.10.0.56_cuda12-archive.tar.xz");
  ASSERT_FALSE(jit.ok());
  EXPECT_EQ(jit.error().code, ErrorCode::kUnsupported);

  for (const char* bad : {"cudnn.zip", "libcudnn9-cuda-12_9.1.0.70-1_amd64.deb", "cudnn-linux-x86_64-9.1_cuda12-archive.tar.xz",
                          "cudnn-linux-arm64-9.1.0.70_cuda12-archive.tar.xz", "cudnn-windows-sbsa-9.1.0.70_cuda12-archive.zip",
                          "cudnn_9.5.1_windows.exe"}) {
    auto r = parse_archive_name(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.error().message.find(bad), std::string::npos) << r.error().message;
    }
  }
}

// Names the archive_name fuzz target (fuzz/) found crashing the parser before numbers were
// parsed through one checked helper: a CUDA variant too long for an int (uncaught
// std::out_of_range from std::stoi) and version parts of ten digits (a use of a destroyed
// temporary in Version::str, the SIGSEGV of an ordinary build). Now they are not archive names.
TEST(ArchiveName, NumbersThatDoNotFitAreNotArchiveNames) {
  for (const char* name : {"cudnn-linux-sbsa-9.19.0.56_cuda1255555555555555555555555555-archive.tar.xz",
                           "cudnn-linux-sbsa-47.29.2077777777.56_cuda12-archive.tar.xz",
                           "cudnn-linux-sbsa-7.0977777777777777777777777777.20.56_cuda1-archive.tar.xz",
                           "cudnn-linux-x86_64-9.1.0.70_cuda99999999999-archive.tar.xz"}) {
    auto r = parse_archive_name(name);
    EXPECT_FALSE(r.ok()) << name << " parsed as " << (r.ok() ? r->version.str() + " cuda " + r->cuda_variant : "");
  }
}

}  // namespace
}  // namespace cudnnup
