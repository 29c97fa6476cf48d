// End-to-end checks of list/use/current/env/exec/init: the real cudnnup binary on a temporary
// store holding stub cuDNN sets (tests/fixtures), `env` output evaluated by real bash, zsh and fish,
// and a program that dlopens libcudnn.so.9 run through `cudnnup exec`. POSIX only (the Windows
// build leaves *_posix_test.cc out).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>
#include <sstream>

#include "base/paths.h"
#include "platform/process.h"
#include "support/archive_builder.h"
#include "support/fixture_libs.h"
#include "support/tree_snapshot.h"

namespace cudnnup {
namespace {

using namespace cudnnup::testing;

const char* const kVersion919 = "9.19.0.56+cuda13";
const char* const kV914 = "9.14.0.64+cuda13";
const char* const kVersion91 = "9.1.0.70+cuda12";
const char* const kV89 = "8.9.7.29+cuda12";

class VersionsCli : public ::testing::Test {
 public:
  void SetUp() override {
    add_version(kVersion919, "v9.19.0", 9, 19, 0);
    add_version(kV914, "v9.14.0", 9, 14, 0);
    add_version(kVersion91, "v9.1.0", 9, 1, 0);
    // Not in the store: a dir with only another cuDNN (removed from the search path), and a
    // toolkit-like dir with cuDNN next to other libraries (kept, after the selected dir).
    install_stub_set("v9.1.0", tmp / "other/lib", true);
    copy_file(fixture_lib("v9.1.0", "libcudnn.so.9"), tmp / "toolkit/lib64/libcudnn.so.9");
    write_text(tmp / "toolkit/lib64/libcudart.so.13", "not a real cudart");
    make_dirs(tmp / "home");
    make_dirs(tmp / "proj/sub");
  }

  void add_version(const std::string& id, const std::string& variant, int major, int minor, int patch) {
    std::string dir = store() + "/versions/" + id;
    install_stub_set(variant, dir + "/lib", /*versioned_names=*/true);
    write_text(dir + "/include/cudnn_version.h", cudnn_version_header(major, minor, patch));
  }

  std::string store() const { return tmp / "store"; }

  std::map<std::string, std::string> base_env() const {
    return {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
            {"HOME", tmp / "home"},
            {"CUDNNUP_HOME", store()},
            {"LD_LIBRARY_PATH", tmp / "other/lib" + ":" + store() + "/versions/" + kV914 + "/lib:" + tmp / "toolkit/lib64"}};
  }

  // Runs `script` in `shell` from `cwd`, with $CUDNNUP naming the binary.
  ProcessResult shell(const std::string& shell_path, const std::string& script, const std::string& cwd,
                      std::map<std::string, std::string> extra = {}) {
    auto env = base_env();
    env["CUDNNUP"] = CUDNNUP_BINARY;
    for (auto& [k, v] : extra) env[k] = v;
    std::string full = "cd '" + cwd + "' && " + script;
    if (shell_path.find("fish") != std::string::npos) full = "cd '" + cwd + "'; and " + script;
    ProcessOptions options;
    options.timeout_ms = 20000;
    options.max_output_bytes = 1 << 20;
    options.env = env;
    auto r = run_process({shell_path, "-c", full}, options);
    EXPECT_TRUE(r.ok());
    return r.value_or(ProcessResult{});
  }

  ProcessResult cli(const std::string& args, const std::string& cwd = {}, std::map<std::string, std::string> extra = {}) {
    return shell("/bin/sh", "\"$CUDNNUP\" " + args, cwd.empty() ? tmp.path() : cwd, std::move(extra));
  }

  std::string lib_of(const std::string& id) const { return store() + "/versions/" + id + "/lib"; }

