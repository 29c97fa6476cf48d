#include "store/toolkit_link.h"

#include <gtest/gtest.h>

#include "store/current_link.h"
#include "support/memory_fs.h"

#include <functional>
#include <nlohmann/json.hpp>

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;

const StoreLayout kLinkStore{"/store"};
const std::string kCuda = "/usr/local/cuda-12.4";

// A store with two 9.x versions, `current` on the first, and a toolkit with its own cuDNN laid
// out like the redist archive copied in by hand (real file + soname link + dev link).
void make_machine(MemoryFileSystem& fs) {
  for (const std::string id : {"9.19.0.56+cuda13", "9.14.0.64+cuda13"}) {
    std::string d = kLinkStore.version_dir(id);
    fs.add_file(d + "/lib/libcudnn.so." + (id[2] == '1' && id[3] == '9' ? "9.19.0" : "9.14.0"), id);
    fs.add_symlink(d + "/lib/libcudnn.so.9", "libcudnn.so." + std::string(id[3] == '9' ? "9.19.0" : "9.14.0"));
    fs.add_symlink(d + "/lib/libcudnn.so", "libcudnn.so.9");
    fs.add_file(d + "/include/cudnn.h", "header " + id);
  }
  fs.add_symlink(kLinkStore.current_link(), kLinkStore.version_dir("9.19.0.56+cuda13"));
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
  auto plan = plan_toolkit_link(fs, kLinkStore, kCuda, false);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  std::vector<std::string> links;
  for (const auto& l : plan->links) links.push_back(l.link + " -> " + l.target);
  // Paths in the toolkit are relative to its real path, which the plan records.
  EXPECT_EQ(plan->cuda_dir, kCuda);
  EXPECT_EQ(links, (std::vector<std::string>{"lib64/libcudnn.so -> /store/current/lib/libcudnn.so",
                                             "lib64/libcudnn.so.9 -> /store/current/lib/libcudnn.so.9",
                                             "include/cudnn.h -> /store/current/include/cudnn.h"}));
  ASSERT_EQ(plan->aside.size(), 4u);  // cudnn.h, libcudnn.so, libcudnn.so.9, libcudnn.so.9.1.0; not cudart
  EXPECT_EQ(plan->aside[0].from, "include/cudnn.h");
  EXPECT_EQ(plan->aside[0].to, ".cudnnup-aside/include/cudnn.h");
}

TEST(ToolkitLink, FollowsCurrentAndUndoRestoresTheToolkitExactly) {
  MemoryFileSystem fs;
  make_machine(fs);
  auto before = toolkit_nodes(fs);
  auto plan = plan_toolkit_link(fs, kLinkStore, kCuda, false);
  ASSERT_TRUE(plan.ok());
  ASSERT_TRUE(apply_toolkit_link(fs, *plan, "t").ok());
  EXPECT_EQ(fs.contents(*fs.canonical(kCuda + "/lib64/libcudnn.so")), "9.19.0.56+cuda13");
  ASSERT_TRUE(switch_current(fs, kLinkStore, "9.14.0.64+cuda13").ok());
  EXPECT_EQ(fs.contents(*fs.canonical(kCuda + "/lib64/libcudnn.so.9")), "9.14.0.64+cuda13");
  EXPECT_EQ(fs.contents(*fs.canonical(kCuda + "/include/cudnn.h")), "header 9.14.0.64+cuda13");
  EXPECT_FALSE(plan_toolkit_link(fs, kLinkStore, kCuda, false).ok());  // already linked
  ASSERT_TRUE(undo_toolkit_link(fs, kCuda).ok());
  EXPECT_TRUE(same(before, toolkit_nodes(fs)));
}

