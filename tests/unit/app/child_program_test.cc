// Which program runs a child process: the lean cudnnup-child beside cudnnup, or cudnnup itself.
#include <gtest/gtest.h>

#include "app/child/child_runner.h"
#include "support/memory_fs.h"

namespace cudnnup::testing {
namespace {

TEST(ChildProgram, TheLeanChildBesideCudnnupWhenItIsThere) {
  MemoryFileSystem fs;
  fs.add_file("/opt/cudnnup/bin/cudnnup", "elf");
  fs.add_file("/opt/cudnnup/bin/cudnnup-child", "elf");
  EXPECT_EQ(child_program(fs, "/opt/cudnnup/bin/cudnnup"), "/opt/cudnnup/bin/cudnnup-child");
}

TEST(ChildProgram, CudnnupItselfWhenTheLeanChildIsMissingOrNotAFile) {
  MemoryFileSystem fs;
  fs.add_file("/a/cudnnup", "elf");
  EXPECT_EQ(child_program(fs, "/a/cudnnup"), "/a/cudnnup");
  fs.add_file("/b/cudnnup", "elf");
  fs.add_dir("/b/cudnnup-child");
  EXPECT_EQ(child_program(fs, "/b/cudnnup"), "/b/cudnnup");
  // A lean child somewhere else (the current directory, another cudnnup's folder) never counts.
  fs.add_file("/c/cudnnup-child", "elf");
  EXPECT_EQ(child_program(fs, "cudnnup"), "cudnnup");
  EXPECT_EQ(child_program(fs, "/d/cudnnup"), "/d/cudnnup");
}

// Only a lean child as trustworthy as cudnnup itself is run (docs/security.md).
TEST(ChildProgram, NeverOneOthersCouldHaveWrittenOrPutThere) {
  auto machine = [] {
    MemoryFileSystem fs;
    fs.add_dir("/opt/c");
    fs.set_mode("/opt/c", 0755);
    fs.add_file("/opt/c/cudnnup", "elf");
    fs.add_file("/opt/c/cudnnup-child", "elf");
    return fs;
  };
  {
    MemoryFileSystem fs = machine();
    fs.set_mode("/opt/c/cudnnup-child", 0666);  // anyone may rewrite it
    EXPECT_EQ(child_program(fs, "/opt/c/cudnnup"), "/opt/c/cudnnup");
  }
  {
    MemoryFileSystem fs = machine();
    fs.set_other_owner("/opt/c/cudnnup-child");  // another user's file beside our own cudnnup
    EXPECT_EQ(child_program(fs, "/opt/c/cudnnup"), "/opt/c/cudnnup");
  }
  {
    MemoryFileSystem fs = machine();
    fs.set_mode("/opt/c", 01777);  // a shared folder such as /tmp: anyone could have put it there
    EXPECT_EQ(child_program(fs, "/opt/c/cudnnup"), "/opt/c/cudnnup");
  }
  {
    MemoryFileSystem fs;
    fs.add_dir("/opt/d");
    fs.add_file("/opt/d/cudnnup", "elf");
    fs.add_file("/opt/d/real-child", "elf");
    fs.add_symlink("/opt/d/cudnnup-child", "/opt/d/real-child");  // a link is not the file itself
    EXPECT_EQ(child_program(fs, "/opt/d/cudnnup"), "/opt/d/cudnnup");
  }
  {
    // A system install: both files belong to root, not to the user who runs them.
    MemoryFileSystem fs = machine();
    fs.set_other_owner("/opt/c/cudnnup");
    fs.set_other_owner("/opt/c/cudnnup-child");
    EXPECT_EQ(child_program(fs, "/opt/c/cudnnup"), "/opt/c/cudnnup-child");
  }
}

}  // namespace
}  // namespace cudnnup::testing