  TempDir tmp;
};

TEST_F(VersionsCli, UseRefusesWhatIsNotInstalledAndTouchesNothing) {
  std::filesystem::remove_all(store());
  auto r = cli("use 9");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no cuDNN is installed"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(store()));
}

TEST_F(VersionsCli, EnvPersistIsWindowsOnlyAndPointsToInitHere) {
  auto r = cli("env --persist --version 9.19");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("Windows only"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cudnnup init bash"), std::string::npos) << r.err;
  auto j = cli("--json env --unpersist");
  EXPECT_EQ(j.exit_code, 2);
  EXPECT_EQ(nlohmann::json::parse(j.out)["error"]["code"], "unsupported") << j.out;
  EXPECT_EQ(cli("env --dry-run").exit_code, 2) << "--dry-run alone is a usage error";
  EXPECT_FALSE(std::filesystem::exists(store() + "/state.json")) << "nothing written";
}

TEST_F(VersionsCli, UseCurrentListAndPrecedence) {
  auto missing = cli("use 9.2");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find(std::string("installed: ") + kVersion919), std::string::npos) << missing.err;

  ASSERT_EQ(cli("use 9").exit_code, 0);
  EXPECT_EQ(std::filesystem::read_symlink(store() + "/current").generic_string(), store() + "/versions/" + kVersion919);
  EXPECT_EQ(cli("current --bare").out, std::string(kVersion919) + "\n");

  ASSERT_EQ(cli("use --local 9.14", tmp / "proj").exit_code, 0);
  auto nested = cli("--json current", tmp / "proj/sub");
  auto j = nlohmann::json::parse(nested.out);
  EXPECT_EQ(j["version"], kV914);
  EXPECT_EQ(j["source"], "pin-file");
  EXPECT_EQ(j["origin"], tmp / "proj/.cudnn-version");
  EXPECT_EQ(j["schema"], "cudnnup.current/1");

  auto by_env = cli("--json current", tmp / "proj/sub", {{"CUDNNUP_VERSION", "+cuda12"}});
  j = nlohmann::json::parse(by_env.out);
  EXPECT_EQ(j["version"], kVersion91);
  EXPECT_EQ(j["source"], "environment");

  auto list = cli("--json list --store-only", tmp / "proj");
  j = nlohmann::json::parse(list.out);
  EXPECT_EQ(j["schema"], "cudnnup.list/1");
  ASSERT_EQ(j["versions"].size(), 3u);
  EXPECT_EQ(j["versions"][0]["id"], kVersion919);
  EXPECT_EQ(j["versions"][0]["global_default"], true);
  EXPECT_EQ(j["versions"][0]["selected"], false);
  EXPECT_EQ(j["versions"][1]["selected"], true);
  EXPECT_EQ(j["selected"]["source"], "pin-file");

  // Undo the pin, then the global default.
  ASSERT_EQ(cli("use --undo").exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(tmp / "proj/.cudnn-version"));
  ASSERT_EQ(cli("use --undo").exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(store() + "/current"));
  EXPECT_EQ(cli("current").exit_code, 2);
}

// `use system` and `use --unset`, globally and with --local: logged, undoable, no-ops log nothing,
// and what the readers say under each.
TEST_F(VersionsCli, UseSystemAndUnsetAreLoggedAndUndoable) {
  auto history_size = [&] { return nlohmann::json::parse(cli("--json use --history").out)["history"].size(); };
  ASSERT_EQ(cli("use 9.19").exit_code, 0);
  auto system = cli("use system");
  ASSERT_EQ(system.exit_code, 0) << system.err;
  EXPECT_NE(system.out.find("this machine's own cuDNN copies"), std::string::npos) << system.out;
  EXPECT_FALSE(std::filesystem::is_symlink(store() + "/current")) << "no store version is the default";
  EXPECT_EQ(cli("current --bare").out, "system\n");
  auto current = cli("current");
  EXPECT_EQ(current.exit_code, 0);
  EXPECT_NE(current.out.find("the global default"), std::string::npos) << current.out;
  auto list = nlohmann::json::parse(cli("--json list --store-only").out);
  EXPECT_EQ(list["global_default"], "system");
  EXPECT_TRUE(list["selected"]["version"].is_null());
  for (const auto& v : list["versions"]) EXPECT_EQ(v["selected"], false);
  EXPECT_EQ(history_size(), 2u);
  EXPECT_NE(cli("use system").out.find("already system; nothing changed"), std::string::npos);
  EXPECT_EQ(history_size(), 2u) << "a no-op is not logged";

  ASSERT_EQ(cli("use --undo").exit_code, 0);
  EXPECT_EQ(cli("current --bare").out, std::string(kVersion919) + "\n");
  EXPECT_EQ(std::filesystem::read_symlink(store() + "/current").filename().string(), kVersion919) << "`current` is back";

  ASSERT_EQ(cli("use --unset").exit_code, 0);
  EXPECT_FALSE(std::filesystem::is_symlink(store() + "/current"));
  EXPECT_EQ(cli("current").exit_code, 2) << "nothing selected, unlike system";
  EXPECT_NE(cli("use --unset").out.find("There is no global default; nothing changed"), std::string::npos);
  ASSERT_EQ(cli("use --undo").exit_code, 0);
  EXPECT_EQ(cli("current --bare").out, std::string(kVersion919) + "\n");

  // A pin that says system stops the search: the outer pin (9.14) does not apply below it.
  ASSERT_EQ(cli("use --local 9.14", tmp / "proj").exit_code, 0);
  ASSERT_EQ(cli("use --local system", tmp / "proj/sub").exit_code, 0);
  EXPECT_EQ(read_file_bytes(tmp / "proj/sub/.cudnn-version"), "system\n");
  EXPECT_EQ(cli("current --bare", tmp / "proj/sub").out, "system\n");
  EXPECT_EQ(cli("current --bare", tmp / "proj").out, std::string(kV914) + "\n");
  auto removed = cli("use --local --unset", tmp / "proj/sub");
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_FALSE(std::filesystem::exists(tmp / "proj/sub/.cudnn-version"));
  EXPECT_EQ(cli("current --bare", tmp / "proj/sub").out, std::string(kV914) + "\n") << "the outer pin applies again";
  EXPECT_NE(cli("use --local --unset", tmp / "proj/sub").out.find("nothing changed"), std::string::npos);
  ASSERT_EQ(cli("use --undo").exit_code, 0);
  EXPECT_EQ(read_file_bytes(tmp / "proj/sub/.cudnn-version"), "system\n") << "undo puts the pin back";
  auto history = nlohmann::json::parse(cli("--json use --history").out)["history"];
  EXPECT_EQ(history.size(), 9u) << "every change but the three no-ops: " << history.dump(1);
  EXPECT_EQ(history[1]["to"], "system");
  EXPECT_EQ(history[3]["to"], nullptr) << "--unset";

  EXPECT_EQ(cli("use --unset 9.1").exit_code, 2) << "--unset takes no version";
  EXPECT_EQ(cli("use --undo --unset").exit_code, 2);
}

// Under `system`, env and exec take the store's directories out and nothing else: a program
// then loads the machine's own copy that comes first.
TEST_F(VersionsCli, EnvAndExecUnderSystemTakeOutOnlyTheStore) {
  ASSERT_EQ(cli("use system").exit_code, 0);
  auto j = nlohmann::json::parse(cli("--json env").out);
  EXPECT_EQ(j["kind"], "system");
  EXPECT_EQ(j["variables"]["LD_LIBRARY_PATH"], tmp / "other/lib" + ":" + tmp / "toolkit/lib64") << j.dump(1);
  EXPECT_FALSE(j["variables"].contains("CUDNN_PATH")) << "not set, so not touched";
  auto code = cli("env --shell bash", {}, {{"CUDNN_PATH", lib_of(kV914) + "/.."}});
  EXPECT_NE(code.out.find("unset CUDNN_PATH;"), std::string::npos) << code.out;
  std::string probe = std::string(CUDNNUP_FIXTURE_DIR) + "/print_cudnn_version";
  auto loaded = cli("exec -- '" + probe + "'");
  ASSERT_EQ(loaded.exit_code, 0) << loaded.err;
  EXPECT_EQ(loaded.out, "90100\n") << "the machine's own copy first, the store's 9.14 taken out";
  auto chosen = cli("exec --version system -- '" + probe + "'", {}, {{"CUDNNUP_VERSION", "9.19"}});
  EXPECT_EQ(chosen.out, "90100\n") << "--version system beats CUDNNUP_VERSION";
  EXPECT_EQ(cli("exec -- '" + probe + "'", {}, {{"CUDNNUP_VERSION", "9.19"}}).out, "91900\n");
  // --hook prints nothing under system: the hook restores what it saved.
  auto hook = cli("env --shell bash --hook --previous 9.19.0.56+cuda13");
  EXPECT_EQ(hook.exit_code, 0);
  EXPECT_EQ(hook.out, "");
  EXPECT_EQ(hook.err, "cudnnup: cuDNN back to this machine's own copies (system, the global default)\n");
  EXPECT_EQ(cli("env --previous 9.19").exit_code, 2) << "--previous goes with --hook";
}

// The global default may be uninstalled, the last version too: the default is cleared (a logged
// change) and `current` goes. A version a pin file selects where uninstall runs is refused.
#if CUDNNUP_HAVE_INSTALL  // uninstall is built with install
TEST_F(VersionsCli, UninstallClearsTheGlobalDefaultAndTheLastVersionCanGo) {
  ASSERT_EQ(cli("use 9.19").exit_code, 0);
  auto before = disk_tree(store());
  auto dry = cli(std::string("uninstall ") + kVersion919 + " --dry-run");
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("It would clear the global default (" + std::string(kVersion919) + ")"), std::string::npos) << dry.out;
  EXPECT_EQ(tree_changes(before, disk_tree(store())), "") << "--dry-run changes nothing";

