// Install and uninstall of Windows archives (.zip: bin\, bin\x64\, include\, lib\x64\) into the
// store and merged into a CUDA toolkit laid out like C:\Program Files\NVIDIA GPU Computing
// Toolkit\CUDA\v12.4. The install core is OS-neutral (InstallOptions::windows says which layout),
// so these run in the Linux build too; in the Windows build (under Wine) they also exercise the
// Win32 filesystem, CNG SHA-256 and the mingw-w64 libarchive.
#include "app/commands/install_services.h"
#include "install/install_pipeline.h"
#include "install/uninstall.h"

#if CUDNNUP_HAVE_INSTALL
#include "platform/sha256.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>

#include "base/paths.h"
#include "install/transaction.h"
#include "platform/real_filesystem.h"
#include "support/archive_builder.h"
#include "support/fixture_libs.h"
#include "support/memory_fs.h"
#include "support/tree_snapshot.h"

namespace cudnnup {
namespace {

namespace stdfs = std::filesystem;
using testing::ArchiveFormat;
using testing::FakeEntry;
using testing::MemoryFileSystem;
using testing::OfficialLayout;
using testing::disk_tree;
using testing::memory_tree;

const std::string kTop12 = "cudnn-windows-x86_64-9.1.0.70_cuda12-archive";
const std::string kTop13 = "cudnn-windows-x86_64-9.19.0.56_cuda13-archive";

std::vector<FakeEntry> windows_entries(const std::string& top, int minor, bool bin_x64 = false) {
  OfficialLayout l{top, 9, minor, 0};
  l.windows = true;
  l.windows_bin_x64 = bin_x64;
  return testing::official_entries(l);
}

class WindowsInstall : public ::testing::Test {
 protected:
  std::unique_ptr<FileSystem> disk = make_real_filesystem();
  testing::TempDir tmp;
  StoreLayout store{tmp / "LocalAppData/cudnnup"};

  std::string make_archive(const std::string& file, const std::vector<FakeEntry>& entries) {
    std::string path = tmp / file;
    testing::write_archive(path, entries, ArchiveFormat::kZip);
    return path;
  }
  std::string archive12() { return make_archive(kTop12 + ".zip", windows_entries(kTop12, 1)); }

  InstallOptions options(const std::string& archive) {
    InstallOptions o;
    o.archive = archive;
    o.windows = true;
    o.txid = "tx-win";
    o.now_iso = "2026-11-30T00:00:00Z";
    o.cudnnup_version = "test";
    o.host_machine = "x86_64";
    return o;
  }
  // CUDA\v12.4 as the NVIDIA installer lays it out, with a cuDNN 8 DLL someone copied in by hand.
  std::string make_toolkit(const std::string& version_define = "12040") {
    std::string root = tmp / "Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4";
    testing::write_text(root + "/include/cuda.h", "#define CUDA_VERSION " + version_define + "\n");
    testing::write_text(root + "/bin/cudart64_12.dll", "cudart");
    testing::write_text(root + "/lib/x64/cudart.lib", "cudart import lib");
    testing::write_text(root + "/bin/cudnn64_8.dll", "old cuDNN 8 shim");
    return root;
  }
};

TEST_F(WindowsInstall, StoreInstallOfAWindowsZipAndUninstall) {
  auto r = run_install(*disk, *disk, store, options(archive12()), install_services(nullptr));
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::string dir = store.version_dir("9.1.0.70+cuda12");
  EXPECT_EQ(r->plan.target, dir);
  EXPECT_EQ(r->scan.report.platform, ArchivePlatform::kWindows);
  EXPECT_TRUE(stdfs::is_regular_file(dir + "/bin/cudnn64_9.dll"));
  EXPECT_TRUE(stdfs::is_regular_file(dir + "/bin/cudnn_graph64_9.dll"));
  EXPECT_TRUE(stdfs::is_regular_file(dir + "/lib/x64/cudnn.lib"));
  EXPECT_TRUE(stdfs::is_regular_file(dir + "/include/cudnn_version.h"));
  auto m = manifest_from_json(testing::read_file_bytes(dir + "/" + StoreLayout::kManifestName), "m");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->platform, "windows-x86_64");
  int files = 0;
  for (const auto& f : m->files) {
    if (f.kind != EntryKind::kFile) continue;
    ++files;
    EXPECT_EQ(f.size, stdfs::file_size(dir + "/" + f.path)) << f.path;
    EXPECT_EQ(f.sha256.size(), 64u) << f.path;
  }
  EXPECT_GT(files, 20);
  EXPECT_TRUE(stdfs::is_empty(store.journal_dir()));

