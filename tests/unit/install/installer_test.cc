#include "app/commands/install_services.h"
#include "install/install_pipeline.h"
#include "install/uninstall.h"

#if CUDNNUP_HAVE_INSTALL

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "platform/sha256.h"
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

const std::string kTop = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive";

// Names the paths where two trees differ (for failure messages).
std::string tree_diff(const std::map<std::string, std::string>& a, const std::map<std::string, std::string>& b) {
  std::string out;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end()) out += " -" + k;
    else if (it->second != v) out += " ~" + k;
  }
  for (const auto& [k, v] : b) {
    if (!a.count(k)) out += " +" + k;
  }
  return out.substr(0, 600);
}

class Installer : public ::testing::Test {
 protected:
  void SetUp() override {
#ifdef _WIN32
    GTEST_SKIP() << "needs the Linux stub libraries (ELF, built by tests/fixtures on Linux) and .tar.xz, which the Windows build does not read; the Windows layout is tested in installer_windows_layout_test.cc";
#endif
  }
  std::unique_ptr<FileSystem> disk = make_real_filesystem();
  testing::TempDir tmp;

  std::string make_archive(const std::string& file, std::vector<FakeEntry> entries, ArchiveFormat f = ArchiveFormat::kTarXz) {
    std::string path = tmp / file;
    testing::write_archive(path, entries, f);
    return path;
  }
  std::string official_archive() { return make_archive(kTop + ".tar.xz", testing::official_entries(OfficialLayout{kTop})); }

  InstallOptions options(const std::string& archive) {
    InstallOptions o;
    o.archive = archive;
    o.txid = "tx-test";
    o.now_iso = "2026-11-30T00:00:00Z";
    o.cudnnup_version = "test";
    o.host_machine = "x86_64";
    return o;
  }
  // A CUDA 13 toolkit with an unrelated library, an older cudnn.h and a cuDNN 8 leftover.
  std::string make_toolkit(int cuda_major = 13) {
    std::string root = tmp / "cuda";
    testing::write_text(root + "/include/cuda.h", "#define CUDA_VERSION " + std::to_string(cuda_major * 1000) + "\n");
    testing::write_text(root + "/include/cudnn.h", "/* old cudnn.h from 8.9 */\n");
    testing::write_text(root + "/lib64/libcublas.so.13", "not really cublas");
    testing::write_text(root + "/lib64/libcudnn_ops_infer.so.8", "old cuDNN 8 library");
    return root;
  }
};

TEST_F(Installer, StoreInstallLaysOutTheVersionWithAManifest) {
  StoreLayout store{tmp / "store"};
  // With a published sha256 the archive itself is hashed while it is extracted, and the manifest
  // records it (without one it is not hashed: InstallCli.WithoutAPublishedSha256...).
  std::string archive = official_archive();
  auto published = sha256_file(*disk, archive);
  ASSERT_TRUE(published.ok());
  InstallOptions o = options(archive);
  o.expected_sha256 = *published;
  auto r = run_install(*disk, *disk, store, o, install_services(nullptr));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->already_installed);
  std::string dir = store.version_dir("9.19.0.56+cuda13");
  EXPECT_EQ(r->plan.target, dir);
  EXPECT_TRUE(stdfs::is_symlink(dir + "/lib/libcudnn.so.9"));
  EXPECT_TRUE(stdfs::is_regular_file(dir + "/lib/libcudnn.so.9.19.0"));
  EXPECT_TRUE(stdfs::is_regular_file(dir + "/include/cudnn_version.h"));
  auto m = manifest_from_json(testing::read_file_bytes(dir + "/" + StoreLayout::kManifestName), "m");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->cudnn_version, "9.19.0.56");
  EXPECT_EQ(m->cuda_major, 13);
  EXPECT_EQ(r->archive_sha256, *published);
  EXPECT_EQ(m->archive_sha256, *published);
  for (const auto& f : m->files) {
    if (f.kind != EntryKind::kFile) continue;
    EXPECT_EQ(f.size, stdfs::file_size(dir + "/" + f.path)) << f.path;
    EXPECT_EQ(f.sha256.size(), 64u);
  }
  EXPECT_TRUE(stdfs::is_empty(store.journal_dir())) << "the journal and the stage are gone";

  // Installing the same archive again changes nothing and says so.
  auto before = disk_tree(store.root);
  auto again = run_install(*disk, *disk, store, options(official_archive()), install_services(nullptr));
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->already_installed);
  EXPECT_EQ(disk_tree(store.root), before);

  // And uninstall removes it.
  UninstallOptions u;
  u.version = "9.19";
  u.txid = "tx-un";
  auto un = run_uninstall(*disk, store, u, sha256_hasher());
  ASSERT_TRUE(un.ok()) << un.error().message;
  EXPECT_FALSE(stdfs::exists(dir));
  EXPECT_TRUE(stdfs::is_empty(store.journal_dir()));
}