  auto removed = cli(std::string("uninstall ") + kVersion919);
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_NE(removed.out.find("was the global default; now there is none"), std::string::npos) << removed.out;
  EXPECT_FALSE(std::filesystem::exists(store() + "/versions/" + kVersion919));
  EXPECT_FALSE(std::filesystem::is_symlink(store() + "/current"));
  auto history = nlohmann::json::parse(cli("--json use --history").out);
  EXPECT_TRUE(history["global"].is_null());
  EXPECT_EQ(history["history"].back()["from"], kVersion919);
  EXPECT_TRUE(history["history"].back()["to"].is_null());
  auto undo = cli("use --undo");
  EXPECT_EQ(undo.exit_code, 2) << "the version is gone: " << undo.err;
  EXPECT_NE(undo.err.find("no longer installed"), std::string::npos) << undo.err;

  ASSERT_EQ(cli("use --local 9.1", tmp / "proj").exit_code, 0);
  auto pinned = cli(std::string("uninstall ") + kVersion91, tmp / "proj/sub");
  EXPECT_EQ(pinned.exit_code, 4) << pinned.err;
  EXPECT_NE(pinned.err.find("cudnnup use --local --unset"), std::string::npos) << pinned.err;
  EXPECT_TRUE(std::filesystem::exists(store() + "/versions/" + kVersion91));
  ASSERT_EQ(cli(std::string("uninstall ") + kVersion91).exit_code, 0) << "elsewhere the pin does not apply";

