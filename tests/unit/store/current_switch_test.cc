// The `current` link and the `use` transaction under crashes: MemoryFileSystem::fail_after_writes
// stops the world before the Nth write, which is what a process killed there leaves on disk.
#include <gtest/gtest.h>

#include "store/current_link.h"
#include "store/selection.h"
#include "store/store_recovery.h"
#include "store/use_change.h"
#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;

const std::string kOld = "9.14.0.64+cuda13";
const std::string kNew = "9.19.0.56+cuda13";
const StoreLayout kLayout{"/store"};

void make_store(MemoryFileSystem& fs, bool with_current) {
  fs.add_dir(kLayout.version_dir(kOld) + "/lib");
  fs.add_dir(kLayout.version_dir(kNew) + "/lib");
  if (with_current) fs.add_symlink(kLayout.current_link(), kLayout.version_dir(kOld));
}

// `current` must always exist and point at the old or the new version.
void expect_current_is_old_or_new(const MemoryFileSystem& fs, int crash_point) {
  auto* node = fs.node(kLayout.current_link());
  ASSERT_NE(node, nullptr) << "current missing after a crash before write " << crash_point;
  ASSERT_EQ(node->type, FileType::kSymlink);
  EXPECT_TRUE(node->contents == kLayout.version_dir(kOld) || node->contents == kLayout.version_dir(kNew))
      << node->contents;
  EXPECT_TRUE(fs.is_dir(kLayout.current_link() + "/lib"));  // and it resolves
}

TEST(CurrentSwitch, NeverMissingAtAnyCrashPointAndRecoveryFinishes) {
  int completed_at = -1;
  for (int crash = 0; crash < 20 && completed_at < 0; ++crash) {
    for (bool leftover : {false, true}) {  // also with a current.tmp left by an earlier crash
      MemoryFileSystem fs;
      make_store(fs, true);
      if (leftover) fs.add_symlink(current_temp_path(kLayout), "/store/versions/gone");
      fs.fail_after_writes = crash;
      Status s = switch_current(fs, kLayout, kNew);
      expect_current_is_old_or_new(fs, crash);
      if (s.ok()) {
        EXPECT_EQ(fs.node(kLayout.current_link())->contents, kLayout.version_dir(kNew));
        EXPECT_EQ(fs.node(current_temp_path(kLayout)), nullptr);
        if (!leftover) completed_at = crash;
        continue;
      }
      // The next command's recovery pass removes leftovers and finishes the switch.
      fs.fail_after_writes.reset();
      StoreState state;
      state.global = kNew;
      auto repairs = recover_store(fs, kLayout, state);
      ASSERT_TRUE(repairs.ok()) << repairs.error().message;
      EXPECT_EQ(fs.node(current_temp_path(kLayout)), nullptr);
      EXPECT_EQ(fs.node(kLayout.current_link())->contents, kLayout.version_dir(kNew));
      auto now = read_current(fs, kLayout);
      ASSERT_TRUE(now.ok());
      EXPECT_EQ(*now, kNew);
    }
  }
  EXPECT_GT(completed_at, 0) << "the switch never completed";
}

TEST(CurrentSwitch, UseTransactionKeepsStateAndLinkConsistentAtEveryCrashPoint) {
  bool completed = false;
  for (int crash = 0; crash < 30 && !completed; ++crash) {
    MemoryFileSystem fs;
    make_store(fs, true);
    StoreState initial;
    initial.global = kOld;
    ASSERT_TRUE(save_state(fs, kLayout, initial).ok());
    fs.writes_done = 0;
    fs.log.clear();

    StoreState state = initial;
    fs.fail_after_writes = crash;
    Status s = set_global_default(fs, kLayout, state, kNew, "2026-11-30T00:00:00Z");
    completed = s.ok();
    expect_current_is_old_or_new(fs, crash);
    // state.json is always a whole file: the old one or the new one.
    auto on_disk = load_state(fs, kLayout);
    ASSERT_TRUE(on_disk.ok()) << "crash " << crash << ": " << on_disk.error().message;
    ASSERT_TRUE(on_disk->global == kOld || on_disk->global == kNew);
    if (completed) {
      EXPECT_EQ(on_disk->global, kNew);
      EXPECT_EQ(fs.node(kLayout.current_link())->contents, kLayout.version_dir(kNew));
      ASSERT_EQ(on_disk->history.size(), 1u);
      EXPECT_EQ(on_disk->history[0].from, kOld);
      EXPECT_EQ(on_disk->history[0].to, kNew);
    }
    // After recovery `current` agrees with state.json and no temp file is left.
    fs.fail_after_writes.reset();
    auto repairs = recover_store(fs, kLayout, *on_disk);
    ASSERT_TRUE(repairs.ok()) << repairs.error().message;
    EXPECT_EQ(fs.node(current_temp_path(kLayout)), nullptr);
    EXPECT_EQ(fs.node(state_temp_path(kLayout)), nullptr);
    EXPECT_EQ(*read_current(fs, kLayout), on_disk->global) << "crash point " << crash;
  }
  EXPECT_TRUE(completed);
}