TEST_F(Installer, UninstallRefusesTheSelectedVersion) {
  StoreLayout store{tmp / "store"};
  ASSERT_TRUE(run_install(*disk, *disk, store, options(official_archive()), install_services(nullptr)).ok());
  UninstallOptions u;
  u.version = "9.19.0.56";
  u.txid = "tx-un";
  u.protected_ids = {"9.19.0.56+cuda13"};
  auto r = run_uninstall(*disk, store, u, sha256_hasher());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kConflict);
  EXPECT_NE(r.error().message.find("cudnnup use"), std::string::npos);
  EXPECT_TRUE(stdfs::exists(store.version_dir("9.19.0.56+cuda13")));
}

TEST_F(Installer, MergeIntoAToolkitAndUninstallRestoresItExactly) {
  StoreLayout store{tmp / "store"};
  std::string cuda = make_toolkit();
  auto before = disk_tree(cuda);
  auto o = options(official_archive());
  o.into = cuda;

  // The cuDNN 8 leftover blocks a plain merge, and nothing changes.
  auto refused = run_install(*disk, *disk, store, o, install_services(nullptr));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
  EXPECT_NE(refused.error().message.find("libcudnn_ops_infer.so.8"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("--move-aside-old"), std::string::npos);
  EXPECT_EQ(disk_tree(cuda), before);

  o.move_aside_old = true;
  auto r = run_install(*disk, *disk, store, o, install_services(nullptr));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(stdfs::is_symlink(cuda + "/lib64/libcudnn.so.9"));
  EXPECT_TRUE(stdfs::is_regular_file(cuda + "/lib64/libcudnn_ops.so.9.19.0"));
  EXPECT_FALSE(stdfs::exists(cuda + "/lib64/libcudnn_ops_infer.so.8")) << "moved aside";
  EXPECT_NE(testing::read_file_bytes(cuda + "/include/cudnn.h"), "/* old cudnn.h from 8.9 */\n");
  EXPECT_EQ(testing::read_file_bytes(cuda + "/lib64/libcublas.so.13"), "not really cublas");
  EXPECT_FALSE(stdfs::exists(cuda + "/LICENSE"));
  EXPECT_TRUE(stdfs::exists(cuda + "/.cudnnup/manifest.json"));

  UninstallOptions u;
  u.into = cuda;
  u.txid = "tx-un";
  auto un = run_uninstall(*disk, store, u, sha256_hasher());
  ASSERT_TRUE(un.ok()) << un.error().message;
  EXPECT_EQ(disk_tree(cuda), before) << "the toolkit is exactly as it was";
}

TEST_F(Installer, UninstallRefusesFilesChangedSinceInstall) {
  StoreLayout store{tmp / "store"};
  std::string cuda = make_toolkit();
  stdfs::remove(cuda + "/lib64/libcudnn_ops_infer.so.8");
  auto o = options(official_archive());
  o.into = cuda;
  ASSERT_TRUE(run_install(*disk, *disk, store, o, install_services(nullptr)).ok());
  testing::write_text(cuda + "/include/cudnn_version.h", "edited by hand");
  auto after = disk_tree(cuda);
  UninstallOptions u;
  u.into = cuda;
  u.txid = "tx-un";
  auto un = run_uninstall(*disk, store, u, sha256_hasher());
  ASSERT_FALSE(un.ok());
  EXPECT_NE(un.error().message.find("cudnn_version.h"), std::string::npos);
  EXPECT_EQ(disk_tree(cuda), after);
  u.force = true;
  EXPECT_TRUE(run_uninstall(*disk, store, u, sha256_hasher()).ok());
}

// Every hostile or unsuitable archive is refused with a reason and leaves the toolkit and the
// store byte-for-byte as they were.
TEST_F(Installer, RefusedArchivesLeaveTheTargetUnchanged) {
  StoreLayout store{tmp / "store"};
  std::string cuda = make_toolkit();
  stdfs::remove(cuda + "/lib64/libcudnn_ops_infer.so.8");
  const std::string t = kTop + "/";
  struct Case {
    std::string label;
    std::string file;
    std::vector<FakeEntry> entries;
    std::string why;
    ArchiveFormat format = ArchiveFormat::kTarXz;
  };
  auto with = [&](std::vector<FakeEntry> extra) {
    auto e = testing::official_entries(OfficialLayout{kTop});
    e.insert(e.end(), extra.begin(), extra.end());
    return e;
  };
  auto zero_ops = testing::official_entries(OfficialLayout{kTop});
  for (auto& x : zero_ops) {
    if (x.path == t + "lib/libcudnn_ops.so.9.19.0") x.data.clear();
  }
  OfficialLayout win{kTop};
  win.windows = true;
  std::string cuda12_top = "cudnn-linux-x86_64-9.1.0.70_cuda12-archive";
  OfficialLayout cuda12{cuda12_top, 9, 1, 0, "v9.1.0"};
  auto bomb = with({FakeEntry(t + "lib/zeros", EntryKind::kFile, std::string(40u << 20, '\0'))});
  std::vector<Case> cases = {
      {"traversal", kTop + ".tar.xz", with({FakeEntry(t + "../../../evil", EntryKind::kFile, "x")}), "path traversal"},
      {"absolute", kTop + ".tar.xz", with({FakeEntry("/tmp/evil", EntryKind::kFile, "x")}), "absolute"},
      {"symlink escape", kTop + ".tar.xz", with({FakeEntry(t + "lib/libx.so", EntryKind::kSymlink, {}, "/etc/passwd")}), "outside"},
      {"hard link", kTop + ".tar.xz", with({FakeEntry(t + "lib/h", EntryKind::kHardlink, {}, t + "LICENSE")}), "hard link"},
      {"device node", kTop + ".tar.xz", with({FakeEntry(t + "lib/null", EntryKind::kDevice)}), "device node"},
      {"case collision", kTop + ".tar.xz", with({FakeEntry(t + "include/CUDNN.h", EntryKind::kFile, "x")}), "letter case"},
      {"0-byte library", kTop + ".tar.xz", zero_ops, "0 bytes"},
      {"wrong platform", kTop + ".tar.xz", testing::official_entries(win), "wrong platform"},
      {"wrong CUDA major", cuda12_top + ".tar.xz", testing::official_entries(cuda12), "built for CUDA 12 but"},
      {"zip bomb", kTop + ".zip", bomb, "decompression bomb", ArchiveFormat::kZip},
  };
  auto toolkit_before = disk_tree(cuda);
  for (const auto& c : cases) {
    std::string archive = make_archive(c.file, c.entries, c.format);
    for (bool merge : {true, false}) {
      auto store_before = disk_tree(store.root);
      auto o = options(archive);
      if (merge) o.into = cuda;
      if (c.label == "zip bomb") o.limits.floor_bytes = 8 << 20;  // the default floor is 256 MiB; keep CI fast
      auto r = run_install(*disk, *disk, store, o, install_services(nullptr));
      if (!merge && c.label == "wrong CUDA major") continue;  // the store takes any CUDA major
      ASSERT_FALSE(r.ok()) << c.label << (merge ? " (merge)" : " (store)") << " was installed";
      EXPECT_NE(r.error().message.find(c.why), std::string::npos) << c.label << ": " << r.error().message;
      EXPECT_EQ(disk_tree(cuda), toolkit_before) << c.label;
      EXPECT_EQ(disk_tree(store.root), store_before) << c.label;
    }
    stdfs::remove(archive);
  }
}

TEST_F(Installer, TruncatedArchiveIsRefusedAndTheTargetUnchanged) {
  StoreLayout store{tmp / "store"};
  std::string cuda = make_toolkit();
  stdfs::remove(cuda + "/lib64/libcudnn_ops_infer.so.8");
  std::string archive = make_archive(kTop + ".tar", testing::official_entries(OfficialLayout{kTop}), ArchiveFormat::kTar);
  // Cut in the middle of a 512-byte tar block: a cut on a block boundary can look like a shorter
  // archive rather than a damaged one, depending on where the entries happen to end.
  stdfs::resize_file(archive, stdfs::file_size(archive) * 2 / 3 / 512 * 512 + 256);
  auto before = disk_tree(cuda);
  auto o = options(archive);
  o.into = cuda;
  auto r = run_install(*disk, *disk, store, o, install_services(nullptr));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("truncated"), std::string::npos) << r.error().message;
  EXPECT_EQ(disk_tree(cuda), before);
}