  ASSERT_EQ(cli("use 9.14").exit_code, 0);
  auto last = cli(std::string("uninstall ") + kV914);
  ASSERT_EQ(last.exit_code, 0) << "the last version, and the global default: " << last.err;
  EXPECT_EQ(cli("list -q").out, "");
  EXPECT_EQ(nlohmann::json::parse(cli("--json use --history").out)["global"], nullptr);
}
#endif  // CUDNNUP_HAVE_INSTALL

// Evaluates `cudnnup env` in a real shell and reads what a child process of that shell sees.
void check_env_in_shell(VersionsCli& t, const std::string& shell_path, const std::string& eval_line) {
  ASSERT_TRUE(std::filesystem::exists(shell_path)) << shell_path << " is missing: run scripts/install-deps.sh";
  auto r = t.shell(shell_path, eval_line + " && printenv LD_LIBRARY_PATH CPATH CUDNN_PATH CUDNN_HOME", t.tmp.path(),
                   {{"CPATH", t.tmp / "other/include"}});
  ASSERT_EQ(r.exit_code, 0) << shell_path << ": " << r.err;
  std::vector<std::string> lines = paths::split_list(r.out, '\n');
  ASSERT_GE(lines.size(), 4u) << r.out;
  auto ld = paths::split_list(lines[0], ':');
  ASSERT_FALSE(ld.empty());
  EXPECT_EQ(ld[0], t.store() + "/versions/" + kVersion919 + "/lib") << shell_path;
  for (const auto& entry : ld) {
    EXPECT_NE(entry, t.tmp / "other/lib") << shell_path << ": another copy left in " << lines[0];
    EXPECT_NE(entry, t.store() + "/versions/" + kV914 + "/lib") << shell_path << ": " << lines[0];
  }
  EXPECT_EQ(ld.back(), t.tmp / "toolkit/lib64") << "a toolkit dir with other libraries stays, after";
  EXPECT_EQ(lines[1].substr(0, lines[1].find(':')), t.store() + "/versions/" + kVersion919 + "/include");
  EXPECT_EQ(lines[2], t.store() + "/versions/" + kVersion919);
  EXPECT_EQ(lines[3], t.store() + "/versions/" + kVersion919);
}

TEST_F(VersionsCli, EnvEvaluatedInBashZshAndFish) {
  ASSERT_EQ(cli("use 9.19").exit_code, 0);
  check_env_in_shell(*this, "/bin/bash", "eval \"$(\"$CUDNNUP\" env --shell bash)\"");
  check_env_in_shell(*this, "/usr/bin/zsh", "eval \"$(\"$CUDNNUP\" env --shell zsh)\"");
  check_env_in_shell(*this, "/usr/bin/fish", "$CUDNNUP env --shell fish | source");
}

TEST_F(VersionsCli, InitHookFollowsTheDirectory) {
  ASSERT_EQ(cli("use 9.19").exit_code, 0);
  ASSERT_EQ(cli("use --local 9.1", tmp / "proj").exit_code, 0);
  std::string expect_global = store() + "/versions/" + kVersion919 + "\n";
  std::string expect_pinned = store() + "/versions/" + kVersion91 + "\n";
  // bash and zsh run the hook from the prompt; a script calls it as the prompt would.
  for (std::string sh : {"/bin/bash", "/usr/bin/zsh"}) {
    auto name = sh.substr(sh.rfind('/') + 1);
    auto r = shell(sh, "eval \"$(\"$CUDNNUP\" init " + name + ")\" && printenv CUDNN_PATH && cd proj/sub && "
                   "_cudnnup_hook && printenv CUDNN_PATH", tmp.path());
    ASSERT_EQ(r.exit_code, 0) << sh << ": " << r.err;
    EXPECT_EQ(r.out, expect_global + expect_pinned) << sh;
  }
  // fish runs it on every change of PWD by itself.
  auto r = shell("/usr/bin/fish", "$CUDNNUP init fish | source; and printenv CUDNN_PATH; and cd proj/sub; and "
                 "printenv CUDNN_PATH", tmp.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, expect_global + expect_pinned);
}

TEST_F(VersionsCli, ExecLoadsTheSelectedCopy) {
  std::string probe = std::string(CUDNNUP_FIXTURE_DIR) + "/print_cudnn_version";
  // Without cudnnup the loader finds the other copy first: the environment is what decides.
  auto plain = shell("/bin/sh", "'" + probe + "'", tmp.path());
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, "90100\n");

