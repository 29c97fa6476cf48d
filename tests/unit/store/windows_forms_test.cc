// `cudnnup uninstall NAME` on Windows, on the in-memory filesystem with NTFS's name rules
// (MemoryFileSystem::windows_names): Wine cannot make junctions or symlinks, and does not fold
// names the way NTFS does, so these forms are tested here rather than under Wine. Each hostile
// form must be refused, or mapped to the installed version it names; the selected version and
// everything outside the store stay as they are.
#include <gtest/gtest.h>

#include "store/version_spec.h"
#include "support/memory_fs.h"
#include "support/tree_snapshot.h"
#if CUDNNUP_HAVE_INSTALL
#include "app/commands/install_services.h"
#include "install/uninstall.h"
#endif

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;
using testing::memory_tree;

const StoreLayout kWindowsStore{"C:/Users/me/AppData/Local/cudnnup"};
const std::string kSelected = "9.19.0.56+cuda13";
const std::string kOther = "9.1.0.70+cuda12";

MemoryFileSystem windows_machine() {
  MemoryFileSystem fs;
  fs.windows_names = true;
  fs.add_file(kWindowsStore.version_dir(kSelected) + "/bin/cudnn64_9.dll", "selected");
  fs.add_file(kWindowsStore.version_dir(kOther) + "/bin/cudnn64_9.dll", "other");
  fs.add_file("C:/Users/me/Documents/thesis.docx", "years of work");
  fs.add_file("C:/Windows/System32/drivers/etc/hosts", "hosts");
  // A junction inside versions/ that looks like a version and leads to the user's documents.
  fs.add_symlink(kWindowsStore.versions_dir() + "/9.2.1.18+cuda12", "C:/Users/me/Documents");
  return fs;
}

TEST(WindowsForms, OnlyNamesOfInstalledVersionsAreAccepted) {
  MemoryFileSystem fs = windows_machine();
  auto same_as = [&](const char* arg, const std::string& id) {
    auto r = find_installed(fs, kWindowsStore, arg, /*windows=*/true);
    ASSERT_TRUE(r.ok()) << arg << ": " << r.error().message;
    EXPECT_EQ(r->id, id) << arg;
  };
  same_as("9.19.0.56+CUDA13", kSelected);  // NTFS ignores case: the installed name is what counts
  same_as("9.19.0.56+cuda13\\", kSelected);
  same_as(".\\9.19.0.56+cuda13", kSelected);
  same_as("./9.1.0.70+cuda12/", kOther);
  same_as("9.1", kOther);
  same_as(" 9.19.0.56+cuda13 ", kSelected);  // spaces around an argument (a paste) are dropped
  for (const char* bad : {"..\\..\\..\\Documents", "C:\\Users\\me\\Documents", "C:", "C:..\\..", "\\", "/",
                          "\\\\?\\C:\\Users\\me\\AppData\\Local\\cudnnup\\versions\\9.19.0.56+cuda13",
                          "\\\\localhost\\C$\\Users\\me\\Documents", "\\\\.\\C:\\Users", "versions\\9.19.0.56+cuda13",
                          "9.19.0.56+cuda13.", "9.19.0.56+cuda13. ", "9.19.0.56+cuda13::$DATA", "9.19.0.56+cuda13:x",
                          "9.2.1.18+cuda12", "9.2.1.18+CUDA12", "..", ".", ""}) {
    auto r = find_installed(fs, kWindowsStore, bad, /*windows=*/true);
    EXPECT_FALSE(r.ok()) << "accepted " << bad << " as " << (r.ok() ? r->id : "");
  }
}

#if CUDNNUP_HAVE_INSTALL
TEST(WindowsForms, UninstallNeverRemovesTheSelectedVersionOrAnythingOutsideTheStore) {
  for (const char* arg : {"9.19.0.56+CUDA13", "9.19.0.56+cuda13\\", "9.19.0.56+cuda13.", "9.19.0.56+cuda13 ",
                          "9.19.0.56+cuda13::$DATA", "\\\\?\\C:\\Users\\me\\AppData\\Local\\cudnnup\\versions\\9.19.0.56+cuda13",
                          "\\\\localhost\\C$\\Users\\me\\Documents", "..\\..\\..\\..\\Documents", "9.2.1.18+cuda12",
                          "C:\\Windows", "versions\\..\\..\\..\\..\\..\\Windows"}) {
    MemoryFileSystem fs = windows_machine();
    auto before = memory_tree(fs, "");
    UninstallOptions o;
    o.version = arg;
    o.windows = true;
    o.txid = "tx-w";
    o.protected_ids = {kSelected};
    auto r = run_uninstall(fs, kWindowsStore, o, sha256_hasher());
    EXPECT_FALSE(r.ok()) << arg;
    EXPECT_EQ(memory_tree(fs, ""), before) << arg << ": something changed";
  }
  // The other version goes by any spelling NTFS would accept for it.
  MemoryFileSystem fs = windows_machine();
  UninstallOptions o;
  o.version = "9.1.0.70+CUDA12\\";
  o.windows = true;
  o.txid = "tx-w";
  o.protected_ids = {kSelected};
  auto r = run_uninstall(fs, kWindowsStore, o, sha256_hasher());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(fs.exists(kWindowsStore.version_dir(kOther)));
  EXPECT_TRUE(fs.exists(kWindowsStore.version_dir(kSelected)));
  EXPECT_EQ(fs.contents("C:/Users/me/Documents/thesis.docx"), "years of work");
}
#endif

}  // namespace
}  // namespace cudnnup