TEST(ToolkitLink, UndoAfterACrashAtAnyPointRestoresTheToolkit) {
  bool completed = false;
  for (int crash = 0; crash < 60 && !completed; ++crash) {
    MemoryFileSystem fs;
    make_machine(fs);
    auto before = toolkit_nodes(fs);
    auto plan = plan_toolkit_link(fs, kLinkStore, kCuda, false);
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
    auto plan = plan_toolkit_link(fs, kLinkStore, kCuda, false);
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
  EXPECT_EQ(plan_toolkit_link(fs, kLinkStore, "/tmp/empty", false).error().code, ErrorCode::kNotFound);
  fs.nodes.erase(kLinkStore.current_link());
  auto no_default = plan_toolkit_link(fs, kLinkStore, kCuda, false);
  ASSERT_FALSE(no_default.ok());
  EXPECT_NE(no_default.error().message.find("cudnnup use VERSION"), std::string::npos);
}

}  // namespace
}  // namespace cudnnup

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;

// --- link as a transaction: the store's record, crash recovery, roll back, reports. ---

std::map<std::string, MemoryFileSystem::Node> linked_nodes(MemoryFileSystem fs) {
  StoreState state;
  auto plan = plan_toolkit_link(fs, kLinkStore, kCuda, false);
  EXPECT_TRUE(plan.ok());
  EXPECT_TRUE(link_toolkit(fs, kLinkStore, state, *plan, "t").ok());
  return toolkit_nodes(fs);
}

// The recovery every command runs first, as app/commands/recovery.cc drives it.
void recover_links(MemoryFileSystem& fs) {
  auto state = load_state(fs, kLinkStore);
  ASSERT_TRUE(state.ok()) << state.error().message;
  std::vector<std::string> pending;
  for (const auto& l : state->links) pending.push_back(l.cuda_dir);
  for (const auto& d : pending) ASSERT_TRUE(recover_toolkit_link(fs, kLinkStore, *state, d).ok());
}

bool store_records_link(const MemoryFileSystem& fs) {
  auto state = load_state(fs, kLinkStore);
  return state.ok() && !state->links.empty() && state->links[0].status == "linked" && state->links[0].cuda_dir == kCuda;
}

TEST(ToolkitLinkTransaction, ACrashAtEveryWriteOfLinkLeavesExactlyTheOldOrTheNewState) {
  MemoryFileSystem clean;
  make_machine(clean);
  auto old_nodes = toolkit_nodes(clean);
  auto new_nodes = linked_nodes(clean);
  bool completed = false;
  for (int crash = 0; crash < 80 && !completed; ++crash) {
    MemoryFileSystem fs;
    make_machine(fs);
    StoreState state;
    auto plan = plan_toolkit_link(fs, kLinkStore, kCuda, false);
    ASSERT_TRUE(plan.ok());
    fs.fail_after_writes = crash;
    completed = link_toolkit(fs, kLinkStore, state, *plan, "t").ok();
    fs.fail_after_writes.reset();
    recover_links(fs);
    auto now = toolkit_nodes(fs);
    bool is_old = same(now, old_nodes), is_new = same(now, new_nodes);
    EXPECT_TRUE(is_old || is_new) << "crash before write " << crash;
    EXPECT_EQ(store_records_link(fs), is_new) << "crash " << crash << ": the store's record disagrees with the toolkit";
    auto state_now = load_state(fs, kLinkStore);
    ASSERT_TRUE(state_now.ok());
    if (is_old) {
      EXPECT_TRUE(state_now->links.empty()) << crash;
    }
  }
  EXPECT_TRUE(completed);
}

TEST(ToolkitLinkTransaction, ACrashAtEveryWriteOfUndoLeavesExactlyTheLinkedOrTheOriginalState) {
  MemoryFileSystem clean;
  make_machine(clean);
  auto old_nodes = toolkit_nodes(clean);
  bool completed = false;
  for (int crash = 0; crash < 80 && !completed; ++crash) {
    MemoryFileSystem fs;
    make_machine(fs);
    StoreState state;
    auto plan = plan_toolkit_link(fs, kLinkStore, kCuda, false);
    ASSERT_TRUE(link_toolkit(fs, kLinkStore, state, *plan, "t").ok());
    auto linked = toolkit_nodes(fs);
    fs.writes_done = 0;
    fs.fail_after_writes = crash;
    completed = unlink_toolkit(fs, kLinkStore, state, kCuda).ok();
    fs.fail_after_writes.reset();
    recover_links(fs);
    auto now = toolkit_nodes(fs);
    bool is_old = same(now, old_nodes), is_linked = same(now, linked);
    EXPECT_TRUE(is_old || is_linked) << "crash before write " << crash;
    EXPECT_EQ(store_records_link(fs), is_linked) << "crash " << crash;
  }
  EXPECT_TRUE(completed);
}