  UninstallOptions u;
  u.version = "9.1";
  u.windows = true;
  u.txid = "tx-un";
  auto un = run_uninstall(*disk, store, u, sha256_hasher());
  ASSERT_TRUE(un.ok()) << un.error().message;
  EXPECT_FALSE(stdfs::exists(dir));
}

TEST_F(WindowsInstall, MergeIntoCudaV124AndUninstallRestoresItByteForByte) {
  std::string cuda = make_toolkit();
  auto before = disk_tree(cuda);
  auto o = options(archive12());
  o.into = cuda;

  // The cuDNN 8 DLL would stay next to the 9 ones: refused, nothing changed.
  auto refused = run_install(*disk, *disk, store, o, install_services(nullptr));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
  EXPECT_NE(refused.error().message.find("cudnn64_8.dll"), std::string::npos) << refused.error().message;
  EXPECT_EQ(disk_tree(cuda), before);

  o.move_aside_old = true;
  auto r = run_install(*disk, *disk, store, o, install_services(nullptr));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->plan.mode, "merge");
  EXPECT_TRUE(stdfs::is_regular_file(cuda + "/bin/cudnn64_9.dll"));
  EXPECT_TRUE(stdfs::is_regular_file(cuda + "/bin/cudnn_ops64_9.dll"));
  EXPECT_TRUE(stdfs::is_regular_file(cuda + "/lib/x64/cudnn.lib"));
  EXPECT_TRUE(stdfs::is_regular_file(cuda + "/lib/x64/cudnn64_9.lib"));
  EXPECT_TRUE(stdfs::is_regular_file(cuda + "/include/cudnn_version.h"));
  EXPECT_FALSE(stdfs::exists(cuda + "/bin/cudnn64_8.dll")) << "moved aside";
  EXPECT_EQ(testing::read_file_bytes(cuda + "/bin/cudart64_12.dll"), "cudart");
  EXPECT_FALSE(stdfs::exists(cuda + "/LICENSE"));
  EXPECT_TRUE(stdfs::exists(cuda + "/.cudnnup/manifest.json"));
  auto m = manifest_from_json(testing::read_file_bytes(cuda + "/.cudnnup/manifest.json"), "m");
  ASSERT_TRUE(m.ok());
  for (const auto& f : m->files) {
    if (f.kind == EntryKind::kFile) {
      EXPECT_EQ(f.sha256.size(), 64u) << f.path;
    }
  }

  // Installing again is refused while the first install is in place.
  auto twice = run_install(*disk, *disk, store, o, install_services(nullptr));
  EXPECT_FALSE(twice.ok());

  UninstallOptions u;
  u.into = cuda;
  u.windows = true;
  u.txid = "tx-un";
  auto un = run_uninstall(*disk, store, u, sha256_hasher());
  ASSERT_TRUE(un.ok()) << un.error().message;
  EXPECT_EQ(disk_tree(cuda), before) << "the toolkit is exactly as it was";
}

TEST_F(WindowsInstall, ArchivesWithBinX64MergeIntoBinX64) {
  std::string cuda = make_toolkit("13000");
  std::filesystem::remove(cuda + "/bin/cudnn64_8.dll");
  auto before = disk_tree(cuda);
  auto o = options(make_archive(kTop13 + ".zip", windows_entries(kTop13, 19, true)));
  o.into = cuda;
  auto r = run_install(*disk, *disk, store, o, install_services(nullptr));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(stdfs::is_regular_file(cuda + "/bin/x64/cudnn64_9.dll"));
  EXPECT_TRUE(stdfs::is_regular_file(cuda + "/bin/x64/cudnn_graph64_9.dll"));
  EXPECT_FALSE(stdfs::exists(cuda + "/bin/cudnn64_9.dll"));
  UninstallOptions u;
  u.into = cuda;
  u.windows = true;
  u.txid = "tx-un";
  ASSERT_TRUE(run_uninstall(*disk, store, u, sha256_hasher()).ok());
  EXPECT_EQ(disk_tree(cuda), before);
}

