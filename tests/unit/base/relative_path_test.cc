// The one form paths in cudnnup's records may take, and the walk below a root that never passes
// through a link (on the in-memory filesystem; the real one: tests/disk/below_root_test.cc).
#include <gtest/gtest.h>

#include "base/relative_path.h"
#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;

TEST(RelativePath, AcceptsPlainRelativePaths) {
  for (const char* ok : {"lib/libcudnn.so.9", "include/cudnn.h", ".cudnnup/backup-tx-1/lib64/x", "bin/x64/cudnn64_9.dll",
                         "targets/x86_64-linux/lib/libcudnn_ops.so.9.19.0", "a b/c"}) {
    EXPECT_TRUE(check_relative_path(ok).ok()) << ok << ": " << check_relative_path(ok).error().message;
  }
}

TEST(RelativePath, RefusesEveryFormThatCanNameSomethingElse) {
  for (const char* bad : {"", "/etc/shadow", "../etc", "lib/../../x", "lib/./x", "lib//x", "lib/", "./x", "..",
                          "C:/Windows", "C:x", "c:", "\\\\server\\share\\x", "\\\\?\\C:\\x", "lib\\x", "lib/x.", "lib/x ",
                          "lib/.. ", "lib/ ..", "lib/...", "x.dll:stream", "x::$DATA", "include/CON", "include/nul.txt",
                          "lib/COM1.dll", "a\nb", "a\x1b[31mb", "a*b", "a?b"}) {
    EXPECT_FALSE(check_relative_path(bad).ok()) << "accepted: " << bad;
  }
}

TEST(RelativePath, PathsBelowAreStructuralOnly) {
  // What the filesystem walk needs is weaker than what records may hold: a name a user gave a
  // file inside a private folder ("x.") can still be removed, but nothing can climb out.
  EXPECT_TRUE(check_stays_below("trash/x.").ok());
  EXPECT_TRUE(check_stays_below("trash/a:b").ok());
  for (const char* bad : {"..", "a/..", "a/.. ", "a/ .", "/x", "C:x", "a\\b", "a//b", ""}) {
    EXPECT_FALSE(check_stays_below(bad).ok()) << bad;
  }
}

TEST(RelativePath, RelativeBelowOnlyInsideTheRoot) {
  EXPECT_EQ(relative_below("/t", "/t/.cudnnup/b/x"), ".cudnnup/b/x");
  EXPECT_EQ(relative_below("/t", "/t/a/../b"), "b");
  EXPECT_EQ(relative_below("/t", "/t/../etc/x"), "");
  EXPECT_EQ(relative_below("/t", "/tx/y"), "");
  EXPECT_EQ(relative_below("/t", "/t"), "");
  EXPECT_EQ(relative_below("C:/t", "C:/t/x"), "x");
}

TEST(BelowRoot, NeverPassesThroughALinkButActsOnOneAsTheLastComponent) {
  MemoryFileSystem fs;
  fs.add_file("/root/dir/file", "inside");
  fs.add_file("/victim/precious", "outside");
  fs.add_symlink("/root/escape", "/victim");
  fs.add_symlink("/root/dir/link", "/victim/precious");
  EXPECT_EQ(fs.read_below("/root", "dir/file", 0, 100).value_or("?"), "inside");
  EXPECT_EQ(fs.lstat_below("/root", "escape/precious").error().code, ErrorCode::kPermission);
  EXPECT_EQ(fs.read_below("/root", "escape/precious", 0, 100).error().code, ErrorCode::kPermission);
  EXPECT_FALSE(fs.read_below("/root", "dir/link", 0, 100).ok()) << "a link as the file itself is not read through";
  EXPECT_FALSE(fs.remove_below("/root", "escape/precious").ok());
  EXPECT_FALSE(fs.rename_below("/root", "escape/precious", "dir/stolen").ok());
  EXPECT_FALSE(fs.make_dir_below("/root", "escape/new").ok());
  EXPECT_FALSE(fs.remove_tree_below("/root", "escape/..").ok());
  EXPECT_TRUE(fs.remove_tree_below("/root", "escape").ok()) << "the link itself goes, not what it points to";
  EXPECT_TRUE(fs.remove_below("/root", "dir/link").ok());
  EXPECT_EQ(fs.contents("/victim/precious"), "outside");
  EXPECT_FALSE(fs.read_below("/root", "../victim/precious", 0, 100).ok());
}

TEST(BelowRoot, WindowsNamesCannotClimbOutEither) {
  // NTFS drops trailing dots and spaces and ignores case; a component ".. " is "..".
  MemoryFileSystem fs;
  fs.windows_names = true;
  fs.add_file("C:/Root/Dir/File.txt", "inside");
  fs.add_file("C:/Victim/precious", "outside");
  fs.add_symlink("C:/Root/Junction", "C:/Victim");  // a junction
  EXPECT_EQ(fs.read_below("C:/Root", "dir/FILE.TXT", 0, 100).value_or("?"), "inside") << "case folds as on NTFS";
  for (const char* bad : {".. /Victim/precious", "Dir/.. /.. /Victim/precious", "junction/precious", "JUNCTION./precious",
                          "Junction /precious"}) {
    EXPECT_FALSE(fs.read_below("C:/Root", bad, 0, 100).ok()) << bad;
    EXPECT_FALSE(fs.remove_below("C:/Root", std::string(bad)).ok()) << bad;
  }
  EXPECT_EQ(fs.contents("C:/Victim/precious"), "outside");
}

}  // namespace
}  // namespace cudnnup
