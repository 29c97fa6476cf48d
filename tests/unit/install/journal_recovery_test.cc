// Recovery runs before every command (even `list`, and `env --hook` at every prompt) and acts on
// the journals it finds. A journal is foreign bytes: each of these was planted in the store to
// make recovery rename, move or delete something outside it. Every one is refused and reported,
// the journal is left where it is, and nothing else changes. The last case is the control: a
// journal of our own is still repaired.
#include <gtest/gtest.h>

#include <functional>

#include "install/transaction.h"
#include "support/memory_fs.h"
#include "support/tree_snapshot.h"

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;
using testing::memory_tree;

const StoreLayout kJournalStore{"/home/u/store"};
const std::string kJournalToolkit = "/opt/cuda";

// A store with an interrupted uninstall of one version (phase commit: recovery would move
// versions/<id> into the trash and delete it), and precious files outside.
Journal base_journal() {
  Journal j;
  j.id = "tx-1";
  j.root = kJournalStore.root;
  j.kind = "uninstall-store";
  j.description = "uninstall 9.1.0.70+cuda12";
  j.phase = "commit";
  j.moves = {Move{"versions/9.1.0.70+cuda12", "journal/tx-1.trash", true}};
  j.cleanup = {"journal/tx-1.trash"};
  j.sync_dirs = {"versions"};
  return j;
}

MemoryFileSystem machine() {
  MemoryFileSystem fs;
  fs.add_file(kJournalStore.version_dir("9.1.0.70+cuda12") + "/lib/libcudnn.so.9", "store copy");
  fs.add_file("/home/u/precious/a", "a");
  fs.add_file("/home/u/precious/b", "b");
  fs.add_file(kJournalToolkit + "/include/cudnn.h", "toolkit");
  fs.add_dir(kJournalToolkit + "/.cudnnup");
  return fs;
}

struct RecoveryCase {
  const char* name;
  std::function<void(Journal&)> change;
  std::function<void(MemoryFileSystem&)> plant = nullptr;  // besides writing the journal
};

TEST(JournalRecovery, PlantedJournalsAreRefusedInEveryFieldAndNothingChanges) {
  const std::vector<RecoveryCase> cases = {
      {"absolute move", [](Journal& j) { j.moves = {Move{"/home/u/precious/a", "/home/u/precious/b", false}}; }},
      {"move climbing out", [](Journal& j) { j.moves = {Move{"../precious/a", "journal/x", true}}; }},
      {"move into versions/..", [](Journal& j) { j.moves = {Move{"versions/../../precious", "journal/x", true}}; }},
      {"cleanup outside", [](Journal& j) { j.cleanup = {"../precious"}; }},
      {"cleanup absolute", [](Journal& j) { j.cleanup = {"/home/u/precious"}; }},
      {"cleanup of a public path", [](Journal& j) { j.cleanup = {"versions/9.1.0.70+cuda12"}; }},
      {"undo_remove outside", [](Journal& j) { j.undo_remove = {"../../u/precious"}; }},
      {"new_dirs absolute", [](Journal& j) { j.new_dirs = {"/home/u/precious/new"}; }},
      {"prune_dirs climbing", [](Journal& j) { j.prune_dirs = {".."}; }},
      {"sync_dirs absolute (a field recovery only syncs)", [](Journal& j) { j.sync_dirs = {"/home/u/precious"}; }},
      {"private side in versions", [](Journal& j) { j.moves = {Move{"journal/x", "versions/9.1.0.70+cuda12", true}}; }},
      {"store kind rooted elsewhere", [](Journal& j) { j.root = "/home/u"; j.moves = {Move{"precious", "journal/x", true}}; }},
      {"merge rooted at /", [](Journal& j) { j.kind = "install-merge"; j.root = "/"; j.moves = {Move{"home/u/precious/a", ".cudnnup/x", true}}; }},
      {"merge root not normal", [](Journal& j) { j.kind = "uninstall-merge"; j.root = kJournalToolkit + "/../home/u"; j.moves = {}; }},
      {"merge root through a link", [](Journal& j) { j.kind = "uninstall-merge"; j.root = "/home/u/cudalink"; j.moves = {Move{"include/cudnn.h", ".cudnnup/t/x", true}}; j.cleanup = {".cudnnup/t"}; },
       [](MemoryFileSystem& fs) { fs.add_symlink("/home/u/cudalink", kJournalToolkit); }},
      {"merge private side outside .cudnnup", [](Journal& j) { j.kind = "uninstall-merge"; j.root = kJournalToolkit; j.moves = {Move{"include/cudnn.h", "include/stolen", true}}; j.cleanup = {}; }},
      {"Windows drive-relative", [](Journal& j) { j.cleanup = {"C:precious"}; }},
      {"Windows backslashes", [](Journal& j) { j.cleanup = {"journal\\..\\..\\precious"}; }},
      {"Windows trailing dots", [](Journal& j) { j.cleanup = {"journal/... /x"}; }},
      {"alternate data stream", [](Journal& j) { j.cleanup = {"journal/tx-1.trash:evil"}; }},
      {"unknown kind", [](Journal& j) { j.kind = "rm-rf"; }},
      {"unknown phase", [](Journal& j) { j.phase = "whatever"; }},
      {"id that is a path", [](Journal& j) { j.id = "../tx-1"; }},
      {"description with escape sequences", [](Journal& j) { j.description = "ok\x1b]0;pwned\x07"; }},
  };
  for (const auto& c : cases) {
    MemoryFileSystem fs = machine();
    if (c.plant) c.plant(fs);
    Journal j = base_journal();
    c.change(j);
    fs.add_file(kJournalStore.journal_dir() + "/tx-1.json", journal_to_json(j));
    fs.set_mode(kJournalStore.journal_dir() + "/tx-1.json", 0600);
    auto before = memory_tree(fs, "");
    TransactionRunner runner(fs, kJournalStore);
    std::vector<Error> refused;
    auto repaired = runner.recover(&refused);
    ASSERT_TRUE(repaired.ok()) << c.name << ": " << repaired.error().message;
    EXPECT_TRUE(repaired->empty()) << c.name << ": acted on it";
    ASSERT_EQ(refused.size(), 1u) << c.name;
    EXPECT_NE(refused[0].message.find("was not acted on"), std::string::npos) << refused[0].message;
    EXPECT_EQ(memory_tree(fs, ""), before) << c.name << ": something changed";
  }
}