TEST(CurrentSwitch, FirstUseCreatesTheLink) {
  MemoryFileSystem fs;
  make_store(fs, false);
  StoreState state;
  ASSERT_TRUE(set_global_default(fs, kLayout, state, kNew, "t").ok());
  EXPECT_EQ(*read_current(fs, kLayout), kNew);
  EXPECT_EQ(load_state(fs, kLayout)->global, kNew);
}

TEST(CurrentSwitch, WithoutLinksTheDefaultIsStillRecorded) {
  MemoryFileSystem fs;
  make_store(fs, true);
  fs.fail_paths.insert(current_temp_path(kLayout));  // this filesystem cannot make links
  StoreState state;
  state.global = kOld;
  EXPECT_FALSE(set_global_default(fs, kLayout, state, kNew, "t").ok());  // strict by default
  std::string problem;
  ASSERT_TRUE(set_global_default(fs, kLayout, state, kNew, "t", &problem).ok());
  EXPECT_FALSE(problem.empty());
  EXPECT_EQ(load_state(fs, kLayout)->global, kNew);
  EXPECT_EQ(*read_current(fs, kLayout), kOld);  // the link could not follow
  // Recovery notes it instead of failing every later command.
  auto loaded = load_state(fs, kLayout);
  ASSERT_TRUE(loaded.ok());
  auto repairs = recover_store(fs, kLayout, *loaded);
  ASSERT_TRUE(repairs.ok());
  ASSERT_EQ(repairs->size(), 1u);
  EXPECT_NE(repairs->at(0).find("could not point"), std::string::npos);
}

// Issue 20: under Wine (no junctions) a second `use` of the same version recorded another change.
// Only a new selection is a change; where links cannot be made at all, `use` says so each time
// it is asked and no other command complains.
TEST(CurrentSwitch, UseAgainOfTheDefaultInForceIsNoChangeAlsoWithoutLinks) {
  MemoryFileSystem fs;
  make_store(fs, false);
  fs.links_unsupported = true;
  StoreState state;
  std::string problem;
  auto first = choose_global_default(fs, kLayout, state, kNew, "t1", &problem);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_TRUE(*first);
  EXPECT_FALSE(problem.empty()) << "the link could not be made, and `use` says so";
  EXPECT_EQ(load_state(fs, kLayout)->history.size(), 1u);
  // Every later command repairs at start: environment-only mode is nothing to repair or report.
  auto loaded = load_state(fs, kLayout);
  ASSERT_TRUE(loaded.ok());
  auto repairs = recover_store(fs, kLayout, *loaded);
  ASSERT_TRUE(repairs.ok());
  EXPECT_TRUE(repairs->empty()) << repairs->front();
  std::string again_problem;
  auto again = choose_global_default(fs, kLayout, *loaded, kNew, "t2", &again_problem);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again) << "no change";
  EXPECT_FALSE(again_problem.empty()) << "said again, once, by the command that was asked";
  EXPECT_EQ(load_state(fs, kLayout)->history.size(), 1u) << "no second history entry";
  EXPECT_EQ(load_state(fs, kLayout)->global, kNew);
  // `system` twice: one change.
  ASSERT_TRUE(*choose_global_default(fs, kLayout, *loaded, std::string(kSystemSelection), "t3", &problem));
  EXPECT_FALSE(*choose_global_default(fs, kLayout, *loaded, std::string(kSystemSelection), "t4", &problem));
  EXPECT_EQ(load_state(fs, kLayout)->history.size(), 2u);
}

TEST(CurrentSwitch, UseAgainRemakesAMissingLinkWithoutRecordingAChange) {
  MemoryFileSystem fs;
  make_store(fs, false);
  StoreState state;
  ASSERT_TRUE(*choose_global_default(fs, kLayout, state, kNew, "t1", nullptr));
  ASSERT_TRUE(fs.remove(kLayout.current_link()).ok());  // removed by hand
  std::string problem;
  auto again = choose_global_default(fs, kLayout, state, kNew, "t2", &problem);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  EXPECT_TRUE(problem.empty()) << problem;
  EXPECT_EQ(*read_current(fs, kLayout), kNew) << "made again";
  EXPECT_EQ(load_state(fs, kLayout)->history.size(), 1u);
}