TEST_F(Installer, WrongExpectedHashIsRefusedBeforeAnythingIsWritten) {
  StoreLayout store{tmp / "store"};
  auto o = options(official_archive());
  o.expected_sha256 = std::string(64, '0');
  auto r = run_install(*disk, *disk, store, o, install_services(nullptr));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("sha256"), std::string::npos);
  EXPECT_FALSE(stdfs::exists(store.root));
}

// A published archive saved under another name (a browser's "cudnn (1).tar.xz") is identified by
// its top folder, and so is checked against the published sha256 of the archive that folder names:
// a tampered copy is refused before anything is written, the real one installs and says what it
// matched. A name that is not in the table is not hashed in vain.
TEST_F(Installer, ARenamedPublishedArchiveIsCheckedAgainstItsTopFoldersPublishedHash) {
  std::string real = official_archive();
  auto digest = sha256_file(*disk, real);
  ASSERT_TRUE(digest.ok());
  std::string renamed = tmp / "cudnn (1).tar.xz";
  stdfs::copy_file(real, renamed);

  StoreLayout tampered_store{tmp / "store-tampered"};
  InstallOptions tampered = options(renamed);
  tampered.published = {KnownArchive{kTop + ".tar.xz", std::string(64, 'a'), 0, "https://example.invalid/manifest.json"}};
  auto refused = run_install(*disk, *disk, tampered_store, tampered, install_services(nullptr));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(refused.error().message.find(kTop + ".tar.xz (the archive's top folder)"), std::string::npos) << refused.error().message;
  EXPECT_FALSE(stdfs::exists(tampered_store.root)) << "nothing written";

  StoreLayout store{tmp / "store"};
  InstallOptions o = options(renamed);
  o.published = {KnownArchive{"cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz", std::string(64, 'b'), 0, "x"},
                 KnownArchive{kTop + ".tar.xz", *digest, 0, "https://example.invalid/manifest.json"}};
  auto r = run_install(*disk, *disk, store, o, install_services(nullptr));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->archive_sha256, *digest);
  EXPECT_EQ(r->sha256_checked_against, "NVIDIA's published sha256 for " + kTop + ".tar.xz (the archive's top folder)");

  // --sha256 (or a mirror) cannot vouch for other bytes: the published row wins, and the two
  // claims disagreeing is an error naming both.
  StoreLayout vouched_store{tmp / "store-vouched"};
  InstallOptions vouched = options(renamed);
  vouched.expected_sha256 = std::string(64, 'c');
  vouched.expected_sha256_from = "the sha256 given with --sha256";
  vouched.published = o.published;
  auto disagreed = run_install(*disk, *disk, vouched_store, vouched, install_services(nullptr));
  ASSERT_FALSE(disagreed.ok());
  EXPECT_NE(disagreed.error().message.find("is not agreed on: NVIDIA's published sha256 for " + kTop + ".tar.xz (the archive's top folder) is " +
                                           *digest + ", but the sha256 given with --sha256 is " + std::string(64, 'c')),
            std::string::npos)
      << disagreed.error().message;
  EXPECT_FALSE(stdfs::exists(vouched_store.root)) << "nothing written";

  // The top folder is read as the file name would be (case, a missing "-archive"): a folder in
  // another spelling still finds its row.
  const std::string spelled = "cudnn-linux-x86_64-9.19.0.56_CUDA13-archive";
  std::string respelled = make_archive("cudnn (3).tar.xz", testing::official_entries(OfficialLayout{spelled}));
  StoreLayout respelled_store{tmp / "store-respelled"};
  InstallOptions r3 = options(respelled);
  r3.published = tampered.published;  // the 'a...' row: these bytes do not match it
  auto respelled_refused = run_install(*disk, *disk, respelled_store, r3, install_services(nullptr));
  ASSERT_FALSE(respelled_refused.ok());
  EXPECT_NE(respelled_refused.error().message.find(kTop + ".tar.xz (the archive's top folder)"), std::string::npos)
      << respelled_refused.error().message;

  // NVIDIA's own file name that the table lacks (an unpublished build): no hash to compare, none computed.
  StoreLayout other{tmp / "store-unlisted"};
  InstallOptions unlisted = options(real);
  unlisted.published = {KnownArchive{"cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz", std::string(64, 'b'), 0, "x"}};
  auto plain = run_install(*disk, *disk, other, unlisted, install_services(nullptr));
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_TRUE(plain->sha256_checked_against.empty());
  EXPECT_TRUE(plain->archive_sha256.empty());
}