TEST_F(WindowsInstall, ACudaMajorMismatchIsRefusedAndNothingChanges) {
  std::string cuda = make_toolkit("13000");  // a CUDA 13 toolkit, a _cuda12 archive
  auto before = disk_tree(cuda);
  auto o = options(archive12());
  o.into = cuda;
  o.move_aside_old = true;
  auto r = run_install(*disk, *disk, store, o, install_services(nullptr));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(r.error().message.find("is CUDA 13"), std::string::npos) << r.error().message;
  EXPECT_EQ(disk_tree(cuda), before);
}

TEST_F(WindowsInstall, WindowsLibrariesAreRefusedWhereTheyCannotLoad) {
  // The store of a Linux host (and, in the Windows build, reading a Linux .tar.xz is refused by name).
  auto o = options(archive12());
  o.windows = false;
  auto r = run_install(*disk, *disk, store, o, install_services(nullptr));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cannot load on Linux"), std::string::npos) << r.error().message;
  EXPECT_FALSE(stdfs::exists(store.version_dir("9.1.0.70+cuda12")));
}

#ifdef _WIN32
TEST_F(WindowsInstall, ALinuxTarXzIsRefusedByTheWindowsBuildWithTheReason) {
  std::string path = tmp / "cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz";
  testing::write_text(path, "\xfd" "7zXZ");
  auto r = run_install(*disk, *disk, store, options(path), install_services(nullptr));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find(".zip"), std::string::npos) << r.error().message;
  EXPECT_FALSE(stdfs::exists(store.versions_dir() + "/9.1.0.70+cuda12"));
}
#endif

// The hostile corpus in zip form, each merged into the toolkit: refused with a reason, and the
// toolkit and the store are byte-for-byte what they were.
TEST_F(WindowsInstall, HostileZipsAreRefusedAndTheToolkitIsUnchanged) {
  const std::string t = kTop12 + "/";
  struct Hostile {
    const char* label;
    std::function<void(std::vector<FakeEntry>&)> mutate;
    const char* why;
    bool bomb = false;
  };
  std::vector<Hostile> corpus = {
      {"traversal with backslashes", [&](auto& e) { e.push_back({t + "bin\\..\\..\\..\\evil.dll", EntryKind::kFile, "x"}); }, "traversal"},
      {"traversal with slashes", [&](auto& e) { e.push_back({t + "../../evil.dll", EntryKind::kFile, "x"}); }, "traversal"},
      {"absolute drive path", [&](auto& e) { e.push_back({"C:\\Windows\\System32\\evil.dll", EntryKind::kFile, "x"}); }, "absolute"},
      {"absolute drive path, forward slashes", [&](auto& e) { e.push_back({"C:/Windows/evil.dll", EntryKind::kFile, "x"}); }, "absolute"},
      {"drive-relative component", [&](auto& e) { e.push_back({t + "bin/C:evil.dll", EntryKind::kFile, "x"}); }, "drive letter"},
      {"alternate data stream", [&](auto& e) { e.push_back({t + "bin/cudnn64_9.dll:evil", EntryKind::kFile, "x"}); }, "alternate data stream"},
      {"trailing dot (Windows drops it: lands on cudnn64_9.dll)",
       [&](auto& e) { e.push_back({t + "bin/cudnn64_9.dll.", EntryKind::kFile, testing::fake_pe()}); }, "ending in '.'"},
      {"device name", [&](auto& e) { e.push_back({t + "bin/NUL.dll", EntryKind::kFile, "x"}); }, "device name"},
      {"invalid character", [&](auto& e) { e.push_back({t + "bin/a|b.dll", EntryKind::kFile, "x"}); }, "does not allow"},
      {"UNC path", [&](auto& e) { e.push_back({"\\\\server\\share\\evil.dll", EntryKind::kFile, "x"}); }, "absolute"},
      {"case collision", [&](auto& e) { e.push_back({t + "bin/CUDNN64_9.dll", EntryKind::kFile, testing::fake_pe()}); }, "letter case"},
      {"wrong platform", [&](auto& e) {
         for (auto& x : e) if (x.path == t + "bin/cudnn_ops64_9.dll") x.data = "\x7f" "ELF" + std::string(60, '\0');
       }, "ELF"},
      {"missing sub-library", [&](auto& e) {
         std::erase_if(e, [&](const FakeEntry& x) { return x.path.find("cudnn_cnn64_9.dll") != std::string::npos; });
       }, "'cnn' sub-library"},
      {"zip bomb", [&](auto& e) { e.push_back({t + "bin/zeros.bin", EntryKind::kFile, std::string(24 << 20, '\0')}); },
       "decompression bomb", true},
  };
  std::string cuda = make_toolkit();
  auto before = disk_tree(cuda);
  for (const auto& h : corpus) {
    auto entries = windows_entries(kTop12, 1);
    h.mutate(entries);
    auto o = options(make_archive(kTop12 + ".zip", entries));
    o.into = cuda;
    o.move_aside_old = true;
    if (h.bomb) o.limits.floor_bytes = 4 << 20;  // the default floor is 256 MiB; keep the test small
    auto r = run_install(*disk, *disk, store, o, install_services(nullptr));
    ASSERT_FALSE(r.ok()) << h.label << " was accepted";
    EXPECT_NE(r.error().message.find(h.why), std::string::npos) << h.label << ": " << r.error().message;
    EXPECT_EQ(disk_tree(cuda), before) << h.label << " changed the toolkit";
    auto left = disk->list_dir(store.journal_dir());
    EXPECT_TRUE(!left.ok() || left->empty()) << h.label << " left a journal";
    EXPECT_TRUE(!stdfs::exists(store.versions_dir()) || stdfs::is_empty(store.versions_dir())) << h.label;
  }
}

