// EarlyProbes (core/diagnose/early_probes.h): probes doctor starts before its scan is complete are
// used only for exactly the request the complete list makes, each once, and no more than the limit
// start.
#include <gtest/gtest.h>

#include "diagnose/early_probes.h"
#include "support/fake_prober.h"
#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using testing::FakeProber;

TEST(EarlyProbes, AnswersOnlyTheRequestItStartedAndOnlyOnce) {
  FakeProber prober;
  prober.set_cudnn_loaded("/a/libcudnn.so.9", 91900, 13000);
  EarlyProbes early(prober, 2);
  early.start({"/a/libcudnn.so.9", "/a"});
  early.start({"/a/libcudnn.so.9", "/a"});  // the same request again: not a second child
  ASSERT_EQ(prober.cudnn_starts.size(), 1u);
  EXPECT_TRUE(early.has({"/a/libcudnn.so.9", "/a"}));
  EXPECT_FALSE(early.has({"/a/libcudnn.so.9", "/other"})) << "another copy's directory: another request";
  EXPECT_FALSE(early.has({"/a/libcudnn.so", "/a"})) << "another shim of the copy: another request";
  LibraryProbe p = early.take({"/a/libcudnn.so.9", "/a"});
  EXPECT_TRUE(p.loaded);
  EXPECT_EQ(p.version.str(), "9.19.0");
  EXPECT_FALSE(early.has({"/a/libcudnn.so.9", "/a"})) << "taken once";
}

TEST(EarlyProbes, StartsNoMoreThanItsLimit) {
  FakeProber prober;
  EarlyProbes early(prober, 2);
  for (const char* dir : {"/a", "/b", "/c"}) early.start({std::string(dir) + "/libcudnn.so.9", dir});
  EXPECT_EQ(early.started(), 2u);
  EXPECT_EQ(prober.cudnn_starts.size(), 2u);
  EXPECT_FALSE(early.has({"/c/libcudnn.so.9", "/c"}));
}

TEST(EarlyProbes, CopiesWithoutALoadableShimStartNothing) {
  FakeProber prober;
  EarlyProbes early(prober, 2);
  CudnnCopy copy;
  copy.lib_dir = "/a";
  CudnnLibrary shim;
  shim.component = "cudnn";
  shim.path = "/a/libcudnn.so.9";
  shim.problems.push_back("empty file");
  copy.libraries.push_back(shim);
  early.start_for({copy});
  EXPECT_EQ(early.started(), 0u);
  copy.libraries[0].problems.clear();
  early.start_for({copy});
  EXPECT_TRUE(early.has({"/a/libcudnn.so.9", "/a"}));
}

TEST(EarlyProbes, ADirectoryStartsOnlyRegularShimsWithBytes) {
  // A FIFO would block the child's dlopen; a dangling link or an empty file would only fail: the
  // scan rejects all three, so none is started early either.
  for (const char* kind : {"fifo", "dangling", "empty", "regular", "link to regular"}) {
    testing::MemoryFileSystem fs;
    fs.add_dir("/a");
    const std::string k = kind;
    if (k == "fifo") fs.add_fifo("/a/libcudnn.so.9");
    if (k == "dangling") fs.add_symlink("/a/libcudnn.so.9", "/a/gone");
    if (k == "empty") fs.add_file("/a/libcudnn.so.9");
    if (k == "regular") fs.add_file("/a/libcudnn.so.9", "\x7f" "ELF...");
    if (k == "link to regular") {
      fs.add_file("/a/libcudnn.so.9.19.0", "\x7f" "ELF...");
      fs.add_symlink("/a/libcudnn.so.9", "libcudnn.so.9.19.0");
    }
    FakeProber prober;
    EarlyProbes early(prober, 4);
    early.start_in_dir(fs, "/a", /*windows=*/false);
    const bool want = k == "regular" || k == "link to regular";
    EXPECT_EQ(early.has({"/a/libcudnn.so.9", "/a"}), want) << kind;
  }
}

}  // namespace
}  // namespace cudnnup
