// The persistent user PATH edit of `cudnnup env --persist` (pure; runs on every OS).
#include <gtest/gtest.h>

#include "shell/persistent_path.h"

namespace cudnnup {
namespace {

const std::string kPersistStore = "C:/Users/ann/AppData/Local/cudnnup";
const std::string kBin = "C:\\Users\\ann\\AppData\\Local\\cudnnup\\versions\\9.19.0.56+cuda13\\bin";
const std::map<std::string, std::string> kVars = {{"LOCALAPPDATA", "C:\\Users\\ann\\AppData\\Local"},
                                                  {"CUDA_PATH", "C:\\Program Files\\NVIDIA\\CUDA\\v12.4"}};

TEST(PersistentPath, AddsFirstAndKeepsEveryOtherEntryAsWritten) {
  std::string old = "%CUDA_PATH%\\bin;C:\\Tools;%USERPROFILE%\\bin;C:\\Tools;";
  auto p = plan_persist_path(old, kBin, kPersistStore, kVars);
  EXPECT_TRUE(p.changed);
  EXPECT_EQ(p.new_value, kBin + ";" + old) << "order, duplicates, %VAR% forms and the trailing ';' stay";
  EXPECT_TRUE(p.removed.empty());
}

TEST(PersistentPath, EmptyOrMissingValueGetsJustTheDir) {
  EXPECT_EQ(plan_persist_path("", kBin, kPersistStore, kVars).new_value, kBin);
}

TEST(PersistentPath, ReplacesAnEarlierCudnnupEntryInsteadOfStacking) {
  std::string old_entry = "c:/users/ANN/appdata/local/cudnnup/versions/8.9.7.29+cuda12/bin\\";
  std::string old = "C:\\A;" + old_entry + ";C:\\B";
  auto p = plan_persist_path(old, kBin, kPersistStore, kVars);
  EXPECT_EQ(p.new_value, kBin + ";C:\\A;C:\\B");
  ASSERT_EQ(p.removed.size(), 1u);
  EXPECT_EQ(p.removed[0], old_entry);
  // Persisting twice gives the same value: nothing to write.
  auto again = plan_persist_path(p.new_value, kBin, kPersistStore, kVars);
  EXPECT_FALSE(again.changed);
  EXPECT_EQ(again.new_value, p.new_value);
}

// A quoted entry (cmd.exe and many install scripts accept "C:\dir with spaces") is still ours:
// persisting again replaces it, unpersisting removes it.
TEST(PersistentPath, RecognisesQuotedStoreEntries) {
  std::string quoted = "\"" + kBin + "\"";
  std::string quoted_old = "\"%LOCALAPPDATA%\\cudnnup\\versions\\8.9.7.29+cuda12\\bin\\\"";
  EXPECT_TRUE(is_store_path_entry(quoted, kPersistStore, kVars));
  EXPECT_TRUE(is_store_path_entry(quoted_old, kPersistStore, kVars));
  auto p = plan_persist_path("C:\\A;" + quoted_old + ";C:\\B", kBin, kPersistStore, kVars);
  EXPECT_EQ(p.new_value, kBin + ";C:\\A;C:\\B");
  EXPECT_EQ(p.removed, std::vector<std::string>{quoted_old});
  EXPECT_EQ(plan_persist_path(kBin + ";" + quoted, kBin, kPersistStore, kVars).new_value, kBin)
      << "the same dir, quoted, is not kept twice";
  EXPECT_EQ(plan_unpersist_path("C:\\A;" + quoted, kPersistStore, kVars).new_value, "C:\\A");
  EXPECT_FALSE(is_store_path_entry("\"C:\\Tools\"", kPersistStore, kVars));
}

TEST(PersistentPath, RecognisesStoreEntriesWrittenWithVariables) {
  std::string old = "%LocalAppData%\\cudnnup\\versions\\9.1.0.70+cuda12\\bin;%CUDA_PATH%\\bin";
  auto p = plan_persist_path(old, kBin, kPersistStore, kVars);
  EXPECT_EQ(p.new_value, kBin + ";%CUDA_PATH%\\bin");
  EXPECT_FALSE(is_store_path_entry("%CUDA_PATH%\\bin", kPersistStore, kVars));
  EXPECT_FALSE(is_store_path_entry("C:\\Users\\ann\\AppData\\Local\\cudnnup-other\\bin", kPersistStore, kVars))
      << "a sibling whose name starts like the store is not the store";
  EXPECT_FALSE(is_store_path_entry("%UNKNOWN%\\cudnnup", kPersistStore, kVars));
}

TEST(PersistentPath, UnpersistRemovesOnlyStoreEntries) {
  std::string old = "C:\\A;" + kBin + ";;%CUDA_PATH%\\bin;";
  auto p = plan_unpersist_path(old, kPersistStore, kVars);
  EXPECT_TRUE(p.changed);
  EXPECT_EQ(p.new_value, "C:\\A;;%CUDA_PATH%\\bin;") << "empty entries and the trailing ';' are not ours to fix";
  EXPECT_EQ(p.removed, std::vector<std::string>{kBin});
  auto none = plan_unpersist_path("C:\\A;C:\\B", kPersistStore, kVars);
  EXPECT_FALSE(none.changed);
  EXPECT_EQ(none.new_value, "C:\\A;C:\\B");
  auto emptied = plan_unpersist_path(kBin, kPersistStore, kVars);
  EXPECT_EQ(emptied.new_value, "");
  EXPECT_TRUE(emptied.remove_value) << "a Path that held only cudnnup's entry is deleted, not left empty";
  EXPECT_FALSE(p.remove_value);
  EXPECT_FALSE(plan_unpersist_path("", kPersistStore, kVars).remove_value) << "an absent Path stays absent, untouched";
}

TEST(PersistentPath, LongValuesSurviveIntact) {
  // 40 entries of 60 characters: 2,400+ characters, past setx's 1,024.
  std::string old;
  for (int i = 0; i < 40; ++i) {
    old += (i ? ";" : "") + std::string("C:\\Program Files\\Some Vendor\\Tool number ") + std::to_string(1000 + i) +
           "\\with\\a\\deep\\bin";
  }
  ASSERT_GT(old.size(), 2048u);
  auto p = plan_persist_path(old, kBin, kPersistStore, kVars);
  EXPECT_EQ(p.new_value.size(), kBin.size() + 1 + old.size());
  EXPECT_EQ(p.new_value.substr(kBin.size() + 1), old);
  EXPECT_EQ(plan_unpersist_path(p.new_value, kPersistStore, kVars).new_value, old);
}

TEST(PersistentPath, ExpandsVariablesLikeWindows) {
  EXPECT_EQ(expand_windows_vars("%cuda_path%\\bin", kVars), "C:\\Program Files\\NVIDIA\\CUDA\\v12.4\\bin");
  EXPECT_EQ(expand_windows_vars("100%;%NOPE%\\x", kVars), "100%;%NOPE%\\x");
  EXPECT_EQ(expand_windows_vars("a%%b", kVars), "a%%b");
}

}  // namespace
}  // namespace cudnnup