TEST_F(WindowsInstall, ATruncatedZipIsRefusedAndNothingChanges) {
  std::string path = archive12();
  stdfs::resize_file(path, stdfs::file_size(path) / 2);
  std::string cuda = make_toolkit();
  auto before = disk_tree(cuda);
  auto o = options(path);
  o.into = cuda;
  o.move_aside_old = true;
  auto r = run_install(*disk, *disk, store, o, install_services(nullptr));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kCorrupt) << r.error().message;
  EXPECT_EQ(disk_tree(cuda), before);
}

// Known answers (FIPS 180-2), through OpenSSL on Linux and CNG (BCrypt) on Windows, fed in pieces.
TEST(Sha256, KnownAnswersInOneAndManyPieces) {
  Sha256 empty;
  EXPECT_EQ(empty.hex_digest(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  Sha256 abc;
  abc.update("a");
  abc.update("bc");
  EXPECT_EQ(abc.hex_digest(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  Sha256 million;
  std::string chunk(1000, 'a');
  for (int i = 0; i < 1000; ++i) million.update(chunk);
  EXPECT_EQ(million.hex_digest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// --- On the in-memory filesystem: crashes at every write, and a toolkit the user cannot write. ---

const std::string kMemCuda = "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4";

MemoryFileSystem windows_memory_toolkit() {
  MemoryFileSystem fs;
  fs.add_file(kMemCuda + "/include/cuda.h", "#define CUDA_VERSION 12040\n");
  fs.add_file(kMemCuda + "/include/cudnn.h", "/* old cudnn.h */");
  fs.add_file(kMemCuda + "/bin/cudart64_12.dll", "cudart");
  fs.add_file(kMemCuda + "/bin/cudnn64_8.dll", "old 8");
  fs.add_dir("C:/Users/me/AppData/Local/cudnnup");
  return fs;
}

TEST_F(WindowsInstall, CrashAtEveryStepOfAMergeIntoCudaV124RecoversToOldOrNew) {
  std::string archive = archive12();
  StoreLayout mem_store{"C:/Users/me/AppData/Local/cudnnup"};
  MemoryFileSystem initial = windows_memory_toolkit();
  auto old_state = memory_tree(initial, kMemCuda);
  auto o = options(archive);
  o.into = kMemCuda;
  o.move_aside_old = true;

  MemoryFileSystem full = initial;
  auto ok = run_install(full, *disk, mem_store, o, install_services(nullptr));
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  auto new_state = memory_tree(full, kMemCuda);
  int total = full.writes_done;
  ASSERT_GT(total, 20);
  for (int k = 0; k < total; ++k) {
    MemoryFileSystem fs = initial;
    fs.fail_after_writes = k;
    (void)run_install(fs, *disk, mem_store, o, install_services(nullptr));
    fs.fail_after_writes.reset();
    TransactionRunner runner(fs, mem_store);
    auto rec = runner.recover();
    ASSERT_TRUE(rec.ok()) << "recovery after crash " << k << ": " << rec.error().message;
    auto recovered = memory_tree(fs, kMemCuda);
    EXPECT_TRUE(recovered == old_state || recovered == new_state) << "after recovery from a crash before write " << k;
  }

  // Uninstall restores the original exactly, and a crash there recovers to one side or the other.
  MemoryFileSystem installed = full;
  installed.writes_done = 0;
  UninstallOptions u;
  u.into = kMemCuda;
  u.windows = true;
  u.txid = "tx-un";
  MemoryFileSystem counted = installed;
  ASSERT_TRUE(run_uninstall(counted, mem_store, u, sha256_hasher()).ok());
  EXPECT_EQ(memory_tree(counted, kMemCuda), old_state);
  for (int k = 0; k < counted.writes_done; ++k) {
    MemoryFileSystem fs = installed;
    fs.fail_after_writes = k;
    (void)run_uninstall(fs, mem_store, u, sha256_hasher());
    fs.fail_after_writes.reset();
    TransactionRunner runner(fs, mem_store);
    ASSERT_TRUE(runner.recover().ok()) << k;
    auto recovered = memory_tree(fs, kMemCuda);
    EXPECT_TRUE(recovered == old_state || recovered == new_state) << "uninstall crash before write " << k;
  }
}

// C:\Program Files is writable only by administrators: every write under `prefix` is denied,
// or only the writes touching one file (an existing DLL with a restrictive ACL).
class DeniedUnder : public MemoryFileSystem {
 public:
  explicit DeniedUnder(std::string prefix) : prefix_(std::move(prefix)) {}
  Status make_dir(const std::string& p) override { return guard(p) ? denied(p) : MemoryFileSystem::make_dir(p); }
  Status write_file(const std::string& p, const std::string& c, bool s) override {
    return guard(p) ? denied(p) : MemoryFileSystem::write_file(p, c, s);
  }
  Status rename(const std::string& f, const std::string& t) override {
    return guard(f) || guard(t) ? denied(t) : MemoryFileSystem::rename(f, t);
  }
  Status remove(const std::string& p) override { return guard(p) ? denied(p) : MemoryFileSystem::remove(p); }

 private:
  bool guard(const std::string& p) const { return p.compare(0, prefix_.size(), prefix_) == 0; }
  Status denied(const std::string& p) const { return make_error(ErrorCode::kPermission, "Access is denied. (error 5): " + p, p); }
  std::string prefix_;
};

TEST_F(WindowsInstall, ProgramFilesNotWritableGivesTheElevatedCommandAndStoreModeAndChangesNothing) {
  std::string archive = archive12();
  StoreLayout mem_store{"C:/Users/me/AppData/Local/cudnnup"};
  std::string native_archive = paths::to_native(archive, true);
  std::string native_cuda = paths::to_native(kMemCuda, true);
  for (std::string denied_prefix : {kMemCuda, kMemCuda + "/bin/cudnn64_8.dll"}) {
    DeniedUnder fs(denied_prefix);
    fs.nodes = windows_memory_toolkit().nodes;
    auto before = memory_tree(fs, "C:");
    auto o = options(archive);
    o.into = kMemCuda;
    o.move_aside_old = true;
    auto r = run_install(fs, *disk, mem_store, o, install_services(nullptr));
    ASSERT_FALSE(r.ok()) << denied_prefix;
    EXPECT_EQ(r.error().code, ErrorCode::kPermission) << r.error().message;
    const std::string& msg = r.error().message;
    EXPECT_NE(msg.find("Nothing was changed"), std::string::npos) << msg;
    std::vector<FixStep> want = {fix::step("In a terminal opened with \"Run as administrator\" (Start > Terminal (Admin)):"),
                                 fix::cudnnup({"install", native_archive, "--into", native_cuda}),
                                 fix::step("or into your own store:"), fix::cudnnup({"install", native_archive})};
    EXPECT_EQ(r.error().fix, want) << "absolute Windows paths, elevated, then the store";
    EXPECT_NE(msg.find("cudnnup use"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("sudo"), std::string::npos) << msg;
    EXPECT_EQ(memory_tree(fs, "C:"), before) << "after a denied " << denied_prefix;
  }
}

}  // namespace
}  // namespace cudnnup

#endif  // CUDNNUP_HAVE_INSTALL
