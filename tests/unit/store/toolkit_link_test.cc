#include "store/toolkit_link.h"

#include <gtest/gtest.h>

#include "store/current_link.h"
#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;

const StoreLayout kStore{"/store"};
const std::string kCuda = "/usr/local/cuda-12.4";

// A store with two 9.x versions, `current` on the first, and a toolkit with its own cuDNN laid
// out like the redist archive copied in by hand (real file + soname link + dev link).
void make_machine(MemoryFileSystem& fs) {
  for (const std::string id : {"9.19.0.56+cuda13", "9.14.0.64+cuda13"}) {
    std::string d = kStore.version_dir(id);
    fs.add_file(d + "/lib/libcudnn.so." + (id[2] == '1' && id[3] == '9' ? "9.19.0" : "9.14.0"), id);
    fs.add_symlink(d + "/lib/libcudnn.so.9", "libcudnn.so." + std::string(id[3] == '9' ? "9.19.0" : "9.14.0"));
    fs.add_symlink(d + "/lib/libcudnn.so", "libcudnn.so.9");
    fs.add_file(d + "/include/cudnn.h", "header " + id);
  }
  fs.add_symlink(kStore.current_link(), kStore.version_dir("9.19.0.56+cuda13"));
  fs.add_file(kCuda + "/lib64/libcudnn.so.9.1.0", "toolkit's own");
  fs.add_symlink(kCuda + "/lib64/libcudnn.so.9", "libcudnn.so.9.1.0");
  fs.add_symlink(kCuda + "/lib64/libcudnn.so", "libcudnn.so.9");
  fs.add_file(kCuda + "/lib64/libcudart.so.12", "cudart");
  fs.add_file(kCuda + "/include/cudnn.h", "toolkit header");
  fs.add_file(kCuda + "/include/cuda.h", "cuda");
}

std::map<std::string, MemoryFileSystem::Node> toolkit_nodes(const MemoryFileSystem& fs) {
  std::map<std::string, MemoryFileSystem::Node> out;
  for (const auto& [path, node] : fs.nodes) {
    if (path.rfind(kCuda + "/", 0) == 0) out[path] = node;
  }
  return out;
}

bool same(const std::map<std::string, MemoryFileSystem::Node>& a, const std::map<std::string, MemoryFileSystem::Node>& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end() || it->second.type != v.type || it->second.contents != v.contents) return false;
  }
  return true;
}

TEST(ToolkitLink, PlansStableNamesAndFindsTheToolkitsOwnFiles) {
  MemoryFileSystem fs;
  make_machine(fs);
  auto plan = plan_toolkit_link(fs, kStore, kCuda, false);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  std::vector<std::string> links;
  for (const auto& l : plan->links) links.push_back(l.link + " -> " + l.target);
  EXPECT_EQ(links, (std::vector<std::string>{kCuda + "/lib64/libcudnn.so -> /store/current/lib/libcudnn.so",
                                             kCuda + "/lib64/libcudnn.so.9 -> /store/current/lib/libcudnn.so.9",
                                             kCuda + "/include/cudnn.h -> /store/current/include/cudnn.h"}));
  ASSERT_EQ(plan->aside.size(), 4u);  // cudnn.h, libcudnn.so, libcudnn.so.9, libcudnn.so.9.1.0; not cudart
  EXPECT_EQ(plan->aside[0].from, kCuda + "/include/cudnn.h");
  EXPECT_EQ(plan->aside[0].to, kCuda + "/.cudnnup-aside/include/cudnn.h");
}