  ASSERT_EQ(cli("use 9.19").exit_code, 0);
  auto global = cli("exec -- '" + probe + "'");
  ASSERT_EQ(global.exit_code, 0) << global.err;
  EXPECT_EQ(global.out, "91900\n");

  ASSERT_EQ(cli("use --local 9.14", tmp / "proj").exit_code, 0);
  auto pinned = cli("exec -- '" + probe + "'", tmp / "proj/sub");
  EXPECT_EQ(pinned.out, "91400\n") << pinned.err;

  auto explicit_version = cli("exec --version 9.1 -- '" + probe + "'", tmp / "proj/sub");
  EXPECT_EQ(explicit_version.out, "90100\n") << explicit_version.err;

  auto missing = cli("exec --version 8 -- '" + probe + "'");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no installed cuDNN matches '8'"), std::string::npos) << missing.err;
  // The command's own exit code comes back.
  EXPECT_EQ(cli("exec -- /bin/sh -c 'exit 7'").exit_code, 7);
}

TEST_F(VersionsCli, ListShowsOtherCopiesAsNotManaged) {
  ASSERT_EQ(cli("use 9.19").exit_code, 0);
  auto r = cli("--json list");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["other_copies_scanned"], true) << j.dump(2);
  std::set<std::string> dirs;
  for (const auto& c : j["other_copies"]) {
    EXPECT_EQ(c["managed"], false);
    dirs.insert(c["lib_dir"].get<std::string>());
    EXPECT_EQ(c["lib_dir"].get<std::string>().rfind(store(), 0), std::string::npos) << "a store version listed as unmanaged";
  }
  // Both are in LD_LIBRARY_PATH, where the doctor's scan starts.
  EXPECT_TRUE(dirs.count(tmp / "other/lib")) << j.dump(2);
  EXPECT_TRUE(dirs.count(tmp / "toolkit/lib64")) << j.dump(2);
  EXPECT_EQ(j["versions"].size(), 3u);
}

// The image's real cuDNN 9.19 as a store entry, selected with `use`, loaded through `exec`.
// The entry links to the toolkit's files instead of copying 400 MB; the acceptance test with
// `cudnnup install` filling the store comes with the install command.
TEST_F(VersionsCli, RealCudnnInTheStoreIsWhatExecLoads) {
  const std::string real_lib = "/usr/local/cuda-13.0/lib64";
  if (!std::filesystem::exists(real_lib + "/libcudnn.so.9")) GTEST_SKIP() << "no real cuDNN 9 in " << real_lib;
  std::string dir = store() + "/versions/9.19.0.56+cuda13-real";  // not an id: must be ignored
  std::string id_dir = store() + "/versions/9.19.0.99+cuda13";
  make_dirs(id_dir + "/lib");
  for (const auto& entry : std::filesystem::directory_iterator(real_lib)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("libcudnn", 0) == 0) make_symlink(entry.path().string(), id_dir + "/lib/" + name);
  }
  make_dirs(dir);
  ASSERT_EQ(cli("use 9.19.0.99").exit_code, 0);
  std::string probe = std::string(CUDNNUP_FIXTURE_DIR) + "/print_cudnn_version";
  auto r = cli("exec -- '" + probe + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "91900\n");
  // And the stub 9.14 for contrast, by CUDNNUP_VERSION.
  auto stub = cli("exec -- '" + probe + "'", tmp.path(), {{"CUDNNUP_VERSION", "9.14"}});
  EXPECT_EQ(stub.out, "91400\n") << stub.err;
}