TEST(ToolkitLinkTransaction, AFailurePartWayRollsBackToTheExactOldState) {
  // An immutable include/ (chattr +i): the lib64 links are made, then include/ refuses.
  MemoryFileSystem fs;
  make_machine(fs);
  auto before = toolkit_nodes(fs);
  fs.fail_paths.insert(kCuda + "/include/cudnn.h.cudnnup-new");
  StoreState state;
  auto plan = plan_toolkit_link(fs, kLinkStore, kCuda, false);
  ASSERT_TRUE(plan.ok());
  auto s = link_toolkit(fs, kLinkStore, state, *plan, "t");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("nothing was changed"), std::string::npos) << s.error().message;
  EXPECT_TRUE(same(before, toolkit_nodes(fs)));
  EXPECT_FALSE(fs.exists(kLinkStore.state_file())) << "the store forgets the toolkit again";
}

TEST(ToolkitLinkTransaction, UndoReportsWhatItRestoredAndWhatItKeptBecauseTheUserChangedIt) {
  MemoryFileSystem fs;
  make_machine(fs);
  StoreState state;
  auto plan = plan_toolkit_link(fs, kLinkStore, kCuda, false);
  ASSERT_TRUE(link_toolkit(fs, kLinkStore, state, *plan, "t").ok());
  // The user replaced one of our links with a file of their own.
  ASSERT_TRUE(fs.remove(kCuda + "/include/cudnn.h"));
  fs.add_file(kCuda + "/include/cudnn.h", "my own header");
  auto r = unlink_toolkit(fs, kLinkStore, state, kCuda);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->kept.size(), 1u);
  EXPECT_EQ(r->kept[0].path, kCuda + "/include/cudnn.h");
  EXPECT_EQ(r->kept[0].aside, kCuda + "/.cudnnup-aside/include/cudnn.h");
  EXPECT_EQ(fs.contents(kCuda + "/include/cudnn.h"), "my own header");
  EXPECT_EQ(fs.contents(kCuda + "/.cudnnup-aside/include/cudnn.h"), "toolkit header") << "the original is not lost";
  EXPECT_EQ(r->restored.size(), 3u) << "libcudnn.so, .so.9, .so.9.1.0";
  EXPECT_EQ(r->removed.size(), 0u) << "every other link was replaced by the file it displaced";
  for (const auto& p : r->restored) EXPECT_NE(p, kCuda + "/include/cudnn.h");
  EXPECT_TRUE(state.links.empty());
  // The kept original blocks a new link until the user decides.
  EXPECT_EQ(plan_toolkit_link(fs, kLinkStore, kCuda, false).error().code, ErrorCode::kConflict);
}

TEST(ToolkitLinkTransaction, TheManifestHoldsTheRealPathSoARepointedLinkChangesNothing) {
  MemoryFileSystem fs;
  make_machine(fs);
  fs.add_symlink("/usr/local/cuda", kCuda);
  fs.add_file("/usr/local/cuda-13.0/include/cuda.h", "other toolkit");
  fs.add_dir("/usr/local/cuda-13.0/lib64");
  StoreState state;
  auto plan = plan_toolkit_link(fs, kLinkStore, "/usr/local/cuda", false);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->cuda_dir, kCuda);
  ASSERT_TRUE(link_toolkit(fs, kLinkStore, state, *plan, "t").ok());
  auto linked = toolkit_nodes(fs);
  ASSERT_TRUE(fs.remove("/usr/local/cuda"));
  fs.add_symlink("/usr/local/cuda", "/usr/local/cuda-13.0");
  auto r = undo_toolkit_link(fs, "/usr/local/cuda");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
  EXPECT_TRUE(same(linked, toolkit_nodes(fs)));
  EXPECT_TRUE(undo_toolkit_link(fs, kCuda).ok());
}