TEST_F(Installer, DryRunPlansEveryFileAndWritesNothing) {
  StoreLayout store{tmp / "store"};
  std::string cuda = make_toolkit();
  auto before = disk_tree(cuda);
  auto o = options(official_archive());
  o.into = cuda;
  o.dry_run = true;
  o.move_aside_old = true;
  auto r = run_install(*disk, *disk, store, o, install_services(nullptr));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(disk_tree(cuda), before);
  EXPECT_FALSE(stdfs::exists(store.root));
  int places = 0, backups = 0, asides = 0;
  for (const auto& s : r->plan.steps) {
    places += s.action == "place";
    backups += s.action == "back-up";
    asides += s.action == "move-aside";
  }
  EXPECT_EQ(places, 8 * 3 + 2 + 7);  // 8 libraries x (file + 2 links), cudnn.h + cudnn_version.h, 7 sub-headers
  EXPECT_EQ(backups, 1);              // the old cudnn.h
  EXPECT_EQ(asides, 1);               // the cuDNN 8 library
}

// --- Crash tests on the in-memory filesystem: a crash before every single write. ---

struct CrashSetup {
  MemoryFileSystem fs;
  StoreLayout store{"/mem/store"};
};

MemoryFileSystem memory_toolkit() {
  MemoryFileSystem fs;
  fs.add_file("/mem/cuda/include/cuda.h", "#define CUDA_VERSION 13000\n");
  fs.add_file("/mem/cuda/include/cudnn.h", "/* old */");
  fs.add_file("/mem/cuda/lib64/libcublas.so.13", "cublas");
  fs.add_file("/mem/cuda/lib64/libcudnn_ops_infer.so.8", "old 8");
  fs.add_dir("/mem/store");
  return fs;
}