TEST(ToolkitLink, FollowsCurrentAndUndoRestoresTheToolkitExactly) {
  MemoryFileSystem fs;
  make_machine(fs);
  auto before = toolkit_nodes(fs);
  auto plan = plan_toolkit_link(fs, kStore, kCuda, false);
  ASSERT_TRUE(plan.ok());
  ASSERT_TRUE(apply_toolkit_link(fs, *plan, "t").ok());
  EXPECT_EQ(fs.contents(*fs.canonical(kCuda + "/lib64/libcudnn.so")), "9.19.0.56+cuda13");
  ASSERT_TRUE(switch_current(fs, kStore, "9.14.0.64+cuda13").ok());
  EXPECT_EQ(fs.contents(*fs.canonical(kCuda + "/lib64/libcudnn.so.9")), "9.14.0.64+cuda13");
  EXPECT_EQ(fs.contents(*fs.canonical(kCuda + "/include/cudnn.h")), "header 9.14.0.64+cuda13");
  EXPECT_FALSE(plan_toolkit_link(fs, kStore, kCuda, false).ok());  // already linked
  ASSERT_TRUE(undo_toolkit_link(fs, kCuda).ok());
  EXPECT_TRUE(same(before, toolkit_nodes(fs)));
}

TEST(ToolkitLink, UndoAfterACrashAtAnyPointRestoresTheToolkit) {
  bool completed = false;
  for (int crash = 0; crash < 60 && !completed; ++crash) {
    MemoryFileSystem fs;
    make_machine(fs);
    auto before = toolkit_nodes(fs);
    auto plan = plan_toolkit_link(fs, kStore, kCuda, false);
    ASSERT_TRUE(plan.ok());
    fs.fail_after_writes = crash;
    completed = apply_toolkit_link(fs, *plan, "t").ok();
    // The loader's names never go missing: libcudnn.so.9 is the toolkit's or ours at every point.
    auto so9 = fs.canonical(kCuda + "/lib64/libcudnn.so.9");
    ASSERT_TRUE(so9.ok()) << "libcudnn.so.9 missing after a crash before write " << crash;
    fs.fail_after_writes.reset();
    auto undone = undo_toolkit_link(fs, kCuda);
    // Only when nothing at all was written may undo say "not linked".
    ASSERT_TRUE(undone.ok() || (crash == 0 && undone.error().code == ErrorCode::kNotFound))
        << "crash " << crash << ": " << undone.error().message;
    EXPECT_TRUE(same(before, toolkit_nodes(fs))) << "crash point " << crash;
  }
  EXPECT_TRUE(completed);
}

TEST(ToolkitLink, AnUndoInterruptedAtAnyPointCanBeRunAgain) {
  bool completed = false;
  for (int crash = 0; crash < 60 && !completed; ++crash) {
    MemoryFileSystem fs;
    make_machine(fs);
    auto before = toolkit_nodes(fs);
    auto plan = plan_toolkit_link(fs, kStore, kCuda, false);
    ASSERT_TRUE(plan.ok());
    ASSERT_TRUE(apply_toolkit_link(fs, *plan, "t").ok());
    fs.writes_done = 0;
    fs.fail_after_writes = crash;
    completed = undo_toolkit_link(fs, kCuda).ok();
    ASSERT_TRUE(fs.canonical(kCuda + "/lib64/libcudnn.so.9").ok()) << "crash " << crash;
    fs.fail_after_writes.reset();
    if (!completed) {
      ASSERT_TRUE(undo_toolkit_link(fs, kCuda).ok()) << "crash " << crash;
    }
    EXPECT_TRUE(same(before, toolkit_nodes(fs))) << "crash point " << crash;
  }
  EXPECT_TRUE(completed);
}

TEST(ToolkitLink, RefusesWhatIsNotAToolkitAndNeedsAGlobalDefault) {
  MemoryFileSystem fs;
  make_machine(fs);
  fs.add_dir("/tmp/empty");
  EXPECT_EQ(plan_toolkit_link(fs, kStore, "/tmp/empty", false).error().code, ErrorCode::kNotFound);
  fs.nodes.erase(kStore.current_link());
  auto no_default = plan_toolkit_link(fs, kStore, kCuda, false);
  ASSERT_FALSE(no_default.ok());
  EXPECT_NE(no_default.error().message.find("cudnnup use VERSION"), std::string::npos);
}

}  // namespace
}  // namespace cudnnup
