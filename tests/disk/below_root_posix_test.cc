// The real filesystem's calls below a root (platform/real_filesystem_posix.cc): they walk with
// openat(O_NOFOLLOW) and act on the directory they opened, so a link anywhere on the way is
// refused, also one swapped in by hand; read_regular never blocks on a FIFO; private files are
// 0600 even when the name existed with another mode.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "platform/real_filesystem.h"
#include "support/fixture_libs.h"

namespace cudnnup {
namespace {

namespace stdfs = std::filesystem;
using testing::make_symlink;
using testing::write_text;

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream all;
  all << in.rdbuf();
  return all.str();
}

class BelowRoot : public ::testing::Test {
 protected:
  testing::TempDir tmp;
  std::unique_ptr<FileSystem> fs = make_real_filesystem();
  std::string root() const { return tmp / "root"; }
  void SetUp() override {
    write_text(root() + "/dir/file", "inside");
    write_text(tmp / "victim/precious", "outside");
    make_symlink(tmp / "victim", root() + "/escape");
    make_symlink(tmp / "victim/precious", root() + "/dir/link");
  }
};

TEST_F(BelowRoot, RefusesEveryLinkOnTheWay) {
  EXPECT_EQ(fs->read_below(root(), "dir/file", 0, 100).value_or("?"), "inside");
  EXPECT_EQ(fs->lstat_below(root(), "escape/precious").error().code, ErrorCode::kPermission);
  EXPECT_FALSE(fs->read_below(root(), "escape/precious", 0, 100).ok());
  EXPECT_FALSE(fs->read_below(root(), "dir/link", 0, 100).ok());
  EXPECT_FALSE(fs->remove_below(root(), "escape/precious").ok());
  EXPECT_FALSE(fs->rename_below(root(), "escape/precious", "dir/stolen").ok());
  EXPECT_FALSE(fs->rename_below(root(), "dir/file", "escape/planted").ok());
  EXPECT_FALSE(fs->make_dir_below(root(), "escape/new").ok());
  EXPECT_FALSE(fs->symlink_below(root(), "x", "escape/new").ok());
  EXPECT_FALSE(fs->list_dir_below(root(), "escape").ok());
  EXPECT_FALSE(fs->read_below(root(), "../victim/precious", 0, 100).ok());
  EXPECT_TRUE(fs->remove_tree_below(root(), "escape").ok()) << "the link goes, not what it points to";
  EXPECT_TRUE(fs->remove_below(root(), "dir/link").ok());
  EXPECT_EQ(bytes_of(tmp / "victim/precious"), "outside");
  EXPECT_TRUE(stdfs::exists(tmp / "victim/precious"));
}

TEST_F(BelowRoot, ADirectoryReplacedByALinkIsRefusedAtTheMomentOfUse) {
  // As an attacker racing a check would: the path was a directory when looked at, a link when used.
  ASSERT_TRUE(fs->lstat_below(root(), "dir/file").ok());
  stdfs::rename(root() + "/dir", tmp / "moved");
  make_symlink(tmp / "victim", root() + "/dir");
  write_text(tmp / "victim/file", "a victim named like ours");
  EXPECT_EQ(fs->remove_below(root(), "dir/file").error().code, ErrorCode::kPermission);
  EXPECT_TRUE(stdfs::exists(tmp / "victim/file"));
}

TEST_F(BelowRoot, ReadRegularDoesNotBlockOnAFifoAndRefusesDevices) {
  ASSERT_EQ(::mkfifo((tmp / "fifo").c_str(), 0644), 0);
  auto fifo = fs->read_regular(tmp / "fifo", 4096, true);
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(fifo.error().message.find("not a regular file"), std::string::npos);
  EXPECT_FALSE(fs->read_regular("/dev/zero", 4096, true).ok());
  EXPECT_FALSE(fs->read_regular(root() + "/dir/link", 4096, /*follow_link=*/false).ok());
  EXPECT_EQ(fs->read_regular(root() + "/dir/link", 4096, /*follow_link=*/true)->bytes, "outside");
  write_text(tmp / "big", std::string(5000, 'x'));
  EXPECT_FALSE(fs->read_regular(tmp / "big", 4096, true).ok());
}

TEST_F(BelowRoot, ReadRegularReadsWholeFilesOfEverySize) {
  // The buffer starts at the size fstat gives (plus one byte, which notices a file past the cap).
  write_text(tmp / "exact", std::string(4096, 'y'));
  EXPECT_EQ(fs->read_regular(tmp / "exact", 4096, true).value_or(FileContents{}).bytes, std::string(4096, 'y'));
  write_text(tmp / "one_over", std::string(4097, 'y'));
  EXPECT_FALSE(fs->read_regular(tmp / "one_over", 4096, true).ok()) << "one byte over the cap is refused";
  write_text(tmp / "one_mib_and_one", std::string((1 << 20) + 1, 'w'));
  EXPECT_EQ(fs->read_regular(tmp / "one_mib_and_one", 2 << 20, true).value_or(FileContents{}).bytes.size(),
            size_t((1 << 20) + 1));
  write_text(tmp / "three_mib", std::string(3 << 20, 'z'));
  EXPECT_EQ(fs->read_regular(tmp / "three_mib", 4 << 20, true).value_or(FileContents{}).bytes.size(), size_t(3 << 20));
  write_text(tmp / "empty", "");
  EXPECT_EQ(fs->read_regular(tmp / "empty", 4096, true).value_or(FileContents{{}, "?"}).bytes, "");
  // /proc files report size 0 but have text: it comes whole, also past the first 4 KiB buffer.
  auto status = fs->read_regular("/proc/self/status", 1 << 20, true);
  ASSERT_TRUE(status.ok());
  EXPECT_NE(status->bytes.find("Name:"), std::string::npos);
  EXPECT_NE(status->bytes.find("VmRSS:"), std::string::npos);
  auto maps = fs->read_regular("/proc/self/maps", 16 << 20, true);
  ASSERT_TRUE(maps.ok());
  ASSERT_GT(maps->bytes.size(), 4096u) << "a test process maps more than 4 KiB of lines";
  EXPECT_EQ(maps->bytes.back(), '\n') << "the last line is whole";
}

TEST_F(BelowRoot, PrivateFilesAreOnlyTheOwners) {
  write_text(tmp / "state.json", "old");
  ::chmod((tmp / "state.json").c_str(), 0666);
  ASSERT_TRUE(fs->write_private_file(tmp / "state.json", "new", false).ok());
  struct stat st;
  ASSERT_EQ(::stat((tmp / "state.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto info = fs->read_regular(tmp / "state.json", 100, false);
  ASSERT_TRUE(info.ok());
  EXPECT_FALSE(info->info.other_owner);
  EXPECT_FALSE(info->info.others_may_write);
  ::chmod((tmp / "state.json").c_str(), 0620);
  EXPECT_TRUE(fs->read_regular(tmp / "state.json", 100, false)->info.others_may_write);
  // A private file is never written through a link planted at its name.
  make_symlink(tmp / "victim/precious", tmp / "journal.tmp");
  EXPECT_FALSE(fs->write_private_file(tmp / "journal.tmp", "x", false).ok());
  EXPECT_EQ(bytes_of(tmp / "victim/precious"), "outside");
}

}  // namespace
}  // namespace cudnnup
