// The PE reader against real DLLs built by mingw-w64 from tests/fixtures/windows (with a
// VERSIONINFO resource of a known version), and against damaged copies of them.
#include "binfmt/pe.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "platform/real_filesystem.h"
#include "support/windows_fixtures.h"

namespace cudnnup {
namespace {

using testing::windows_fixture_dll;

std::string read_all(const std::string& path) {
  auto fs = make_real_filesystem();
  auto size = fs->stat(path);
  auto bytes = fs->read_file(path, size ? size_t(size->size) : 0);
  EXPECT_TRUE(bytes) << path << ": " << (bytes ? "" : bytes.error().message);
  return bytes ? *bytes : std::string();
}

Result<PeInfo> parse_bytes(const std::string& bytes) {
  RangeReader reader = [&bytes](uint64_t offset, size_t n) -> Result<std::string> {
    if (offset >= bytes.size()) return std::string();
    return bytes.substr(size_t(offset), n);
  };
  return parse_pe(reader, bytes.size());
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

bool imports_dll(const PeInfo& info, const std::string& name) {
  for (const auto& i : info.imports) {
    if (lower(i) == lower(name)) return true;
  }
  return false;
}

// The bytes of a stub DLL, or skip the test when this build has no mingw-w64.
#define LOAD_STUB_OR_SKIP(var, variant, name)                                     \
  auto var##_path = windows_fixture_dll(variant, name);                           \
  if (!var##_path) GTEST_SKIP() << testing::kNoWindowsFixtures;                   \
  std::string var = read_all(*var##_path);                                        \
  ASSERT_GT(var.size(), 1024u)

TEST(PeReader, ReadsMachineDllFlagImportsAndVersionResource) {
  LOAD_STUB_OR_SKIP(bytes, "v9.19.0.56", "cudnn64_9.dll");
  auto info = parse_bytes(bytes);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->machine, kPeMachineX64);
  EXPECT_EQ(pe_machine_name(info->machine), "x64");
  EXPECT_TRUE(info->pe32_plus);
  EXPECT_TRUE(info->is_dll);
  EXPECT_TRUE(imports_dll(*info, "cudnn_graph64_9.dll")) << "the shim stub imports the graph stub";
  EXPECT_TRUE(imports_dll(*info, "KERNEL32.dll"));
  ASSERT_TRUE(info->file_version);
  EXPECT_EQ(pe_version_string(*info->file_version), "9.19.0.56");
  ASSERT_TRUE(info->product_version);
  EXPECT_EQ(pe_version_string(*info->product_version), "9.19.0.56");
  EXPECT_EQ(info->file_version_text, "9.19.0.56");
  EXPECT_EQ(info->file_description, "cudnnup test stub of NVIDIA CUDA Deep Neural Network library");
  EXPECT_EQ(info->product_name, "cudnnup test stub");
  EXPECT_TRUE(info->problems.empty()) << info->problems.front();
}

// The variant whose cnn DLL imports zlibwapi.dll, as cuDNN 8.3 up to 9.2 do: doctor's zlibwapi
// check reads exactly this (diagnose/windows_dll_checks.h).
TEST(PeReader, ReadsTheZlibwapiImport) {
  LOAD_STUB_OR_SKIP(bytes, "v9.1.0.70-zlibwapi", "cudnn_cnn64_9.dll");
  auto info = parse_bytes(bytes);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_TRUE(imports_dll(*info, "zlibwapi.dll"));
  LOAD_STUB_OR_SKIP(shim, "v9.1.0.70-zlibwapi", "cudnn64_9.dll");
  auto shim_info = parse_bytes(shim);
  ASSERT_TRUE(shim_info);
  EXPECT_FALSE(imports_dll(*shim_info, "zlibwapi.dll"));
}

TEST(PeReader, ReadsEightXNamesAndVersions) {
  LOAD_STUB_OR_SKIP(bytes, "v8.9.7.29", "cudnn_ops_infer64_8.dll");
  auto info = parse_bytes(bytes);
  ASSERT_TRUE(info) << info.error().message;
  ASSERT_TRUE(info->file_version);
  EXPECT_EQ(pe_version_string(*info->file_version), "8.9.7.29");
  EXPECT_FALSE(imports_dll(*info, "cudnn_graph64_9.dll"));
}

TEST(PeReader, EmptyFileIsAnError) {
  auto info = parse_bytes("");
  ASSERT_FALSE(info);
  EXPECT_EQ(info.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(info.error().message.find("empty (0 bytes)"), std::string::npos);
}

TEST(PeReader, TextFileIsNotPe) {
  auto info = parse_bytes("version https://git-lfs.github.com/spec/v1\noid sha256:0\n");
  ASSERT_FALSE(info);
  EXPECT_EQ(info.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(info.error().message.find("not a PE file"), std::string::npos);
}

TEST(PeReader, DosStubWithoutPeSignatureIsNotPe) {
  std::string bytes(128, '\0');
  bytes[0] = 'M';
  bytes[1] = 'Z';
  bytes[0x3c] = 64;  // e_lfanew -> zeros
  auto info = parse_bytes(bytes);
  ASSERT_FALSE(info);
  EXPECT_NE(info.error().message.find("PE signature"), std::string::npos);
}

TEST(PeReader, CopyCutShortIsReportedAsTruncated) {
  LOAD_STUB_OR_SKIP(bytes, "v9.19.0.56", "cudnn64_9.dll");
  // Keep the headers, lose the tail (a failed download or a full disk).
  std::string cut = bytes.substr(0, bytes.size() * 2 / 3);
  auto info = parse_bytes(cut);
  ASSERT_TRUE(info) << info.error().message;
  ASSERT_FALSE(info->problems.empty());
  EXPECT_EQ(info->problems.front().rfind("truncated: section ", 0), 0u) << info->problems.front();
  EXPECT_NE(info->problems.front().find("but the file has " + std::to_string(cut.size()) + " bytes"),
            std::string::npos);
}

TEST(PeReader, HeadersCutShortIsAnError) {
  LOAD_STUB_OR_SKIP(bytes, "v9.19.0.56", "cudnn64_9.dll");
  auto info = parse_bytes(bytes.substr(0, 100));
  ASSERT_FALSE(info);
  EXPECT_EQ(info.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(info.error().message.find("truncated"), std::string::npos);
}

// Debian 12 installs no i686 mingw by default, so the "x86 DLL" is an x64 stub with its COFF
// Machine field patched to IMAGE_FILE_MACHINE_I386: what the loader checks first.
std::string patched_to_x86(std::string bytes) {
  uint32_t pe_offset = 0;
  for (int i = 3; i >= 0; --i) pe_offset = (pe_offset << 8) | static_cast<unsigned char>(bytes[0x3c + i]);
  bytes[pe_offset + 4] = char(0x4c);
  bytes[pe_offset + 5] = char(0x01);
  return bytes;
}

TEST(PeReader, WrongMachineIsReported) {
  LOAD_STUB_OR_SKIP(bytes, "v9.19.0.56", "cudnn_ops64_9.dll");
  auto info = parse_bytes(patched_to_x86(bytes));
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->machine, kPeMachineX86);
  EXPECT_EQ(pe_machine_name(info->machine), "x86");
  ASSERT_FALSE(info->problems.empty());
  EXPECT_NE(info->problems.front().find("inconsistent headers: machine x86"), std::string::npos);
}

TEST(PeReader, MachineNamesForUnknownValues) {
  EXPECT_EQ(pe_machine_name(kPeMachineArm64), "arm64");
  EXPECT_EQ(pe_machine_name(0x01c4), "machine 0x01c4");
}

}  // namespace
}  // namespace cudnnup