TEST_F(Installer, CrashAtEveryStepOfAStoreInstallLeavesOldOrNewAndRecoveryCompletes) {
  std::string archive = official_archive();
  StoreLayout store{"/mem/store"};
  MemoryFileSystem initial;
  initial.add_dir("/mem/store");
  auto old_state = memory_tree(initial, store.versions_dir());

  MemoryFileSystem full = initial;
  ASSERT_TRUE(run_install(full, *disk, store, options(archive), install_services(nullptr)).ok());
  auto new_state = memory_tree(full, store.versions_dir());
  int total = full.writes_done;
  ASSERT_GT(total, 30);

  for (int k = 0; k < total; ++k) {
    MemoryFileSystem fs = initial;
    fs.fail_after_writes = k;
    auto r = run_install(fs, *disk, store, options(archive), install_services(nullptr));
    auto crashed = memory_tree(fs, store.versions_dir());
    EXPECT_TRUE(crashed == old_state || crashed == new_state) << "crash before write " << k << ": " << fs.log.back();
    fs.fail_after_writes.reset();
    TransactionRunner runner(fs, store);
    auto rec = runner.recover();
    ASSERT_TRUE(rec.ok()) << "recovery after crash " << k << ": " << rec.error().message;
    auto recovered = memory_tree(fs, store.versions_dir());
    EXPECT_TRUE(recovered == old_state || recovered == new_state) << "after recovery from crash " << k;
    auto left = fs.list_dir(store.journal_dir());
    EXPECT_TRUE(!left.ok() || left->empty()) << "journal dir not empty after recovery from crash " << k;
    // The next run completes the install.
    auto again = run_install(fs, *disk, store, options(archive), install_services(nullptr));
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(memory_tree(fs, store.versions_dir()), new_state) << "crash " << k;
  }
}

