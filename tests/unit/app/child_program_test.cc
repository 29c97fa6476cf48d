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

}  // namespace
}  // namespace cudnnup::testing
