// `use`, `use --local` and `use --undo` killed before every single write
// (MemoryFileSystem::fail_after_writes), followed by the recovery every command runs first:
// afterwards every reader agrees on one selection (state.json's default, the `current` link, the
// pin file and the history), and `use --undo` reverts the last change that completed, never the
// one before it and never the one that was interrupted.
#include <gtest/gtest.h>

#include <functional>

#include "store/current_link.h"
#include "store/selection.h"
#include "store/store_recovery.h"
#include "store/use_change.h"
#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;

const std::string kCrashOld = "9.14.0.64+cuda13";
const std::string kCrashNew = "9.19.0.56+cuda13";
const StoreLayout kCrashLayout{"/store"};
const std::string kPin = "/p/.cudnn-version";

MemoryFileSystem make_crash_store() {
  MemoryFileSystem fs;
  fs.add_dir(kCrashLayout.version_dir(kCrashOld) + "/lib");
  fs.add_dir(kCrashLayout.version_dir(kCrashNew) + "/lib");
  fs.add_dir("/p");
  return fs;
}

std::vector<StoreVersionId> installed(const MemoryFileSystem& fs) { return *list_installed(fs, kCrashLayout); }

// What the reader commands see after the recovery pass: `current`/`env` (state.json's default),
// `list` (the `current` link as well), the pin file (`current` in /p).
struct View {
  std::optional<std::string> global;
  std::optional<std::string> link;
  std::optional<std::string> pin;
  StoreState state;
};

View recover_and_read(MemoryFileSystem& fs, int crash) {
  fs.fail_after_writes.reset();
  View v;
  auto state = load_state(fs, kCrashLayout);
  EXPECT_TRUE(state.ok()) << "crash " << crash << ": " << state.error().message;
  if (!state) return v;
  auto repairs = recover_store(fs, kCrashLayout, *state);
  EXPECT_TRUE(repairs.ok()) << "crash " << crash << ": " << repairs.error().message;
  auto again = load_state(fs, kCrashLayout);  // what the next command reads
  EXPECT_TRUE(again.ok());
  v.state = *again;
  v.global = again->global;
  auto link = read_current(fs, kCrashLayout);
  EXPECT_TRUE(link.ok()) << link.error().message;
  if (link) v.link = *link;
  auto pin = pin_file_spec(fs, kPin);
  EXPECT_TRUE(pin.ok());
  if (pin) v.pin = *pin;
  EXPECT_FALSE(fs.exists(current_temp_path(kCrashLayout))) << "crash " << crash;
  EXPECT_FALSE(fs.exists(state_temp_path(kCrashLayout))) << "crash " << crash;
  EXPECT_FALSE(fs.exists(pin_temp_path(kPin))) << "crash " << crash;
  EXPECT_TRUE(v.state.history.empty() || !v.state.history.back().pending) << "crash " << crash;
  // `current` points at the global default when that is a version; under `system` or none there is none.
  EXPECT_EQ(v.state.global_version(), v.link) << "crash " << crash << ": state.json and `current` disagree";
  return v;
}

// Runs `change` from `setup` with a crash before every write until it completes, checking each
// outcome with `check(view, completed)`.
void at_every_crash(const std::function<void(MemoryFileSystem&, StoreState&)>& setup,
                    const std::function<Status(MemoryFileSystem&, StoreState&)>& change,
                    const std::function<void(MemoryFileSystem&, const View&, bool, int)>& check) {
  bool finished = false;
  for (int crash = 0; crash < 40 && !finished; ++crash) {
    MemoryFileSystem fs = make_crash_store();
    StoreState state;
    setup(fs, state);
    fs.writes_done = 0;
    fs.fail_after_writes = crash;
    finished = change(fs, state).ok();
    View v = recover_and_read(fs, crash);
    check(fs, v, finished, crash);
  }
  EXPECT_TRUE(finished) << "the change never completed";
}

TEST(SwitchCrash, UseGlobal) {
  at_every_crash(
      [](MemoryFileSystem& fs, StoreState& s) { ASSERT_TRUE(set_global_default(fs, kCrashLayout, s, kCrashOld, "t1").ok()); },
      [](MemoryFileSystem& fs, StoreState& s) { return set_global_default(fs, kCrashLayout, s, kCrashNew, "t2"); },
      [](MemoryFileSystem& fs, const View& v, bool finished, int crash) {
        ASSERT_TRUE(v.global == kCrashOld || v.global == kCrashNew) << crash;
        bool completed = v.global == kCrashNew;
        if (finished) {
          EXPECT_TRUE(completed) << crash;
        }
        StoreState s = v.state;
        auto undone = undo_last_change(fs, kCrashLayout, s, installed(fs), "t3");
        ASSERT_TRUE(undone.ok()) << crash << ": " << undone.error().message;
        // The interrupted change never counts: undo goes back one completed change.
        EXPECT_EQ(s.global, completed ? std::optional<std::string>(kCrashOld) : std::nullopt) << crash;
        EXPECT_EQ(*read_current(fs, kCrashLayout), s.global) << crash;
      });
}