TEST_F(Installer, CrashAtEveryStepOfAToolkitMergeRecoversToOldOrNew) {
  std::string archive = official_archive();
  StoreLayout store{"/mem/store"};
  MemoryFileSystem initial = memory_toolkit();
  auto old_state = memory_tree(initial, "/mem/cuda");
  auto o = options(archive);
  o.into = "/mem/cuda";
  o.move_aside_old = true;

  MemoryFileSystem full = initial;
  auto ok = run_install(full, *disk, store, o, install_services(nullptr));
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  auto new_state = memory_tree(full, "/mem/cuda");
  int total = full.writes_done;

  for (int k = 0; k < total; ++k) {
    MemoryFileSystem fs = initial;
    fs.fail_after_writes = k;
    (void)run_install(fs, *disk, store, o, install_services(nullptr));
    fs.fail_after_writes.reset();
    TransactionRunner runner(fs, store);
    auto rec = runner.recover();
    ASSERT_TRUE(rec.ok()) << "recovery after crash " << k << ": " << rec.error().message;
    auto recovered = memory_tree(fs, "/mem/cuda");
    EXPECT_TRUE(recovered == old_state || recovered == new_state)
        << "after recovery from crash before write " << k << " (" << fs.log.size() << " ops)\n vs old:" << tree_diff(old_state, recovered)
        << "\n vs new:" << tree_diff(new_state, recovered);
  }

  // And uninstall, crashed at every step, recovers to the installed state or the original one.
  auto installed = full;
  installed.writes_done = 0;
  UninstallOptions u;
  u.into = "/mem/cuda";
  u.txid = "tx-un";
  MemoryFileSystem counted = installed;
  ASSERT_TRUE(run_uninstall(counted, store, u, sha256_hasher()).ok());
  EXPECT_EQ(memory_tree(counted, "/mem/cuda"), old_state);
  for (int k = 0; k < counted.writes_done; ++k) {
    MemoryFileSystem fs = installed;
    fs.fail_after_writes = k;
    (void)run_uninstall(fs, store, u, sha256_hasher());
    fs.fail_after_writes.reset();
    TransactionRunner runner(fs, store);
    ASSERT_TRUE(runner.recover().ok()) << k;
    auto recovered = memory_tree(fs, "/mem/cuda");
    EXPECT_TRUE(recovered == old_state || recovered == new_state) << "uninstall crash before write " << k;
  }
}

