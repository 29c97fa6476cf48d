// The hostile suite for the store, switching and undoing (docs/security.md): the real cudnnup
// binary on the real filesystem, against crafted arguments, planted journals, manifests, state
// files and pin files, a refused first install, two stores racing on one toolkit, and a toolkit
// the user changed after `install --into`. After each case: every file outside cudnnup's own
// state is byte-identical (tests/support/tree_snapshot.h), cudnnup's state is unchanged when the
// command was refused, and the exit code is the documented one, never a signal or a hang.
// (Windows forms, links and junctions: tests/unit/store/windows_forms_test.cc, in memory.)
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "platform/file_lock.h"
#include "platform/process.h"
#include "support/fixture_libs.h"
#include "support/tree_snapshot.h"
#if CUDNNUP_HAVE_INSTALL
#include "support/archive_builder.h"
#endif

namespace cudnnup {
namespace {

namespace stdfs = std::filesystem;
using testing::disk_tree;
using testing::make_dirs;
using testing::make_symlink;
using testing::write_text;

const std::string kSelected = "9.19.0.56+cuda13";
const std::string kOther = "9.1.0.70+cuda12";

class HostileStore : public ::testing::Test {
 protected:
  testing::TempDir tmp;
  std::string home() const { return tmp / "home"; }
  std::string store() const { return tmp / "home/store"; }
  std::string precious() const { return tmp / "home/precious"; }

  void SetUp() override {
    for (const std::string& id : {kSelected, kOther}) {
      write_text(store() + "/versions/" + id + "/lib/libcudnn.so.9", "library of " + id);
      write_text(store() + "/versions/" + id + "/include/cudnn_version.h", "header of " + id);
    }
    write_text(precious() + "/thesis.txt", "years of work");
    write_text(precious() + "/sub/notes.txt", "notes");
    write_text(tmp / "secret", "root:$6$salt$hash:19000:0:99999:7:::");
    make_dirs(tmp / "proj");
    ASSERT_EQ(run({"use", "9.19"}).exit_code, 0);
  }

  ProcessResult run(std::vector<std::string> args, const std::string& cwd = {}, std::map<std::string, std::string> extra = {}) {
    args.insert(args.begin(), CUDNNUP_BINARY);
    ProcessOptions o;
    o.timeout_ms = 20000;
    o.env = std::map<std::string, std::string>{{"HOME", home()}, {"PATH", "/usr/bin:/bin"}, {"CUDNNUP_HOME", store()},
                                               {"NO_COLOR", "1"}};
    for (auto& [k, v] : extra) (*o.env)[k] = v;
    if (!cwd.empty()) {
      args.insert(args.begin(), {"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", cwd});
    }
    auto r = run_process(args, o);
    EXPECT_TRUE(r.ok());
    ProcessResult out = r.value_or(ProcessResult{});
    EXPECT_TRUE(out.exited_normally()) << "killed by a signal or a hang: " << args[0];
    EXPECT_FALSE(out.timed_out);
    return out;
  }

  // Everything under the test's directory but the stores named (relative to it): all that lies
  // outside cudnnup's own state.
  std::map<std::string, std::string> tree_without(const std::vector<std::string>& stores) const {
    std::map<std::string, std::string> out;
    for (auto& [k, v] : disk_tree(tmp.path())) {
      bool in_a_store = false;
      for (const auto& s : stores) in_a_store = in_a_store || k == s || k.rfind(s + "/", 0) == 0;
      if (!in_a_store) out[k] = v;
    }
    return out;
  }
  // Outside the store, but for doctor's probe cache in HOME/.cache (documented: the one file a
  // reading command may write).
  std::map<std::string, std::string> outside() const { return testing::without_probe_cache(tree_without({"home/store"})); }
  std::map<std::string, std::string> state() const { return disk_tree(store()); }

  void plant_journal(const nlohmann::json& j, const std::string& name = "tx-1.json", mode_t mode = 0600) {
    write_text(store() + "/journal/" + name, j.dump());
    ::chmod((store() + "/journal/" + name).c_str(), mode);
  }
  nlohmann::json journal() const {
    return {{"schema", 2}, {"id", "tx-1"}, {"root", store()}, {"kind", "uninstall-store"}, {"description", "planted"},
            {"phase", "commit"}, {"new_dirs", nlohmann::json::array()}, {"moves", nlohmann::json::array()},
            {"cleanup", nlohmann::json::array()}, {"undo_remove", nlohmann::json::array()},
            {"prune_dirs", nlohmann::json::array()}, {"sync_dirs", nlohmann::json::array()}};
  }