// To no version (`use system`, `use --unset`, an undo back to none): `current` goes, and a crash
// at any point leaves the old default with its `current` or the new one without.
void check_change_to_no_version(const std::optional<std::string>& to) {
  at_every_crash(
      [](MemoryFileSystem& fs, StoreState& s) { ASSERT_TRUE(set_global_default(fs, kCrashLayout, s, kCrashOld, "t1").ok()); },
      [&](MemoryFileSystem& fs, StoreState& s) { return set_global_default(fs, kCrashLayout, s, to, "t2"); },
      [&](MemoryFileSystem& fs, const View& v, bool finished, int crash) {
        ASSERT_TRUE(v.global == kCrashOld || v.global == to) << crash;
        bool completed = v.global == to;
        if (finished) {
          EXPECT_TRUE(completed) << crash;
        }
        EXPECT_EQ(v.state.history.back().to, completed ? to : std::optional<std::string>(kCrashOld)) << crash;
        if (!completed) return;
        StoreState s = v.state;
        auto undone = undo_last_change(fs, kCrashLayout, s, installed(fs), "t3");
        ASSERT_TRUE(undone.ok()) << crash << ": " << undone.error().message;
        EXPECT_EQ(s.global, kCrashOld) << crash;
        EXPECT_EQ(*read_current(fs, kCrashLayout), kCrashOld) << crash << ": the undo points `current` at it again";
      });
}

TEST(SwitchCrash, UseSystem) { check_change_to_no_version(std::string(kSystemSelection)); }
TEST(SwitchCrash, UseUnset) { check_change_to_no_version(std::nullopt); }

TEST(SwitchCrash, UseUndoBackToNoDefault) {
  at_every_crash(
      [](MemoryFileSystem& fs, StoreState& s) { ASSERT_TRUE(set_global_default(fs, kCrashLayout, s, kCrashOld, "t1").ok()); },
      [](MemoryFileSystem& fs, StoreState& s) {
        return undo_last_change(fs, kCrashLayout, s, installed(fs), "t2").ok() ? ok_status() : Status(make_error(ErrorCode::kIo, "crashed"));
      },
      [](MemoryFileSystem&, const View& v, bool finished, int crash) {
        ASSERT_TRUE(v.global == kCrashOld || v.global == std::nullopt) << crash;
        if (finished) {
          EXPECT_EQ(v.global, std::nullopt) << crash;
        }
      });
}

TEST(SwitchCrash, UseLocal) {
  at_every_crash(
      [](MemoryFileSystem& fs, StoreState& s) { ASSERT_TRUE(set_global_default(fs, kCrashLayout, s, kCrashOld, "t1").ok()); },
      [](MemoryFileSystem& fs, StoreState& s) { return set_pin_file(fs, kCrashLayout, s, kPin, std::string("9.19"), "t2"); },
      [](MemoryFileSystem& fs, const View& v, bool finished, int crash) {
        EXPECT_EQ(v.global, kCrashOld) << crash;
        ASSERT_TRUE(!v.pin || *v.pin == "9.19") << crash;
        bool completed = v.pin.has_value();
        if (finished) {
          EXPECT_TRUE(completed) << crash;
        }
        // The history says exactly what happened: the pin change is there iff the pin file is.
        EXPECT_EQ(v.state.history.back().action, completed ? "use-local" : "use") << crash;
        StoreState s = v.state;
        auto undone = undo_last_change(fs, kCrashLayout, s, installed(fs), "t3");
        ASSERT_TRUE(undone.ok()) << crash << ": " << undone.error().message;
        if (completed) {
          EXPECT_FALSE(fs.exists(kPin)) << crash << ": undo must remove the pin it wrote";
          EXPECT_EQ(s.global, kCrashOld) << crash;
        } else {
          EXPECT_EQ(s.global, std::nullopt) << crash << ": undo must revert the global change, the last that completed";
        }
      });
}

