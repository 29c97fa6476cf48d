// The install pipeline (core/install/install_pipeline.h) on the in-memory filesystem with fake
// archives: each step, the one rollback guard, the progress phases, crashes at every write.
#include "install/install_pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "install/transaction.h"
#include "install/uninstall.h"
#include "support/fake_archive.h"
#include "support/tree_snapshot.h"

namespace cudnnup {
namespace {

using testing::FakeEntry;
using testing::MemoryFileSystem;
using testing::OfficialLayout;
using testing::memory_tree;

const std::string kWinTop = "cudnn-windows-x86_64-9.1.0.70_cuda12-archive";
const std::string kLinuxTop = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive";

// A source filesystem holding the archives, a target filesystem to install into.
class Pipeline : public ::testing::Test {
 protected:
  MemoryFileSystem source;
  MemoryFileSystem target;
  testing::FakeArchives archives;
  StoreLayout store{"/home/u/store"};
  void SetUp() override { target.add_dir("/home/u"); }  // a home folder, no store yet
  std::map<std::string, std::string> home() const { return memory_tree(target, "/"); }

  std::string add(const std::string& file, std::vector<FakeEntry> entries) {
    std::string path = "/dl/" + file;
    archives.add(source, path, std::move(entries));
    return path;
  }
  std::string windows_archive() {
    OfficialLayout l{kWinTop, 9, 1, 0};
    l.windows = true;
    return add(kWinTop + ".zip", testing::official_entries(l));
  }
  InstallOptions options(const std::string& archive, bool windows = false) {
    InstallOptions o;
    o.archive = archive;
    o.windows = windows;
    o.host_machine = "x86_64";
    o.txid = "tx1";
    o.now_iso = "2026-11-30T00:00:00Z";
    o.cudnnup_version = "test";
    return o;
  }
  Result<InstallOutcome> install(const InstallOptions& o, Progress* progress = nullptr) {
    return run_install(target, source, store, o, archives.services(progress));
  }
};

TEST_F(Pipeline, StoreInstallOfAWindowsArchiveOnTheMemoryFilesystem) {
  std::string archive = windows_archive();
  InstallOptions o = options(archive, true);
  o.expected_sha256 = testing::test_digest(source.contents(archive));
  auto r = install(o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::string dir = store.version_dir("9.1.0.70+cuda12");
  EXPECT_EQ(r->plan.target, dir);
  ASSERT_NE(target.node(dir + "/bin/cudnn64_9.dll"), nullptr);
  EXPECT_EQ(target.contents(dir + "/bin/cudnn64_9.dll"), testing::fake_pe());
  EXPECT_EQ(r->archive_sha256, o.expected_sha256) << "the archive's own digest, from its own thread";
  auto m = manifest_from_json(target.contents(dir + "/" + StoreLayout::kManifestName), "m");
  ASSERT_TRUE(m.ok());
  for (const auto& f : m->files) {
    if (f.kind != EntryKind::kFile) continue;
    EXPECT_EQ(f.sha256, testing::test_digest(target.contents(dir + "/" + f.path))) << f.path;
  }
  auto left = target.list_dir(store.journal_dir());
  EXPECT_TRUE(left.ok() && left->empty()) << "no journal, no stage";

  auto before = memory_tree(target, "/");
  auto again = install(options(archive, true));
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->already_installed);
  EXPECT_EQ(archives.times_opened(archive), 1) << "recognised by name: not read again";
  EXPECT_EQ(memory_tree(target, "/"), before);
}

// validate: what the name and the target say is checked before a byte of the archive is read.
TEST_F(Pipeline, ChecksThatNeedNoReadingComeBeforeTheArchiveIsOpened) {
  std::string archive = windows_archive();
  InstallOptions o = options(archive, true);
  o.cuda_major = 13;
  auto r = install(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not CUDA 13"), std::string::npos) << r.error().message;
  o.cuda_major.reset();
  o.expected_size = 1;
  r = install(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("bytes but NVIDIA's manifest says 1"), std::string::npos) << r.error().message;
  EXPECT_EQ(archives.times_opened(archive), 0);
  EXPECT_EQ(target.writes_done, 0) << "nothing written, not even the store";
}

// The one rollback guard: whichever step refuses, the target is as it was, store folders included.
TEST_F(Pipeline, EveryRefusalAfterStagingLeavesNoTrace) {
  OfficialLayout l{kWinTop, 9, 1, 0};
  l.windows = true;
  auto entries = testing::official_entries(l);
  std::vector<std::pair<std::string, InstallOptions>> cases;
  InstallOptions wrong_hash = options(add("a/" + kWinTop + ".zip", entries), true);
  wrong_hash.expected_sha256 = std::string(64, '0');
  cases.push_back({"sha256", wrong_hash});
  auto missing = entries;
  missing.erase(std::remove_if(missing.begin(), missing.end(), [](const FakeEntry& e) { return e.path.find("cudnn_ops64_9.dll") != std::string::npos; }),
                missing.end());
  cases.push_back({"'ops' sub-library", options(add("b/" + kWinTop + ".zip", missing), true)});
  cases.push_back({"cannot load on Linux", options(add("c/" + kWinTop + ".zip", entries), false)});
  auto not_a_dll = entries;
  std::string exe = testing::fake_pe();
  exe[64 + 23] = 0;  // Characteristics without IMAGE_FILE_DLL (support/pe_builder.cc puts the header at 64)
  for (auto& e : not_a_dll) {
    if (e.path.find("cudnn_adv64_9.dll") != std::string::npos) e.data = exe;
  }
  cases.push_back({"not a DLL", options(add("d/" + kWinTop + ".zip", not_a_dll), true)});
  auto before = home();
  for (const auto& [why, o] : cases) {
    auto r = install(o);
    ASSERT_FALSE(r.ok()) << why;
    EXPECT_NE(r.error().message.find(why), std::string::npos) << r.error().message;
    EXPECT_GT(target.writes_done, 0) << why << ": refused after staging";
    EXPECT_EQ(home(), before) << why << ": the store folders made for it are gone too";
    target.writes_done = 0;
  }
}

TEST_F(Pipeline, ProgressCoversEveryPhaseOfAnInstall) {
  std::string archive = windows_archive();
  InstallOptions o = options(archive, true);
  o.expected_sha256 = testing::test_digest(source.contents(archive));
  testing::RecordingProgress progress;
  ASSERT_TRUE(install(o, &progress).ok());
  std::vector<std::string> names;
  for (const auto& p : progress.phases) names.push_back(p.name);
  // The archive's own digest is hashed during the extraction and settled after the stage is on
  // disk (its mismatch still refuses the install before anything is committed).
  EXPECT_EQ(names, (std::vector<std::string>{"unpacking", "checking libraries", "writing to disk", "checking sha256", "committing"}));
  uint64_t size = source.contents(archive).size();
  ASSERT_GE(progress.phases.size(), 4u);
  EXPECT_EQ(progress.phases[0].total, size);
  EXPECT_GT(progress.phases[0].final_count, 0u);
  EXPECT_EQ(progress.phases[3].total, size);
  EXPECT_EQ(progress.phases[3].final_count, size) << "the whole archive hashed";
}

// A crash before every single write of a store install: the version is absent or complete, and
// after recovery the next install completes.
TEST_F(Pipeline, CrashAtEveryWriteOfAStoreInstallLeavesOldOrNew) {
  std::string archive = windows_archive();
  MemoryFileSystem initial;
  initial.add_dir(store.root);
  target = initial;
  ASSERT_TRUE(install(options(archive, true)).ok());
  auto new_state = memory_tree(target, store.versions_dir());
  auto old_state = memory_tree(initial, store.versions_dir());
  int total = target.writes_done;
  ASSERT_GT(total, 20);
  for (int k = 0; k < total; ++k) {
    target = initial;
    target.fail_after_writes = k;
    (void)install(options(archive, true));
    auto crashed = memory_tree(target, store.versions_dir());
    EXPECT_TRUE(crashed == old_state || crashed == new_state) << "crash before write " << k;
    target.fail_after_writes.reset();
    ASSERT_TRUE(TransactionRunner(target, store).recover().ok()) << k;
    ASSERT_TRUE(install(options(archive, true)).ok()) << k;
    EXPECT_EQ(memory_tree(target, store.versions_dir()), new_state) << k;
  }
}

// Merge into a Windows toolkit and back, then a crash at every write of both.
TEST_F(Pipeline, MergeIntoAToolkitAndUninstallOnTheMemoryFilesystem) {
  const std::string cuda = "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4";
  target.add_file(cuda + "/include/cuda.h", "#define CUDA_VERSION 12040\n");
  target.add_file(cuda + "/bin/cudart64_12.dll", testing::fake_pe(0x8664));
  target.add_file(cuda + "/include/cudnn.h", "/* an older cudnn.h */");
  MemoryFileSystem initial = target;
  auto old_state = memory_tree(initial, cuda);
  InstallOptions o = options(windows_archive(), true);
  o.into = cuda;
  auto r = install(o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(target.contents(cuda + "/bin/cudnn64_9.dll"), testing::fake_pe());
  auto new_state = memory_tree(target, cuda);
  int total = target.writes_done;
  for (int k = 0; k < total; ++k) {
    target = initial;
    target.fail_after_writes = k;
    (void)install(o);
    target.fail_after_writes.reset();
    ASSERT_TRUE(TransactionRunner(target, store).recover().ok()) << k;
    auto recovered = memory_tree(target, cuda);
    EXPECT_TRUE(recovered == old_state || recovered == new_state) << "crash before write " << k;
  }
  target = initial;
  ASSERT_TRUE(install(o).ok());
  UninstallOptions u;
  u.into = cuda;
  u.windows = true;
  u.txid = "tx2";
  auto un = run_uninstall(target, store, u, testing::test_hasher());
  ASSERT_TRUE(un.ok()) << un.error().message;
  EXPECT_EQ(memory_tree(target, cuda), old_state) << "byte for byte what it was";
}

// A library for another CPU than the toolkit's own refuses the merge; --cross-arch allows it.
TEST_F(Pipeline, TheToolkitsOwnArchitectureDecidesAMerge) {
  const std::string cuda = "C:/CUDA/v12.4";
  target.add_file(cuda + "/include/cuda.h", "#define CUDA_VERSION 12040\n");
  target.add_file(cuda + "/bin/cudart64_12.dll", testing::fake_pe(0xAA64));  // an arm64 toolkit
  InstallOptions o = options(windows_archive(), true);
  o.into = cuda;
  auto before = memory_tree(target, "/");
  auto r = install(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("built for x86_64 but " + cuda + " (bin/cudart64_12.dll) is aarch64"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("--cross-arch"), std::string::npos);
  EXPECT_EQ(memory_tree(target, "/"), before);
  o.cross_arch = true;
  EXPECT_TRUE(install(o).ok());
}

}  // namespace
}  // namespace cudnnup