TEST(CurrentSwitch, RefusesToReplaceARealDirectory) {
  MemoryFileSystem fs;
  make_store(fs, false);
  fs.add_file(kLayout.current_link() + "/lib/libcudnn.so.9", "someone's data");
  Status s = switch_current(fs, kLayout, kNew);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kConflict);
  EXPECT_EQ(fs.contents(kLayout.current_link() + "/lib/libcudnn.so.9"), "someone's data");
  EXPECT_FALSE(read_current(fs, kLayout).ok());
}

TEST(StateStore, DamagedStateFileIsNamed) {
  MemoryFileSystem fs;
  fs.add_file(kLayout.state_file(), "{\"global\": ");
  auto state = load_state(fs, kLayout);
  ASSERT_FALSE(state.ok());
  EXPECT_EQ(state.error().code, ErrorCode::kCorrupt);
  EXPECT_EQ(state.error().path, kLayout.state_file());
}

TEST(StateStore, RoundTripsAndBoundsHistory) {
  StoreState state;
  state.global = kNew;
  for (int i = 0; i < 250; ++i) state.record(HistoryEntry{0, "t", "use", kOld, kNew, "", 0});
  EXPECT_EQ(state.history.size(), StoreState::kMaxHistory);
  auto back = state_from_json(state_to_json(state), "x");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->global, kNew);
  EXPECT_EQ(back->history.size(), StoreState::kMaxHistory);
  EXPECT_EQ(back->history.back().seq, 250);
  EXPECT_EQ(back->next_seq, 251);
}

TEST(UseUndo, RevertsGlobalAndPinChangesInReverseOrder) {
  MemoryFileSystem fs;
  make_store(fs, false);
  fs.add_dir("/p");
  auto installed = *list_installed(fs, kLayout);
  StoreState state;
  ASSERT_TRUE(set_global_default(fs, kLayout, state, kOld, "t1").ok());
  ASSERT_TRUE(set_global_default(fs, kLayout, state, kNew, "t2").ok());
  ASSERT_TRUE(set_pin_file(fs, kLayout, state, "/p/.cudnn-version", std::string("9.14"), "t3").ok());
  EXPECT_EQ(fs.contents("/p/.cudnn-version"), "9.14\n");

  auto u1 = undo_last_change(fs, kLayout, state, installed, "t4");
  ASSERT_TRUE(u1.ok()) << u1.error().message;
  EXPECT_EQ(u1->undoes, 3);
  EXPECT_FALSE(fs.exists("/p/.cudnn-version"));

  auto u2 = undo_last_change(fs, kLayout, state, installed, "t5");
  ASSERT_TRUE(u2.ok());
  EXPECT_EQ(state.global, kOld);
  EXPECT_EQ(*read_current(fs, kLayout), kOld);

  auto u3 = undo_last_change(fs, kLayout, state, installed, "t6");
  ASSERT_TRUE(u3.ok());
  EXPECT_FALSE(state.global);
  EXPECT_FALSE(fs.exists(kLayout.current_link()));

  EXPECT_FALSE(undo_last_change(fs, kLayout, state, installed, "t7").ok());
  // All of it is on disk, not just in memory.
  auto on_disk = load_state(fs, kLayout);
  ASSERT_TRUE(on_disk.ok());
  EXPECT_FALSE(on_disk->global);
  EXPECT_EQ(on_disk->history.size(), 6u);
}

TEST(UseUndo, RefusesWhenThePinFileWasEditedOrTheVersionIsGone) {
  MemoryFileSystem fs;
  make_store(fs, false);
  fs.add_dir("/p");
  auto installed = *list_installed(fs, kLayout);
  StoreState state;
  ASSERT_TRUE(set_pin_file(fs, kLayout, state, "/p/.cudnn-version", std::string("9.14"), "t").ok());
  fs.add_file("/p/.cudnn-version", "9.19\n");  // edited by hand
  auto edited = undo_last_change(fs, kLayout, state, installed, "t");
  ASSERT_FALSE(edited.ok());
  EXPECT_EQ(edited.error().code, ErrorCode::kConflict);
  EXPECT_EQ(fs.contents("/p/.cudnn-version"), "9.19\n");

  StoreState global;
  ASSERT_TRUE(set_global_default(fs, kLayout, global, kOld, "t").ok());
  ASSERT_TRUE(set_global_default(fs, kLayout, global, kNew, "t").ok());
  std::vector<StoreVersionId> without_old;
  for (const auto& id : installed) {
    if (id.id != kOld) without_old.push_back(id);
  }
  auto gone = undo_last_change(fs, kLayout, global, without_old, "t");
  ASSERT_FALSE(gone.ok());
  EXPECT_NE(gone.error().message.find("no longer installed"), std::string::npos);
  EXPECT_EQ(global.global, kNew);
}

}  // namespace
}  // namespace cudnnup