TEST(ToolkitLinkTransaction, RefusesTargetsInsideTheStore) {
  MemoryFileSystem fs;
  make_machine(fs);
  for (const std::string& inside : {kLinkStore.current_link(), kLinkStore.version_dir("9.14.0.64+cuda13"), kLinkStore.root}) {
    auto plan = plan_toolkit_link(fs, kLinkStore, inside, false);
    ASSERT_FALSE(plan.ok()) << inside;
    EXPECT_EQ(plan.error().code, ErrorCode::kUsage) << inside;
    EXPECT_NE(plan.error().message.find("inside the cudnnup store"), std::string::npos);
  }
}

TEST(ToolkitLinkTransaction, KnowsWhichLinksWouldDangle) {
  MemoryFileSystem fs;
  make_machine(fs);
  fs.add_file(kLinkStore.version_dir("8.9.7.29+cuda12") + "/include/cudnn.h", "8.9");
  StoreState state;
  auto plan = plan_toolkit_link(fs, kLinkStore, kCuda, false);
  ASSERT_TRUE(link_toolkit(fs, kLinkStore, state, *plan, "t").ok());
  EXPECT_TRUE(links_that_would_dangle(fs, kLinkStore, state, std::string("9.14.0.64+cuda13")).empty());
  auto to_8 = links_that_would_dangle(fs, kLinkStore, state, std::string("8.9.7.29+cuda12"));
  ASSERT_EQ(to_8.size(), 2u) << "libcudnn.so and libcudnn.so.9; cudnn.h exists in 8.9 too";
  EXPECT_EQ(to_8[0], kCuda + "/lib64/libcudnn.so -> /store/current/lib/libcudnn.so");
  EXPECT_EQ(links_that_would_dangle(fs, kLinkStore, state, std::nullopt).size(), 3u);
}

TEST(ToolkitLinkTransaction, APlantedLinkManifestIsNotActedOn) {
  const std::vector<std::pair<std::string, std::function<void(nlohmann::json&)>>> cases = {
      {"aside to an absolute path", [](nlohmann::json& j) { j["aside"][0]["to"] = "/home/u/precious"; }},
      {"aside climbing out", [](nlohmann::json& j) { j["aside"][0]["from"] = "../../../home/u/precious"; }},
      {"a link outside the toolkit", [](nlohmann::json& j) { j["links"][0]["link"] = "/home/u/precious"; }},
      {"a target outside the store's current", [](nlohmann::json& j) { j["links"][0]["target"] = "/etc/shadow"; }},
      {"written for another directory", [](nlohmann::json& j) { j["cuda_dir"] = "/home/u"; }},
      {"an older schema with absolute paths", [](nlohmann::json& j) { j["schema"] = 1; }},
  };
  for (const auto& [name, change] : cases) {
    MemoryFileSystem fs;
    make_machine(fs);
    fs.add_file("/home/u/precious", "precious");
    StoreState state;
    auto plan = plan_toolkit_link(fs, kLinkStore, kCuda, false);
    ASSERT_TRUE(plan.ok());
    ASSERT_TRUE(apply_toolkit_link(fs, *plan, "t").ok());
    auto j = nlohmann::json::parse(fs.contents(link_manifest_path(kCuda)));
    change(j);
    ASSERT_TRUE(fs.write_private_file(link_manifest_path(kCuda), j.dump(), false).ok());
    auto before = toolkit_nodes(fs);
    auto r = undo_toolkit_link(fs, kCuda);
    EXPECT_FALSE(r.ok()) << name;
    EXPECT_TRUE(same(before, toolkit_nodes(fs))) << name;
    EXPECT_EQ(fs.contents("/home/u/precious"), "precious") << name;
  }
}

}  // namespace
}  // namespace cudnnup
