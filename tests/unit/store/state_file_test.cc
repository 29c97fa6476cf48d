// state.json from disk: any size cudnnup could have written is read, wrongly typed fields name
// themselves, and the sequence number cannot overflow.
#include <gtest/gtest.h>

#include "store/state_store.h"
#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;

const StoreLayout kStateLayout{"/store"};

TEST(StateFile, AValidStateFileOverOneMebibyteIsRead) {
  MemoryFileSystem fs;
  // Valid JSON padded past the 1 MiB cap the reader once had ("not a JSON object").
  std::string text = "{\"schema\": 1, \"global\": \"9.19.0.56+cuda13\", \"next_seq\": 3, \"history\": []" +
                     std::string(3 << 20, ' ') + "}";
  fs.add_file(kStateLayout.state_file(), text);
  auto state = load_state(fs, kStateLayout);
  ASSERT_TRUE(state) << state.error().message;
  EXPECT_EQ(state->global, "9.19.0.56+cuda13");
  EXPECT_EQ(state->next_seq, 3);
}

TEST(StateFile, WrongTypesNameTheField) {
  MemoryFileSystem fs;
  fs.add_file(kStateLayout.state_file(), R"({"global": "9.19", "history": [{"seq": 1, "action": "use"}, {"seq": "2", "action": "use"}]})");
  auto state = load_state(fs, kStateLayout);
  ASSERT_FALSE(state);
  EXPECT_EQ(state.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(state.error().message.find("field 'history[1].seq' must be an integer, not a string"), std::string::npos)
      << state.error().message;
  EXPECT_NE(state.error().message.find(kStateLayout.state_file()), std::string::npos);
}

TEST(StateFile, SequenceNumbersCannotOverflow) {
  MemoryFileSystem fs;
  // Beyond 2^53 is not a number cudnnup writes.
  fs.add_file(kStateLayout.state_file(), R"({"next_seq": 9223372036854775807, "history": []})");
  EXPECT_FALSE(load_state(fs, kStateLayout));
  fs.add_file(kStateLayout.state_file(), R"({"history": [{"seq": 2147483647, "action": "use", "to": "9.19.0.56+cuda13"}]})");
  auto state = load_state(fs, kStateLayout);
  ASSERT_TRUE(state) << state.error().message;
  EXPECT_EQ(state->next_seq, int64_t{2147483648}) << "past INT_MAX without wrapping";
  StoreState at_limit;
  at_limit.next_seq = StoreState::kMaxSeq;
  HistoryEntry use;
  use.action = "use";
  use.to = "9.19.0.56+cuda13";
  at_limit.record(use);
  at_limit.record(use);
  EXPECT_EQ(at_limit.next_seq, StoreState::kMaxSeq);
  EXPECT_EQ(at_limit.history.back().seq, StoreState::kMaxSeq);
  EXPECT_TRUE(state_from_json(state_to_json(at_limit), "x")) << "what it writes at the limit it reads back";
}

TEST(StateFile, NonUtf8PathsSurviveTheRoundTrip) {
  StoreState s;
  HistoryEntry e;
  e.action = "use-local";
  e.path = "/home/u/proj\xff/.cudnn-version";
  e.to = "9.19.0.56+cuda13";
  s.record(e);
  auto back = state_from_json(state_to_json(s), "x");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->history.at(0).path, e.path);
}

// `system` is a selection the state records (`cudnnup use system`, `use --local system`) and
// reads back; anything else that is not a version stays a damaged file.
TEST(StateFile, SystemIsRecordedAndReadBack) {
  MemoryFileSystem fs;
  fs.add_dir(kStateLayout.root);
  StoreState state;
  state.global = "system";
  state.record(HistoryEntry{0, "t1", "use", std::string("9.19.0.56+cuda13"), std::string("system"), "", 0, false});
  state.record(HistoryEntry{0, "t2", "use-local", std::nullopt, std::string("system"), "/p/.cudnn-version", 0, false});
  auto saved = save_state(fs, kStateLayout, state);
  ASSERT_TRUE(saved.ok()) << saved.error().message;
  auto back = load_state(fs, kStateLayout);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->global, "system");
  EXPECT_EQ(back->global_version(), std::nullopt);
  ASSERT_EQ(back->history.size(), 2u);
  EXPECT_EQ(back->history[0].to, "system");
  EXPECT_EQ(back->history[1].to, "system");

  fs.add_file(kStateLayout.state_file(), R"({"global": "sistem", "history": []})");
  auto bad = load_state(fs, kStateLayout);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kCorrupt);
}

}  // namespace
}  // namespace cudnnup