TEST_F(VersionsCli, ConcurrentUseCallsAllLandInTheLog) {
  // Eight processes switch at once; the store lock serialises them, so no change is lost and
  // state.json and `current` agree at the end. One that finds its version already the default
  // (the one before it asked for the same) changes nothing and records nothing, and says so.
  auto r = shell("/bin/bash",
                 "i=0; for v in 9.19 9.14 9.1 9.19 9.14 9.1 9.19 9.14; do i=$((i+1)); \"$CUDNNUP\" use $v >out.$i & done; wait;"
                 " cat out.* | grep -c 'nothing changed' || true",
                 tmp.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t unchanged = std::stoul(r.out);
  auto history = cli("--json use --history");
  ASSERT_EQ(history.exit_code, 0) << history.err;
  auto j = nlohmann::json::parse(history.out);
  size_t n = j["history"].size();
  ASSERT_EQ(n + unchanged, 8u) << "every call either changed the default or found it already so";
  ASSERT_GE(n, 1u);
  for (size_t i = 1; i < n; ++i) {
    EXPECT_EQ(j["history"][i]["from"], j["history"][i - 1]["to"]) << "change " << i << " did not see the one before";
    EXPECT_NE(j["history"][i]["from"], j["history"][i]["to"]) << "a no-op was recorded";
  }
  EXPECT_EQ(j["global"], j["history"][n - 1]["to"]);
  EXPECT_EQ(std::filesystem::read_symlink(store() + "/current").filename().string(), j["global"].get<std::string>());
  EXPECT_FALSE(std::filesystem::exists(store() + "/current.tmp"));
  EXPECT_FALSE(std::filesystem::exists(store() + "/state.json.tmp"));
}

TEST_F(VersionsCli, LinkMakesAToolkitFollowUseAndUndoPutsItBack) {
  std::string probe = std::string(CUDNNUP_FIXTURE_DIR) + "/print_cudnn_version";
  std::string cuda = tmp / "cuda-12.4";
  install_stub_set("v9.1.0", cuda + "/lib64", /*versioned_names=*/true);
  write_text(cuda + "/lib64/libcudart.so.12", "cudart");
  write_text(cuda + "/include/cudnn_version.h", cudnn_version_header(9, 1, 0));
  auto load_via_toolkit = [&] {
    auto r = shell("/bin/sh", "'" + probe + "'", tmp.path(), {{"LD_LIBRARY_PATH", cuda + "/lib64"}});
    return r.out;
  };
  ASSERT_EQ(load_via_toolkit(), "90100\n");
  ASSERT_EQ(cli("use 9.19").exit_code, 0);

  auto refused = cli("link --into '" + cuda + "'");
  EXPECT_EQ(refused.exit_code, 4);
  EXPECT_NE(refused.err.find("--move-aside"), std::string::npos) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(cuda + "/.cudnnup-link.json"));
  EXPECT_EQ(load_via_toolkit(), "90100\n");

  auto linked = cli("link --into '" + cuda + "' --move-aside");
  ASSERT_EQ(linked.exit_code, 0) << linked.err;
  EXPECT_EQ(load_via_toolkit(), "91900\n");
  ASSERT_EQ(cli("use 9.14").exit_code, 0);
  EXPECT_EQ(load_via_toolkit(), "91400\n");  // the toolkit follows `current`
  EXPECT_TRUE(std::filesystem::is_symlink(cuda + "/include/cudnn_version.h"));

  auto undone = cli("link --undo --into '" + cuda + "'");
  ASSERT_EQ(undone.exit_code, 0) << undone.err;
  EXPECT_EQ(load_via_toolkit(), "90100\n");
  EXPECT_FALSE(std::filesystem::is_symlink(cuda + "/include/cudnn_version.h"));
  EXPECT_FALSE(std::filesystem::exists(cuda + "/.cudnnup-aside"));
  EXPECT_FALSE(std::filesystem::exists(cuda + "/.cudnnup-link.json"));
  EXPECT_EQ(std::filesystem::read_symlink(cuda + "/lib64/libcudnn.so.9").generic_string(), "libcudnn.so.9.1.0");
}

