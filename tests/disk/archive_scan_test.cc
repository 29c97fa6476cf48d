#include "install/archive_scan.h"

#include "app/commands/install_services.h"

#if CUDNNUP_HAVE_INSTALL

#include <gtest/gtest.h>

#include <filesystem>

#include "platform/real_filesystem.h"
#include "support/archive_builder.h"
#include "support/fixture_libs.h"

namespace cudnnup {
namespace {

using testing::ArchiveFormat;
using testing::FakeEntry;
using testing::OfficialLayout;

const std::string kLinuxTop = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive";
const std::string kWindowsTop = "cudnn-windows-x86_64-9.19.0.56_cuda13-archive";

#ifdef _WIN32
#define SKIP_WITHOUT_LINUX_STUBS() GTEST_SKIP() << "needs the Linux stub libraries (ELF, built by tests/fixtures on Linux) and .tar.xz, which the Windows build does not read; the Windows layout is tested in installer_windows_layout_test.cc"
#else
#define SKIP_WITHOUT_LINUX_STUBS() (void)0
#endif

class ArchiveScan : public ::testing::Test {
 protected:
  std::unique_ptr<FileSystem> fs = make_real_filesystem();
  testing::TempDir tmp;

  Result<ScanResult> scan(const std::string& file, const std::vector<FakeEntry>& entries, ArchiveFormat format,
                          ExtractionLimits limits = {}) {
    std::string path = tmp / file;
    testing::write_archive(path, entries, format);
    ScanOptions options;
    auto name = parse_archive_name(file);
    if (name) options.name = *name;
    options.limits = limits;
    return scan_archive(*fs, path, options, install_services(nullptr));
  }
  static std::vector<FakeEntry> linux_entries() { return testing::official_entries(OfficialLayout{kLinuxTop}); }
};

TEST_F(ArchiveScan, OfficialLinuxArchiveIsConfirmedFromItsContents) {
  SKIP_WITHOUT_LINUX_STUBS();
  auto r = scan(kLinuxTop + ".tar.xz", linux_entries(), ArchiveFormat::kTarXz);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->report.ok()) << r->report.errors.front();
  EXPECT_EQ(r->top_dir, kLinuxTop);
  EXPECT_EQ(r->report.header_version.str(), "9.19.0");
  EXPECT_EQ(r->report.platform, ArchivePlatform::kLinux);
  EXPECT_EQ(r->report.machine, "x86_64");
  EXPECT_EQ(r->report.library_major, 9);
  EXPECT_TRUE(r->report.missing.empty());
  for (const auto& item : r->items) {
    if (item.kind == EntryKind::kFile) {
      EXPECT_EQ(item.sha256.size(), 64u) << item.rel;
    }
  }
}

TEST_F(ArchiveScan, OfficialWindowsZipIsConfirmedAsPe) {
  OfficialLayout l{kWindowsTop};
  l.windows = true;
  auto r = scan(kWindowsTop + ".zip", testing::official_entries(l), ArchiveFormat::kZip);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->report.ok()) << r->report.errors.front();
  EXPECT_EQ(r->report.platform, ArchivePlatform::kWindows);
  EXPECT_EQ(r->report.machine, "x86_64");
}

TEST_F(ArchiveScan, Cudnn8ArchiveNeedsTheInferTrainSet) {
  SKIP_WITHOUT_LINUX_STUBS();
  std::string top = "cudnn-linux-x86_64-8.9.7.29_cuda12-archive";
  OfficialLayout l{top, 8, 9, 7, "v8.9.7"};
  auto r = scan(top + ".tar.gz", testing::official_entries(l), ArchiveFormat::kTarGz);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->report.ok()) << r->report.errors.front();
  EXPECT_EQ(r->report.library_major, 8);
}

// The hostile and broken corpus: each is refused, and the message says why.
struct Hostile {
  const char* label;
  std::function<void(std::vector<FakeEntry>&)> mutate;
  const char* why;
};