TEST(SwitchCrash, UseUndoOfAGlobalChange) {
  at_every_crash(
      [](MemoryFileSystem& fs, StoreState& s) {
        ASSERT_TRUE(set_global_default(fs, kCrashLayout, s, kCrashOld, "t1").ok());
        ASSERT_TRUE(set_global_default(fs, kCrashLayout, s, kCrashNew, "t2").ok());
      },
      [](MemoryFileSystem& fs, StoreState& s) { return undo_last_change(fs, kCrashLayout, s, installed(fs), "t3").ok() ? ok_status() : Status(make_error(ErrorCode::kIo, "crashed")); },
      [](MemoryFileSystem& fs, const View& v, bool finished, int crash) {
        ASSERT_TRUE(v.global == kCrashOld || v.global == kCrashNew) << crash;
        bool completed = v.global == kCrashOld;
        if (finished) {
          EXPECT_TRUE(completed) << crash;
        }
        StoreState s = v.state;
        auto undone = undo_last_change(fs, kCrashLayout, s, installed(fs), "t4");
        ASSERT_TRUE(undone.ok()) << crash << ": " << undone.error().message;
        EXPECT_EQ(s.global, completed ? std::nullopt : std::optional<std::string>(kCrashOld)) << crash;
      });
}

TEST(SwitchCrash, UseUndoOfAPinChange) {
  at_every_crash(
      [](MemoryFileSystem& fs, StoreState& s) {
        ASSERT_TRUE(set_global_default(fs, kCrashLayout, s, kCrashOld, "t1").ok());
        ASSERT_TRUE(set_pin_file(fs, kCrashLayout, s, kPin, std::string("9.19"), "t2").ok());
      },
      [](MemoryFileSystem& fs, StoreState& s) { return undo_last_change(fs, kCrashLayout, s, installed(fs), "t3").ok() ? ok_status() : Status(make_error(ErrorCode::kIo, "crashed")); },
      [](MemoryFileSystem& fs, const View& v, bool finished, int crash) {
        ASSERT_TRUE(!v.pin || *v.pin == "9.19") << crash;
        bool completed = !v.pin;
        if (finished) {
          EXPECT_TRUE(completed) << crash;
        }
        StoreState s = v.state;
        auto undone = undo_last_change(fs, kCrashLayout, s, installed(fs), "t4");
        ASSERT_TRUE(undone.ok()) << crash << ": " << undone.error().message;
        if (completed) {
          EXPECT_EQ(s.global, std::nullopt) << crash << ": the pin's undo completed, so the global change is next";
        } else {
          EXPECT_FALSE(fs.exists(kPin)) << crash << ": the pin change is still the last one";
          EXPECT_EQ(s.global, kCrashOld) << crash;
        }
      });
}

TEST(SwitchCrash, AUseLocalThatCannotWriteThePinChangesNothingInTheStore) {
  MemoryFileSystem fs = make_crash_store();
  StoreState s;
  ASSERT_TRUE(set_global_default(fs, kCrashLayout, s, kCrashOld, "t1").ok());
  std::string before = fs.contents(kCrashLayout.state_file());
  fs.fail_paths.insert(pin_temp_path(kPin));  // a read-only project directory
  EXPECT_FALSE(set_pin_file(fs, kCrashLayout, s, kPin, std::string("9.19"), "t2").ok());
  EXPECT_EQ(fs.contents(kCrashLayout.state_file()), before);
  EXPECT_FALSE(fs.exists(kPin));
}

TEST(SwitchCrash, PendingChangeIsSettledByWhatThePinFileSays) {
  // A pin edited by hand after the crash: recorded as done, so undo refuses rather than guess.
  MemoryFileSystem fs = make_crash_store();
  StoreState s;
  ASSERT_TRUE(set_global_default(fs, kCrashLayout, s, kCrashOld, "t1").ok());
  s.record(HistoryEntry{0, "t2", "use-local", std::nullopt, std::string("9.19"), kPin, 0, true});
  ASSERT_TRUE(save_state(fs, kCrashLayout, s).ok());
  fs.add_file(kPin, "9.14\n");
  EXPECT_TRUE(store_needs_repair(fs, kCrashLayout, s));
  ASSERT_TRUE(recover_store(fs, kCrashLayout, s).ok());
  EXPECT_FALSE(s.history.back().pending);
  auto undone = undo_last_change(fs, kCrashLayout, s, installed(fs), "t3");
  ASSERT_FALSE(undone.ok());
  EXPECT_EQ(undone.error().code, ErrorCode::kConflict);
  EXPECT_EQ(fs.contents(kPin), "9.14\n");
}

}  // namespace
}  // namespace cudnnup