// The store knows the toolkits linked to it: a switch that would leave their links dangling
// (another major lacks the names; undo back to no default removes `current`) is refused and
// names the links; --force switches anyway; `link --undo` says what it put back and kept.
#if CUDNNUP_HAVE_INSTALL  // its last step is an uninstall, built with install
TEST_F(VersionsCli, UseRefusesToLeaveALinkedToolkitDangling) {
  std::string cuda = tmp / "cuda-12.4";
  make_dirs(cuda + "/lib64");
  write_text(cuda + "/include/cuda.h", "cuda");
  std::string v8 = store() + "/versions/8.9.7.29+cuda12";
  write_text(v8 + "/include/cudnn_version.h", cudnn_version_header(8, 9, 7));
  ASSERT_EQ(cli("use 9.19").exit_code, 0);
  auto linked = cli("link --into '" + cuda + "'");
  ASSERT_EQ(linked.exit_code, 0) << linked.err;

  auto refused = cli("use 8.9");
  EXPECT_EQ(refused.exit_code, 4) << refused.err;
  EXPECT_NE(refused.err.find(cuda + "/lib64/libcudnn.so.9 -> "), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--force"), std::string::npos);
  EXPECT_EQ(cli("current --bare").out, std::string(kVersion919) + "\n") << "nothing changed";
  auto gone = cli("use --undo");
  EXPECT_EQ(gone.exit_code, 4) << "undo back to no default would remove `current`: " << gone.err;
  EXPECT_EQ(cli("use 9.14").exit_code, 0) << "same major: the links keep working";
  auto uninstall = cli(std::string("uninstall ") + kV914);
  EXPECT_EQ(uninstall.exit_code, 4) << uninstall.err;

  auto forced = cli("use 8.9 --force");
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_NE(forced.err.find("dangle"), std::string::npos) << forced.err;
  ASSERT_EQ(cli("use 9.19").exit_code, 0);

  auto undone = cli("--json link --undo --into '" + cuda + "'");
  ASSERT_EQ(undone.exit_code, 0) << undone.err;
  auto j = nlohmann::json::parse(undone.out);
  EXPECT_EQ(j["action"], "unlinked");
  EXPECT_FALSE(j["removed"].empty());
  EXPECT_TRUE(j["kept"].empty());
  EXPECT_EQ(cli("use 8.9").exit_code, 0) << "nothing linked any more";
}
#endif  // CUDNNUP_HAVE_INSTALL

// A toolkit linked to the store (`cudnnup link`) follows `current`. `use` of another major (8.9
// lacks every libcudnn*.so.9 name), `use --undo` back to no default (no `current` at all) and
// `uninstall` of the version `current` points at would leave its links dangling: each is refused
// with exit 4, names the links, and changes no byte under the test's directory (the store, the
// toolkit, everything else). `use --force` and `use --undo --force` switch anyway and name the
// links that now dangle, which are exactly the ones that do on disk afterwards. `uninstall` has
// no override: the version `current` points at is never removed, --force or not.
class LinkedToolkitCli : public VersionsCli {
 public:
  void SetUp() override {
    VersionsCli::SetUp();
    add_version(kV89, "v8.9.7", 8, 9, 7);
    write_text(cuda() + "/include/cuda.h", "#define CUDA_VERSION 13000\n");
    write_text(cuda() + "/lib64/libcudart.so.13", "cudart");
    // The first change, so `use --undo` would go back to no global default.
    ASSERT_EQ(cli("use 9.19").exit_code, 0);
    auto linked = cli("link --into '" + cuda() + "'");
    ASSERT_EQ(linked.exit_code, 0) << linked.err;
    ASSERT_EQ(toolkit_links().size(), 17u) << "8 libraries, each as .so.9 and .so, and cudnn_version.h";
    ASSERT_TRUE(dangling_links().empty());
  }

  std::string cuda() const { return tmp / "cuda-13.0"; }

  // The toolkit's links as the messages write them: "CUDA_DIR/lib64/libcudnn.so.9 -> TARGET".
  std::set<std::string> toolkit_links(bool only_dangling = false) const {
    std::set<std::string> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(cuda())) {
      if (!e.is_symlink() || (only_dangling && std::filesystem::exists(e.path()))) continue;
      out.insert(e.path().string() + " -> " + std::filesystem::read_symlink(e.path()).string());
    }
    return out;
  }
  std::set<std::string> dangling_links() const { return toolkit_links(/*only_dangling=*/true); }

  // The links a message names (its lines "  CUDA_DIR/... -> ..."), and how many it counts in all
  // (a long list ends "  ... and N more").
  struct Named {
    std::set<std::string> links;
    size_t total = 0;
  };
  Named named_links(const std::string& message) const {
    Named n;
    std::istringstream in(message);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("  " + cuda() + "/", 0) == 0) {
        n.links.insert(line.substr(2));
        ++n.total;
      } else if (line.rfind("  ... and ", 0) == 0) {
        n.total += std::stoul(line.substr(10));
      }
    }
    return n;
  }

  // Runs a command that must be refused because links would dangle: exit 4, a message naming
  // links, and not one byte changed anywhere under the test's directory.
  ProcessResult expect_refused(const std::string& args) {
    auto before = disk_tree(tmp.path());
    auto r = cli(args);
    EXPECT_EQ(r.exit_code, 4) << args << ": " << r.err;
    EXPECT_NE(r.err.find("would dangle"), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(tree_changes(before, disk_tree(tmp.path())), "") << args << " was refused but changed these";
    return r;
  }
};