// A toolkit the user may read but not write (root-owned /usr/local/cuda for a normal user).
class ReadOnlyUnder : public MemoryFileSystem {
 public:
  explicit ReadOnlyUnder(std::string prefix) : prefix_(std::move(prefix)) {}
  Status make_dir(const std::string& p) override { return guard(p) ? denied(p) : MemoryFileSystem::make_dir(p); }
  Status write_file(const std::string& p, const std::string& c, bool s) override {
    return guard(p) ? denied(p) : MemoryFileSystem::write_file(p, c, s);
  }
  Status rename(const std::string& f, const std::string& t) override {
    return guard(f) || guard(t) ? denied(t) : MemoryFileSystem::rename(f, t);
  }
  Status remove(const std::string& p) override { return guard(p) ? denied(p) : MemoryFileSystem::remove(p); }
  Status symlink(const std::string& t, const std::string& l) override { return guard(l) ? denied(l) : MemoryFileSystem::symlink(t, l); }

 private:
  bool guard(const std::string& p) const { return p.compare(0, prefix_.size(), prefix_) == 0; }
  Status denied(const std::string& p) const { return make_error(ErrorCode::kPermission, "permission denied: " + p, p); }
  std::string prefix_;
};

TEST_F(Installer, APermissionProblemNamesTheCommandThatWouldWorkAndChangesNothing) {
  std::string archive = official_archive();
  StoreLayout store{"/mem/store"};
  ReadOnlyUnder fs("/mem/cuda");
  fs.nodes = memory_toolkit().nodes;
  auto before = memory_tree(fs, "/mem");
  auto o = options(archive);
  o.into = "/mem/cuda";
  o.move_aside_old = true;
  auto r = run_install(fs, *disk, store, o, install_services(nullptr));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kPermission);
  ASSERT_FALSE(r.error().fix.empty()) << "the commands that work are the error's fix steps";
  EXPECT_EQ(r.error().fix.front(), fix::sudo({"cudnnup", "install", archive, "--into", "/mem/cuda"}));
  EXPECT_EQ(r.error().fix.back(), fix::cudnnup({"install", archive})) << "store mode needs no sudo";
  EXPECT_NE(r.error().message.find("Nothing was changed"), std::string::npos);
  EXPECT_EQ(memory_tree(fs, "/mem"), before) << tree_diff(before, memory_tree(fs, "/mem"));
}

TEST_F(Installer, AFailedRenameMidCommitIsRolledBackAtOnce) {
  std::string archive = official_archive();
  StoreLayout store{"/mem/store"};
  MemoryFileSystem fs = memory_toolkit();
  auto old_state = memory_tree(fs, "/mem/cuda");
  auto o = options(archive);
  o.into = "/mem/cuda";
  o.move_aside_old = true;
  fs.fail_paths.insert("/mem/cuda/lib64/libcudnn_graph.so.9.19.0");  // e.g. EACCES on one file
  auto r = run_install(fs, *disk, store, o, install_services(nullptr));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(memory_tree(fs, "/mem/cuda"), old_state);
  auto left = fs.list_dir(store.journal_dir());
  EXPECT_TRUE(!left.ok() || left->empty()) << "no journal left behind";
}

}  // namespace
}  // namespace cudnnup

#endif  // CUDNNUP_HAVE_INSTALL