  // Runs `args`, expects `exit_code`, an unchanged outside and (when refused) an unchanged store.
  ProcessResult expect_refused(const std::vector<std::string>& args, int exit_code, const std::string& cwd = {}) {
    auto out_before = outside();
    auto state_before = state();
    auto r = run(args, cwd);
    EXPECT_EQ(r.exit_code, exit_code) << r.out << r.err;
    EXPECT_EQ(testing::tree_changes(out_before, outside()), "") << "files outside the store changed";
    EXPECT_EQ(testing::tree_changes(state_before, state()), "") << "the store changed although the command was refused";
    return r;
  }
};

// --- Arguments ---

TEST_F(HostileStore, UninstallTakesOnlyNamesOfInstalledVersions) {
  for (const std::string& arg : std::vector<std::string>{"../../../home", "../precious", "/", "..", ".", "../versions",
                                                         "versions/" + kOther, kOther + "/../../../precious", "./../precious",
                                                         precious(), ""}) {
    auto r = expect_refused({"uninstall", arg}, 2);
    EXPECT_NE(r.err.find("not"), std::string::npos) << arg << ": " << r.err;
  }
}

#if CUDNNUP_HAVE_INSTALL  // uninstall is built with install
TEST_F(HostileStore, TheSelectedVersionIsProtectedHoweverItIsSpelled) {
  // Selected where uninstall runs, by a pin file (removing the global default is allowed: it
  // clears the default).
  write_text(tmp / "proj/.cudnn-version", "9.19\n");
  for (const std::string& arg : std::vector<std::string>{kSelected, kSelected + "/", "./" + kSelected, "./" + kSelected + "//", "9.19"}) {
    auto r = expect_refused({"uninstall", arg}, 4, tmp / "proj");
    EXPECT_NE(r.err.find("selected here"), std::string::npos) << arg << ": " << r.err;
  }
  // The other one goes, by the name tab completion writes.
  auto r = run({"uninstall", kOther + "/"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(stdfs::exists(store() + "/versions/" + kOther));
}
#endif  // CUDNNUP_HAVE_INSTALL

TEST_F(HostileStore, ALinkInVersionsIsNeverFollowedOut) {
  make_symlink(precious(), store() + "/versions/9.2.1.18+cuda12");
  expect_refused({"uninstall", "9.2.1.18+cuda12"}, 2);
  expect_refused({"uninstall", "9.2"}, 2);
  expect_refused({"use", "9.2"}, 2);
  EXPECT_TRUE(stdfs::exists(precious() + "/thesis.txt"));
}

// --- Journals: recovery runs before every command and must not act on these. ---

TEST_F(HostileStore, PlantedJournalsAreReportedAndNotActedOnByListOrTheHook) {
  const std::vector<std::pair<std::string, std::function<void(nlohmann::json&)>>> cases = {
      {"absolute move", [&](nlohmann::json& j) { j["moves"] = {{{"from", precious() + "/thesis.txt"}, {"to", precious() + "/sub/notes.txt"}, {"private_to", false}}}; }},
      {"move climbing out", [&](nlohmann::json& j) { j["moves"] = {{{"from", "../precious"}, {"to", "journal/x"}, {"private_to", true}}}; j["cleanup"] = {"journal/x"}; }},
      {"cleanup absolute", [&](nlohmann::json& j) { j["cleanup"] = {precious()}; }},
      {"cleanup climbing out", [&](nlohmann::json& j) { j["cleanup"] = {"journal/../../precious"}; }},
      {"undo_remove outside", [&](nlohmann::json& j) { j["phase"] = "staging"; j["undo_remove"] = {"../precious"}; }},
      {"new_dirs absolute", [&](nlohmann::json& j) { j["new_dirs"] = {precious() + "/new"}; }},
      {"prune_dirs climbing out", [&](nlohmann::json& j) { j["prune_dirs"] = {"../precious/sub"}; }},
      {"sync_dirs absolute", [&](nlohmann::json& j) { j["sync_dirs"] = {precious()}; }},
      {"root elsewhere", [&](nlohmann::json& j) { j["root"] = home(); j["cleanup"] = {"journal/x"}; j["moves"] = {{{"from", "precious"}, {"to", "journal/x"}, {"private_to", true}}}; }},
      {"merge rooted at home", [&](nlohmann::json& j) { j["kind"] = "uninstall-merge"; j["root"] = home(); j["moves"] = {{{"from", "precious"}, {"to", ".cudnnup/x"}, {"private_to", true}}}; j["cleanup"] = {".cudnnup/x"}; }},
  };
  for (const auto& [name, change] : cases) {
    auto j = journal();
    change(j);
    plant_journal(j);
    if (name == "merge rooted at home") make_dirs(home() + "/.cudnnup");
    for (const std::vector<std::string>& cmd : {std::vector<std::string>{"list", "--store-only"}, {"env", "--hook", "--shell", "bash"}}) {
      auto before = outside();
      auto state_before = state();
      auto r = run(cmd);
      EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
      EXPECT_NE(r.err.find("was not acted on"), std::string::npos) << name << ": " << r.err;
      EXPECT_EQ(outside(), before) << name;
      EXPECT_EQ(state(), state_before) << name << ": the journal must be left where it is";
    }
    // A command that would change the store refuses while it is there.
    expect_refused({"use", "9.1"}, 2);
    stdfs::remove(store() + "/journal/tx-1.json");
    stdfs::remove_all(home() + "/.cudnnup");
  }
}

TEST_F(HostileStore, JournalsThatOthersMayWriteOrThatAreLinksAreRefused) {
  auto j = journal();
  j["moves"] = {{{"from", "versions/" + kOther}, {"to", "journal/tx-1.trash"}, {"private_to", true}}};
  j["cleanup"] = {"journal/tx-1.trash"};
  for (mode_t mode : {mode_t(0620), mode_t(0606)}) {
    plant_journal(j, "tx-1.json", mode);
    auto r = expect_refused({"list", "--store-only"}, 0);
    EXPECT_NE(r.err.find("others may write"), std::string::npos) << r.err;
    EXPECT_TRUE(stdfs::exists(store() + "/versions/" + kOther));
    stdfs::remove(store() + "/journal/tx-1.json");
  }
  if (::geteuid() == 0) {  // as root the test can give it away: a journal another user wrote
    plant_journal(j);
    ASSERT_EQ(::chown((store() + "/journal/tx-1.json").c_str(), 65534, 65534), 0);
    auto r = expect_refused({"list", "--store-only"}, 0);
    EXPECT_NE(r.err.find("belongs to another user"), std::string::npos) << r.err;
    stdfs::remove(store() + "/journal/tx-1.json");
  }
  write_text(tmp / "elsewhere.json", j.dump());
  make_dirs(store() + "/journal");
  make_symlink(tmp / "elsewhere.json", store() + "/journal/tx-1.json");
  expect_refused({"current"}, 0);
  EXPECT_TRUE(stdfs::exists(store() + "/versions/" + kOther));
}

// --- State files ---

TEST_F(HostileStore, AStateFileNamingPathsOrNonVersionsIsDamagedAndNothingIsDone) {
  const std::vector<std::string> planted = {
      R"({"schema":1,"global":"../../precious","next_seq":2,"history":[]})",
      R"({"schema":1,"global":null,"next_seq":3,"history":[{"seq":1,"time":"t","action":"use-local","from":null,"to":"9.1",)"
      R"("path":")" + precious() + R"(/thesis.txt"}]})",
      R"({"schema":1,"global":null,"next_seq":3,"history":[{"seq":1,"time":"t","action":"use","from":"/etc","to":"9.19.0.56+cuda13"}]})",
      R"({"schema":1,"global":null,"next_seq":2,"history":[],"links":[{"cuda_dir":"../../precious","status":"unlinking"}]})",
      R"({"schema":1,"global":null,"next_seq":9223372036854775807,"history":[]})",
  };
  for (const auto& text : planted) {
    write_text(store() + "/state.json", text);
    ::chmod((store() + "/state.json").c_str(), 0600);
    auto r = expect_refused({"use", "--undo"}, 2);
    EXPECT_NE(r.err.find("damaged"), std::string::npos) << text << "\n" << r.err;
    expect_refused({"current"}, 2);
  }
}

TEST_F(HostileStore, AStateFileOthersMayWriteIsNotActedOn) {
  // A pending pin change that recovery would settle by rewriting state.json and the pin.
  nlohmann::json s = {{"schema", 1}, {"global", kSelected}, {"next_seq", 3},
                      {"history", {{{"seq", 1}, {"time", "t"}, {"action", "use"}, {"from", nullptr}, {"to", kSelected}},
                                   {{"seq", 2}, {"time", "t"}, {"action", "use-local"}, {"from", nullptr}, {"to", "9.1"},
                                    {"path", tmp / "proj/.cudnn-version"}, {"pending", true}}}}};
  write_text(store() + "/state.json", s.dump());
  ::chmod((store() + "/state.json").c_str(), 0666);
  auto r = expect_refused({"list", "--store-only"}, 0);
  EXPECT_NE(r.err.find("others may write"), std::string::npos) << r.err;
  r = expect_refused({"use", "9.1"}, 2);
  EXPECT_NE(r.err.find("chmod go-w"), std::string::npos) << r.err;
}

// --- Pin files ---

TEST_F(HostileStore, AFifoPinFileDoesNotHangCurrentOrTheHook) {
  ASSERT_EQ(::mkfifo((tmp / "proj/.cudnn-version").c_str(), 0644), 0);
  auto r = expect_refused({"current"}, 2, tmp / "proj");
  EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
  expect_refused({"env", "--hook", "--shell", "bash"}, 2, tmp / "proj");
}

TEST_F(HostileStore, APinFileLinkedToASecretNeverShowsIt) {
  make_symlink(tmp / "secret", tmp / "proj/.cudnn-version");
  auto r = expect_refused({"current"}, 2, tmp / "proj");
  EXPECT_EQ(r.err.find("root:"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("$6$"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(".cudnn-version"), std::string::npos) << r.err;
}

TEST_F(HostileStore, APinFileWithEscapeSequencesIsNotEchoed) {
  write_text(tmp / "proj/.cudnn-version", "\x1b]0;owned\x07\x1b[2J9.19\n");
  auto r = expect_refused({"current"}, 2, tmp / "proj");
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << "raw escape sequence reached the terminal";
  write_text(tmp / "proj/.cudnn-version", std::string(1 << 20, '9'));
  r = expect_refused({"current"}, 2, tmp / "proj");
  EXPECT_NE(r.err.find("larger than"), std::string::npos) << r.err.substr(0, 300);
}

TEST_F(HostileStore, ADevicePinFileIsRefused) {
  make_symlink("/dev/zero", tmp / "proj/.cudnn-version");
  auto r = expect_refused({"current"}, 2, tmp / "proj");
  EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
}

// --- Refused commands leave no trace, stale temporary files are removed by any command ---

TEST_F(HostileStore, ARefusedFirstCommandLeavesNoStoreAndNoLock) {
  stdfs::remove_all(store());
  auto before = disk_tree(tmp.path());
  write_text(tmp / "proj/not-an-archive.tar.xz", "junk");
  before = disk_tree(tmp.path());
  for (const std::vector<std::string>& cmd : {std::vector<std::string>{"install", tmp / "proj/not-an-archive.tar.xz"},
                                              {"link", "--into", tmp / "proj"},
                                              {"use", "9.19"},
                                              {"uninstall", "9.19"}}) {
    auto r = run(cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd[0] << ": " << r.err;
    EXPECT_FALSE(stdfs::exists(store())) << cmd[0] << " left the store behind";
    EXPECT_EQ(disk_tree(tmp.path()), before) << cmd[0];
  }
}

TEST_F(HostileStore, StaleTemporaryFilesAreRemovedByAnyCommand) {
  write_text(store() + "/state.json.tmp", "half");
  make_symlink(store() + "/versions/gone", store() + "/current.tmp");
  write_text(store() + "/journal/tx-9.json.tmp", "half");
  auto r = run({"current", "--bare"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, kSelected + "\n");
  EXPECT_FALSE(stdfs::exists(store() + "/state.json.tmp"));
  EXPECT_FALSE(stdfs::is_symlink(store() + "/current.tmp"));
  EXPECT_FALSE(stdfs::exists(store() + "/journal/tx-9.json.tmp"));
}

TEST_F(HostileStore, StateAndCurrentThatDisagreeAreReconciledBeforeAnyReaderAnswers) {
  // As a kill between writing state.json and switching `current` leaves them.
  stdfs::remove(store() + "/current");
  make_symlink(store() + "/versions/" + kOther, store() + "/current");
  auto list = run({"--json", "list", "--store-only"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  auto j = nlohmann::json::parse(list.out);
  EXPECT_EQ(j["current_link"], kSelected);
  EXPECT_EQ(j["global_default"], kSelected);
  EXPECT_EQ(j["selected"]["version"], kSelected);
}

TEST_F(HostileStore, TheStateFileIsWrittenPrivate) {
  struct stat st;
  ASSERT_EQ(::stat((store() + "/state.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

#if CUDNNUP_HAVE_INSTALL

// A version NVIDIA never shipped, so data/known_archives.json has no size or sha256 for it to compare.
const std::string kTopId = "9.19.0.99+cuda13";  // its store version

class HostileToolkit : public HostileStore {
 protected:
  std::string cuda() const { return tmp / "cuda"; }
  std::string archive;
  void SetUp() override {
    HostileStore::SetUp();
    write_text(cuda() + "/include/cuda.h", "#define CUDA_VERSION 13000\n");
    write_text(cuda() + "/include/cudnn.h", "the toolkit's old header");
    write_text(cuda() + "/lib64/libcublas.so.13", "cublas");
    archive = tmp / (testing::kUnpublishedLinuxTop + ".tar.xz");
    testing::write_archive(archive, testing::official_entries(testing::OfficialLayout{testing::kUnpublishedLinuxTop}), testing::ArchiveFormat::kTarXz);
  }
  void install_into() {
    auto r = run({"install", archive, "--into", cuda()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  void edit_manifest(const std::function<void(nlohmann::json&)>& change) {
    std::string path = cuda() + "/.cudnnup/manifest.json";
    auto j = nlohmann::json::parse(testing::read_file_bytes(path));
    change(j);
    write_text(path, j.dump());
    ::chmod(path.c_str(), 0600);
  }
};

TEST_F(HostileToolkit, AManifestEntryOutsideTheToolkitIsNotActedOn) {
  write_text(tmp / "victim", "victim");
  const std::vector<std::function<void(nlohmann::json&)>> edits = {
      [](nlohmann::json& j) { j["files"][0]["path"] = "../../victim"; },
      [&](nlohmann::json& j) { j["files"][0]["path"] = tmp / "victim"; },
      [&](nlohmann::json& j) { j["files"][0]["backup"] = tmp / "victim"; },
      [](nlohmann::json& j) { j["new_dirs"] = {"../../precious"}; },
      [](nlohmann::json& j) { j["backup_dir"] = "../precious"; },
      [](nlohmann::json& j) { j["moved_aside"] = {{{"path", "../victim"}, {"backup", ".cudnnup/b/x"}}}; },
      [&](nlohmann::json& j) { j["toolkit_root"] = home(); },
  };
  install_into();
  for (const auto& edit : edits) {
    std::string original = testing::read_file_bytes(cuda() + "/.cudnnup/manifest.json");
    edit_manifest(edit);
    auto r = expect_refused({"uninstall", "--into", cuda()}, 2);
    EXPECT_NE(r.err.find("was not acted on"), std::string::npos) << r.err;
    write_text(cuda() + "/.cudnnup/manifest.json", original);
    ::chmod((cuda() + "/.cudnnup/manifest.json").c_str(), 0600);
  }
  EXPECT_EQ(testing::read_file_bytes(tmp / "victim"), "victim");
}

TEST_F(HostileToolkit, AStoreManifestNamingASecretDoesNotMakeDoctorDeepHashIt) {
  ASSERT_EQ(run({"install", archive}).exit_code, 0);
  std::string path = store() + "/versions/" + kTopId + "/cudnnup-manifest.json";
  auto j = nlohmann::json::parse(testing::read_file_bytes(path));
  j["files"].push_back({{"path", tmp / "secret"}, {"type", "file"}, {"size", 37}, {"sha256", std::string(64, 'a')}});
  write_text(path, j.dump());
  auto before = outside();
  auto r = run({"--json", "doctor", "--deep"});
  EXPECT_NE(r.out.find("install.manifest_unreadable"), std::string::npos) << r.out.substr(0, 2000);
  EXPECT_EQ(r.out.find("same size, different sha256"), std::string::npos);
  EXPECT_EQ(outside(), before);
}

TEST_F(HostileToolkit, UninstallStopsWhenTheUserReplacedALinkWithAFile) {
  install_into();
  stdfs::remove(cuda() + "/lib64/libcudnn.so.9");
  write_text(cuda() + "/lib64/libcudnn.so.9", "my own build");
  auto r = expect_refused({"uninstall", "--into", cuda()}, 4);  // the toolkit too: nothing may be removed
  EXPECT_NE(r.err.find(cuda() + "/lib64/libcudnn.so.9: was a link to libcudnn.so.9.19.0, is now a file"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Nothing was removed"), std::string::npos);
}

TEST_F(HostileToolkit, UninstallStopsWhenTheUserReplacedALinkWithADirectoryOfTheirFiles) {
  auto before_install = outside();
  install_into();
  stdfs::remove(cuda() + "/lib64/libcudnn_ops.so.9");
  write_text(cuda() + "/lib64/libcudnn_ops.so.9/mine.txt", "the user's data");
  auto r = expect_refused({"uninstall", "--into", cuda()}, 4);
  EXPECT_NE(r.err.find("libcudnn_ops.so.9: was a link to libcudnn_ops.so.9.19.0, is now a directory"), std::string::npos) << r.err;
  // --force removes what the install put there (the user's directory in its place included) and
  // restores the original files: outside the store, everything is as before the install.
  auto forced = run({"uninstall", "--into", cuda(), "--force"});
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_NE(forced.out.find("removed although changed (--force): " + cuda() + "/lib64/libcudnn_ops.so.9"), std::string::npos)
      << forced.out;
  EXPECT_EQ(testing::tree_changes(before_install, outside()), "");
}

TEST_F(HostileToolkit, TwoStoresRacingOnOneToolkitNeverBothInstall) {
  auto outside_both = [&] { return tree_without({"home/store", "home/store2"}); };
  auto original = outside_both();
  auto store_before = state();
  std::string other_store = tmp / "home/store2";
  auto install_from = [&](const std::string& home_store, ProcessResult* out) {
    ProcessOptions o;
    o.timeout_ms = 60000;
    o.env = std::map<std::string, std::string>{{"HOME", home()}, {"PATH", "/usr/bin:/bin"}, {"CUDNNUP_HOME", home_store}};
    *out = run_process({CUDNNUP_BINARY, "install", archive, "--into", cuda()}, o).value_or(ProcessResult{});
  };
  ProcessResult a, b;
  std::thread ta(install_from, store(), &a), tb(install_from, other_store, &b);
  ta.join();
  tb.join();
  ASSERT_TRUE(a.exited_normally() && b.exited_normally());
  EXPECT_EQ((a.exit_code == 0) + (b.exit_code == 0), 1) << a.err << "\n---\n" << b.err;
  const ProcessResult& loser = a.exit_code == 0 ? b : a;
  EXPECT_EQ(loser.exit_code, 4) << loser.err;
  EXPECT_NE(loser.err.find("already installed cuDNN into"), std::string::npos) << loser.err;
  EXPECT_FALSE(stdfs::exists(cuda() + "/.cudnnup-lock")) << "the toolkit's lock leaves no trace";
  // The refused install changed nothing of its store (the second store it would have made first).
  if (&loser == &a) {
    EXPECT_EQ(testing::tree_changes(store_before, state()), "");
  } else {
    EXPECT_FALSE(stdfs::exists(other_store)) << "a refused first install leaves no store";
  }
  // The one manifest covers everything: uninstall from the winner's store restores the original,
  // and everything outside the two stores is byte for byte as before.
  std::string winner = a.exit_code == 0 ? store() : other_store;
  ProcessOptions o;
  o.env = std::map<std::string, std::string>{{"HOME", home()}, {"PATH", "/usr/bin:/bin"}, {"CUDNNUP_HOME", winner}};
  auto un = run_process({CUDNNUP_BINARY, "uninstall", "--into", cuda()}, o);
  ASSERT_TRUE(un.ok());
  EXPECT_EQ(un->exit_code, 0) << un->err;
  EXPECT_EQ(testing::tree_changes(original, outside_both()), "");
}

TEST_F(HostileToolkit, AHeldToolkitLockStopsAnInstallFromAnyStore) {
  // What another store's install holds: the lock on the toolkit directory itself.
  auto lock = FileLock::acquire_dir(cuda(), false);
  ASSERT_TRUE(lock.ok()) << lock.error().message;
  auto r = expect_refused({"install", archive, "--into", cuda(), "--no-wait"}, 4);
  EXPECT_NE(r.err.find("another cudnnup"), std::string::npos) << r.err;
  r = expect_refused({"uninstall", "--into", cuda(), "--no-wait"}, 4);
  EXPECT_NE(r.err.find("another cudnnup"), std::string::npos) << r.err;
}

TEST_F(HostileToolkit, LinkRefusesTheStoreItself) {
  for (const std::string& target : {store() + "/current", store() + "/versions/" + kSelected, store()}) {
    auto r = expect_refused({"link", "--into", target, "--move-aside"}, 2);
    EXPECT_NE(r.err.find("inside the cudnnup store"), std::string::npos) << r.err;
  }
}

#endif  // CUDNNUP_HAVE_INSTALL

}  // namespace
}  // namespace cudnnup