TEST_F(LinkedToolkitCli, UseOfAnotherMajorIsRefusedAndForceSaysWhatDangles) {
  auto refused = expect_refused("use 8.9");
  auto named = named_links(refused.err);
  EXPECT_EQ(named.total, 15u) << "all but libcudnn.so and cudnn_version.h, which 8.9 has too: " << refused.err;
  EXPECT_EQ(named.links.size(), 8u) << "the first eight by name, then a count";
  EXPECT_TRUE(named.links.count(cuda() + "/lib64/libcudnn.so.9 -> " + store() + "/current/lib/libcudnn.so.9")) << refused.err;
  EXPECT_NE(refused.err.find("--force"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("cudnnup link --undo --into"), std::string::npos) << refused.err;

  auto forced = cli("use 8.9 --force");
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(std::filesystem::read_symlink(store() + "/current").generic_string(), store() + "/versions/" + kV89);
  EXPECT_NE(forced.err.find("now dangle"), std::string::npos) << forced.err;
  auto dangling = dangling_links();
  EXPECT_EQ(dangling.size(), 15u);
  auto said = named_links(forced.err);
  EXPECT_EQ(said.total, dangling.size()) << forced.err;
  for (const auto& link : said.links) EXPECT_TRUE(dangling.count(link)) << link << " was named but does not dangle";
  EXPECT_EQ(said.links, named.links) << "the refusal named the links that --force then left dangling";
}

TEST_F(LinkedToolkitCli, UndoBackToNoDefaultIsRefusedAndForceSaysWhatDangles) {
  auto refused = expect_refused("use --undo");
  EXPECT_NE(refused.err.find("without a global default"), std::string::npos) << refused.err;
  EXPECT_EQ(named_links(refused.err).total, 17u) << "without `current` every link dangles: " << refused.err;

  auto forced = cli("use --undo --force");
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_FALSE(std::filesystem::is_symlink(store() + "/current")) << "no global default, no `current`";
  EXPECT_NE(cli("current --bare").exit_code, 0) << "nothing is selected any more";
  EXPECT_NE(forced.err.find("now dangle"), std::string::npos) << forced.err;
  auto dangling = dangling_links();
  EXPECT_EQ(dangling, toolkit_links()) << "every link dangles";
  auto said = named_links(forced.err);
  EXPECT_EQ(said.total, dangling.size()) << forced.err;
  for (const auto& link : said.links) EXPECT_TRUE(dangling.count(link)) << link;
}

TEST_F(LinkedToolkitCli, UseSystemAndUnsetAreRefusedWhileLinksWouldDangle) {
  for (const std::string& args : {std::string("use system"), std::string("use --unset")}) {
    auto refused = expect_refused(args);
    EXPECT_EQ(named_links(refused.err).total, 17u) << "without `current` every link dangles: " << refused.err;
  }
  auto forced = cli("use system --force");
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(dangling_links(), toolkit_links()) << "every link dangles, as --force was told";
  ASSERT_EQ(cli("use --undo").exit_code, 0);
  EXPECT_TRUE(dangling_links().empty()) << "the undo points `current` at 9.19 again";
}

#if CUDNNUP_HAVE_INSTALL  // uninstall is built with install
TEST_F(LinkedToolkitCli, UninstallOfTheLinkedVersionIsRefusedEvenWithForce) {
  for (const std::string& args : {std::string("uninstall ") + kVersion919, std::string("uninstall ") + kVersion919 + " --force"}) {
    auto refused = expect_refused(args);
    auto named = named_links(refused.err);
    EXPECT_EQ(named.links, toolkit_links()) << args << ": removing what `current` points at breaks every link: " << refused.err;
    EXPECT_NE(refused.err.find("cudnnup use"), std::string::npos) << refused.err;
    EXPECT_TRUE(std::filesystem::exists(store() + "/versions/" + kVersion919));
  }
  // Once `current` points at another 9.x (whose names the links find too), 9.19 may go, and the
  // toolkit keeps working.
  auto linked = disk_tree(cuda());
  ASSERT_EQ(cli("use 9.14").exit_code, 0);
  auto removed = cli(std::string("uninstall ") + kVersion919);
  EXPECT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_FALSE(std::filesystem::exists(store() + "/versions/" + kVersion919));
  EXPECT_EQ(tree_changes(linked, disk_tree(cuda())), "") << "the toolkit is untouched";
  EXPECT_TRUE(dangling_links().empty());
}
#endif  // CUDNNUP_HAVE_INSTALL

}  // namespace
}  // namespace cudnnup