TEST(JournalRecovery, AJournalNotOwnedByUsOrWritableByOthersIsRefused) {
  for (int variant = 0; variant < 4; ++variant) {
    MemoryFileSystem fs = machine();
    std::string path = kJournalStore.journal_dir() + "/tx-1.json";
    fs.add_file(path, journal_to_json(base_journal()));
    fs.set_mode(path, 0600);
    if (variant == 0) fs.set_other_owner(path);
    if (variant == 1) fs.set_mode(path, 0620);  // group-writable
    if (variant == 2) fs.set_mode(path, 0602);  // world-writable
    if (variant == 3) {                          // a link to a journal somewhere else
      fs.add_file("/tmp/evil.json", journal_to_json(base_journal()));
      fs.nodes.erase(fs.key(path));
      fs.add_symlink(path, "/tmp/evil.json");
    }
    auto before = memory_tree(fs, "");
    std::vector<Error> refused;
    auto repaired = TransactionRunner(fs, kJournalStore).recover(&refused);
    ASSERT_TRUE(repaired.ok());
    EXPECT_TRUE(repaired->empty()) << variant;
    EXPECT_EQ(refused.size(), 1u) << variant;
    EXPECT_EQ(memory_tree(fs, ""), before) << variant;
  }
}

TEST(JournalRecovery, OurOwnJournalIsStillRepaired) {
  MemoryFileSystem fs = machine();
  fs.add_file(kJournalStore.journal_dir() + "/tx-1.json", journal_to_json(base_journal()));
  fs.set_mode(kJournalStore.journal_dir() + "/tx-1.json", 0600);
  std::vector<Error> refused;
  auto repaired = TransactionRunner(fs, kJournalStore).recover(&refused);
  ASSERT_TRUE(repaired.ok()) << repaired.error().message;
  EXPECT_TRUE(refused.empty()) << refused[0].message;
  ASSERT_EQ(repaired->size(), 1u);
  EXPECT_FALSE(fs.exists(kJournalStore.version_dir("9.1.0.70+cuda12")));
  EXPECT_FALSE(fs.exists(kJournalStore.journal_dir() + "/tx-1.json"));
  EXPECT_EQ(fs.contents("/home/u/precious/a"), "a");
}

TEST(JournalRecovery, JournalsAreWrittenPrivate) {
  MemoryFileSystem fs = machine();
  Journal j = base_journal();
  j.phase = "staging";
  TransactionRunner runner(fs, kJournalStore);
  ASSERT_TRUE(runner.begin(j).ok());
  ASSERT_NE(fs.node(runner.journal_path("tx-1")), nullptr);
  EXPECT_EQ(fs.node(runner.journal_path("tx-1"))->mode, 0600);
}

}  // namespace
}  // namespace cudnnup