TEST_F(ArchiveScan, HostileCorpusIsRefusedWithAReason) {
  SKIP_WITHOUT_LINUX_STUBS();
  const std::string t = kLinuxTop + "/";
  std::vector<Hostile> corpus = {
      {"traversal", [&](auto& e) { e.push_back({t + "../../evil.sh", EntryKind::kFile, "x"}); }, "path traversal"},
      {"absolute", [&](auto& e) { e.push_back({"/tmp/evil.sh", EntryKind::kFile, "x"}); }, "absolute"},
      {"symlink escape", [&](auto& e) { e.push_back({t + "lib/libevil.so", EntryKind::kSymlink, {}, "/etc/passwd"}); }, "outside"},
      {"relative symlink escape", [&](auto& e) { e.push_back({t + "lib/up", EntryKind::kSymlink, {}, "../../.."}); }, "above the version directory"},
      {"hard link", [&](auto& e) { e.push_back({t + "lib/hl", EntryKind::kHardlink, {}, "/etc/passwd"}); }, "hard link"},
      {"device node", [&](auto& e) { e.push_back({t + "lib/null", EntryKind::kDevice}); }, "device node"},
      {"case collision", [&](auto& e) { e.push_back({t + "include/CUDNN_VERSION.h", EntryKind::kFile, "x"}); }, "letter case"},
      {"duplicate", [&](auto& e) { e.push_back({t + "include/cudnn.h", EntryKind::kFile, "x"}); }, "duplicate"},
      {"second top folder", [&](auto& e) { e.push_back({"other/readme", EntryKind::kFile, "x"}); }, "single top folder"},
      {"0-byte library", [&](auto& e) {
         for (auto& x : e) if (x.path == t + "lib/libcudnn_ops.so.9.19.0") x.data.clear();
       }, "empty (0 bytes)"},
      {"missing sub-library", [&](auto& e) {
         std::erase_if(e, [&](const FakeEntry& x) { return x.path.find("libcudnn_cnn.so") != std::string::npos; });
       }, "'cnn' sub-library"},
      {"not a library", [&](auto& e) {
         for (auto& x : e) if (x.path == t + "lib/libcudnn_graph.so.9.19.0") x.data = "<html>404 Not Found</html>";
       }, "not a shared library"},
      {"wrong platform", [&](auto& e) {
         for (auto& x : e) if (x.path == t + "lib/libcudnn_graph.so.9.19.0") x.data = testing::fake_pe();
       }, "mixes Linux (ELF) and Windows (PE)"},
      {"header says another version", [&](auto& e) {
         for (auto& x : e) if (x.path == t + "include/cudnn_version.h") x.data = testing::cudnn_version_header(9, 1, 0);
       }, "says 9.1.0"},
  };
  for (const auto& h : corpus) {
    auto entries = linux_entries();
    h.mutate(entries);
    auto r = scan(kLinuxTop + ".tar.xz", entries, ArchiveFormat::kTarXz);
    std::string message = !r.ok() ? r.error().message : r->report.errors.empty() ? "" : r->report.errors.front();
    if (r.ok()) {
      for (const auto& e : r->report.errors) message += " | " + e;
    }
    EXPECT_TRUE(!r.ok() || !r->report.ok()) << h.label << " was accepted";
    EXPECT_NE(message.find(h.why), std::string::npos) << h.label << ": " << message;
  }
}

TEST_F(ArchiveScan, WindowsLibrariesUnderALinuxNameAreTheWrongPlatform) {
  SKIP_WITHOUT_LINUX_STUBS();
  OfficialLayout l{kLinuxTop};
  l.windows = true;  // Windows contents inside a folder named for Linux
  auto r = scan(kLinuxTop + ".tar.xz", testing::official_entries(l), ArchiveFormat::kTarXz);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_FALSE(r->report.ok());
  bool found = false;
  for (const auto& e : r->report.errors) found |= e.find("wrong platform") != std::string::npos;
  EXPECT_TRUE(found);
}

TEST_F(ArchiveScan, NameAndTopFolderMustAgreeOnTheCudaMajor) {
  SKIP_WITHOUT_LINUX_STUBS();
  // Renamed to claim CUDA 12, but the folder inside is the CUDA 13 build.
  auto r = scan("cudnn-linux-x86_64-9.19.0.56_cuda12-archive.tar.xz", linux_entries(), ArchiveFormat::kTarXz);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_FALSE(r->report.ok());
  EXPECT_NE(r->report.errors.front().find("CUDA 12 but the top folder says CUDA 13"), std::string::npos) << r->report.errors.front();
}

TEST_F(ArchiveScan, TruncatedArchiveIsRefused) {
  SKIP_WITHOUT_LINUX_STUBS();
  std::string path = tmp / (kLinuxTop + ".tar");
  testing::write_archive(path, linux_entries(), ArchiveFormat::kTar);
  auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, size / 2);
  ScanOptions options;
  options.name = *parse_archive_name(path);
  auto r = scan_archive(*fs, path, options, install_services(nullptr));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(r.error().message.find("truncated"), std::string::npos) << r.error().message;
}

TEST_F(ArchiveScan, ZipBombIsStoppedAtTheBound) {
  SKIP_WITHOUT_LINUX_STUBS();
  auto entries = linux_entries();
  entries.push_back({kLinuxTop + "/lib/zeros.bin", EntryKind::kFile, std::string(20 << 20, '\0')});
  ExtractionLimits limits;
  limits.floor_bytes = 4 << 20;  // the default floor is 256 MiB; keep the test small
  auto r = scan(kLinuxTop + ".zip", entries, ArchiveFormat::kZip, limits);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("decompression bomb"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace cudnnup

#endif  // CUDNNUP_HAVE_INSTALL
