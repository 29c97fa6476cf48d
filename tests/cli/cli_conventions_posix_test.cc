// The conventions users know from other tools, checked on the real binary: "did you mean",
// global options after the command, --color/NO_COLOR/TERM=dumb (on a real pseudo-terminal via
// script(1)), exec's shell-like exit codes and optional `--`, `cache clean`, `--version`, `-q`,
// a no-op `use`, `verify` defaulting to the selected version, doctor's checklist always shown.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <regex>

#include "app/cli/cli_definition.h"
#include "app/cli/cli_model.h"
#include "platform/process.h"
#include "support/fixture_libs.h"

namespace cudnnup {
namespace {

using namespace cudnnup::testing;
namespace stdfs = std::filesystem;

std::string sh_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

class Conventions : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& [id, variant, minor] : {std::tuple{"9.19.0.56+cuda13", "v9.19.0", 19}, {"9.14.0.64+cuda13", "v9.14.0", 14}}) {
      std::string dir = store() + "/versions/" + id;
      install_stub_set(variant, dir + "/lib", true);
      write_text(dir + "/include/cudnn_version.h", cudnn_version_header(9, minor, 0));
    }
    make_dirs(tmp / "home");
    make_dirs(tmp / "proj");
  }
  std::string store() const { return tmp / "store"; }

  // `args` as one shell line (already quoted where needed), run from `cwd`.
  ProcessResult sh(const std::string& line, std::map<std::string, std::string> extra = {}, const std::string& cwd = {}) {
    std::map<std::string, std::string> env = {{"PATH", "/usr/bin:/bin"}, {"HOME", tmp / "home"}, {"CUDNNUP_HOME", store()},
                                              {"CUDNNUP", CUDNNUP_BINARY}};
    for (auto& [k, v] : extra) env[k] = v;
    ProcessOptions o;
    o.timeout_ms = 60000;
    o.env = env;
    auto r = run_process({"/bin/sh", "-c", "cd " + sh_quote(cwd.empty() ? tmp.path() : cwd) + " && " + line}, o);
    EXPECT_TRUE(r.ok());
    return r.value_or(ProcessResult{});
  }
  ProcessResult cli(const std::string& args, std::map<std::string, std::string> extra = {}, const std::string& cwd = {}) {
    return sh("\"$CUDNNUP\" " + args, std::move(extra), cwd);
  }
  // On a pseudo-terminal (script(1)), so stdout is a terminal as for a person.
  ProcessResult on_terminal(const std::string& args, std::map<std::string, std::string> extra) {
    return sh("script -qec " + sh_quote("\"$CUDNNUP\" " + args) + " /dev/null", std::move(extra));
  }
  TempDir tmp;
};

TEST_F(Conventions, UnknownCommandsAndOptionsSayWhatWasMeant) {
  auto r = cli("doctr");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cudnnup has no command 'doctr'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Did you mean `cudnnup doctor`?"), std::string::npos) << r.err;
  auto opt = cli("list --stor-only");
  EXPECT_EQ(opt.exit_code, 2);
  EXPECT_NE(opt.err.find("Did you mean `--store-only`?"), std::string::npos) << opt.err;
  auto none = cli("");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("say which command: doctor,"), std::string::npos) << none.err;
}

TEST_F(Conventions, GlobalOptionsWorkAfterTheCommand) {
  ASSERT_EQ(cli("use 9.19").exit_code, 0);
  auto after = cli("list --store-only --json");
  EXPECT_EQ(nlohmann::json::parse(after.out)["schema"], "cudnnup.list/1") << after.out;
  auto format = cli("current --format=json");
  EXPECT_EQ(nlohmann::json::parse(format.out)["version"], "9.19.0.56+cuda13") << format.out;
  auto conflict = cli("current --json --format text");
  EXPECT_EQ(conflict.exit_code, 2);
  EXPECT_NE(conflict.out.find("disagree"), std::string::npos) << "a JSON error, since --json was asked: " << conflict.out;
  auto help = cli("current --help");
  EXPECT_NE(help.out.find("Global options"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--no-color"), std::string::npos) << help.out;
}

TEST_F(Conventions, ColourFollowsTheOptionNoColorAndTerm) {
  ASSERT_TRUE(stdfs::exists("/usr/bin/script")) << "script(1) from bsdutils";
  ASSERT_EQ(cli("use 9.19").exit_code, 0);
  const std::string green = "\033[32m";
  auto has_colour = [&](const ProcessResult& r) { return r.out.find(green) != std::string::npos; };
  std::map<std::string, std::string> term = {{"TERM", "xterm"}};
  EXPECT_TRUE(has_colour(on_terminal("list --store-only", term))) << "a terminal gets colour";
  EXPECT_FALSE(has_colour(cli("list --store-only", term))) << "a pipe does not";
  auto empty = term;
  empty["NO_COLOR"] = "";
  EXPECT_TRUE(has_colour(on_terminal("list --store-only", empty))) << "an empty NO_COLOR does not count (no-color.org)";
  auto set = term;
  set["NO_COLOR"] = "1";
  EXPECT_FALSE(has_colour(on_terminal("list --store-only", set)));
  EXPECT_FALSE(has_colour(on_terminal("list --store-only", {{"TERM", "dumb"}})));
  EXPECT_FALSE(has_colour(on_terminal("list --store-only --color never", term)));
  EXPECT_FALSE(has_colour(on_terminal("list --store-only --no-color", term)));
  EXPECT_TRUE(has_colour(cli("list --store-only --color=always", set))) << "--color always wins, even piped";
}

// Every option and argument of every command that takes a value, given "": a usage error that
// names it, and nothing written. Walks the CLI definition, so a new option is covered at once.
TEST_F(Conventions, AnEmptyValueIsAUsageErrorForEveryOptionOfEveryCommand) {
  CLI::App app{kProgramHelp, "cudnnup"};
  GlobalArgs global;
  CommandAction action;
  define_cli(app, global, action);
  CommandSpec spec = describe_cli(app);
  int tried = 0;
  for (const CommandSpec* c : all_commands(spec)) {
    if (c->path.empty() || !c->commands.empty()) continue;  // the program itself, `cache` alone
    std::vector<std::pair<std::string, std::string>> cases;  // shown name, the words before ""
    for (const OptionSpec& o : c->options) {
      if (o.value == ValueKind::kNone || o.names.empty()) continue;
      if (!o.choices.empty()) continue;  // "" is refused as not one of the choices already
      cases.emplace_back(o.names.back(), o.names.back());
    }
    if (!c->prefix) {
      for (const OptionSpec& p : c->positionals) cases.emplace_back(p.name, "");
    }
    for (const auto& [name, words] : cases) {
      SCOPED_TRACE("cudnnup " + c->path + " " + words + " ''");
      auto r = cli(c->path + " " + words + " ''");
      // A range or a required partner may speak first; either way a usage error, nothing done.
      EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
      EXPECT_EQ(r.err.rfind("cudnnup: error: ", 0), 0u) << r.err;
      ++tried;
    }
  }
  EXPECT_GE(tried, 40) << "the walk reached the options";
  // The ones that read "" as absent, or as the current folder, before.
  for (const char* line : {"link --into ''", "install --into '' 9", "uninstall ''", "uninstall --into ''",
                           "verify --copy ''", "which --pid ''", "which --for ''", "explain ''", "explain --file ''",
                           "env --version ''", "lock --dir ''", "--db '' doctor"}) {
    auto r = cli(line);
    EXPECT_EQ(r.exit_code, 2) << line;
    EXPECT_NE(r.err.find("an empty value names nothing"), std::string::npos) << line << ": " << r.err;
  }
  // A timeout of 0 or less, or one whose milliseconds overflow, stopped a healthy child at once
  // and verify reported the copy broken.
  for (const char* line : {"verify --timeout -5", "verify --timeout 2147484", "bench --timeout 0", "doctor --probe-timeout 0"}) {
    auto r = cli(line);
    EXPECT_EQ(r.exit_code, 2) << line << ": " << r.out;
    EXPECT_NE(r.err.find("not in range 1 to 86400"), std::string::npos) << line << ": " << r.err;
  }
  EXPECT_FALSE(stdfs::exists(tmp / "home/.cudnnup"));
  EXPECT_TRUE(stdfs::is_empty(tmp / "proj"));
  // The program's own words may be empty: exec passes them on as they are.
  auto exec = cli("exec --version 9.19 -- /bin/sh -c 'test -z \"$1\"' sh ''");
  EXPECT_EQ(exec.exit_code, 0) << exec.out << exec.err;
}

// CUDNNUP_HOME naming a file read as an empty store, exit 0; now it is said, whatever the command.
TEST_F(Conventions, AStoreThatIsNotAFolderIsAnError) {
  write_text(tmp / "a-file", "x");
  for (const char* line : {"list", "current", "use 9.19", "env"}) {
    auto r = cli(line, {{"CUDNNUP_HOME", tmp / "a-file"}});
    EXPECT_EQ(r.exit_code, 2) << line << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("is not a folder"), std::string::npos) << line << ": " << r.err;
  }
  EXPECT_EQ(read_file_bytes(tmp / "a-file"), "x");
}

// A device or a folder where a file is expected is named as such (it was "empty (0 bytes)" for
// /dev/zero and "no such file" for /dev/null).
TEST_F(Conventions, ADeviceOrAFolderGivenForAFileIsSaidToBeNoRegularFile) {
  for (const char* line : {"which --for /dev/zero", "which --for /tmp", "archive-info /dev/null"}) {
    auto r = cli(line);
    EXPECT_EQ(r.exit_code, 2) << line << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("is not a regular file"), std::string::npos) << line << ": " << r.err;
  }
}

TEST_F(Conventions, ExecExitsLikeAShellAndNeedsNoDoubleDash) {
  ASSERT_EQ(cli("use 9.19").exit_code, 0);
  auto plain = cli("exec printenv CUDNN_PATH");
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, store() + "/versions/9.19.0.56+cuda13\n");
  auto dashes = cli("exec -- /bin/sh -c 'exit 7'");
  EXPECT_EQ(dashes.exit_code, 7);
  auto theirs = cli("exec /bin/echo --json -q --version");
  EXPECT_EQ(theirs.out, "--json -q --version\n") << "options after COMMAND are COMMAND's";
  auto missing = cli("exec no-such-command-anywhere");
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_NE(missing.err.find("cannot run no-such-command-anywhere"), std::string::npos) << missing.err;
  write_text(tmp / "not-executable", "#!/bin/sh\necho hi\n");
  auto denied = cli("exec ./not-executable");
  EXPECT_EQ(denied.exit_code, 126) << denied.err;
  auto folder = cli("exec /tmp");
  EXPECT_EQ(folder.exit_code, 126) << folder.err;
  auto json = cli("--json exec no-such-command-anywhere");
  EXPECT_EQ(json.exit_code, 127);
  EXPECT_EQ(nlohmann::json::parse(json.out)["exit_code"], 127) << json.out;
}

TEST_F(Conventions, CacheCleanSaysWhatItRemovesAndDryRunKeepsIt) {
  write_text(store() + "/cache/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz", std::string(3000, 'x'));
  write_text(store() + "/cache/cudnn-linux-x86_64-9.14.0.64_cuda13-archive.tar.xz.part", std::string(10, 'x'));
  make_dirs(store() + "/cache/someone-elses");
  auto dry = cli("cache clean --dry-run");
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("Would remove 2 files (2.9 KiB)"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("(a partial download)"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("Kept " + store() + "/cache/someone-elses"), std::string::npos) << dry.out;
  EXPECT_TRUE(stdfs::exists(store() + "/cache/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"));
  auto real = cli("cache clean");
  EXPECT_EQ(real.exit_code, 0) << real.err;
  EXPECT_NE(real.out.find("Removed 2 files"), std::string::npos) << real.out;
  EXPECT_FALSE(stdfs::exists(store() + "/cache/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"));
  EXPECT_TRUE(stdfs::exists(store() + "/cache/someone-elses"));
  EXPECT_TRUE(stdfs::exists(store() + "/versions/9.19.0.56+cuda13/lib/libcudnn.so.9")) << "installed versions stay";
  EXPECT_NE(cli("cache clean").out.find("is empty; nothing to remove"), std::string::npos);

  auto nowhere = cli("cache clean", {{"CUDNNUP_HOME", tmp / "no-store"}});
  EXPECT_EQ(nowhere.exit_code, 0) << nowhere.err;
  EXPECT_FALSE(stdfs::exists(tmp / "no-store")) << "cleaning nothing creates nothing";
}

TEST_F(Conventions, VersionNamesTheCommitAndTheDataVersions) {
  std::ifstream rules(std::string(CUDNNUP_SOURCE_DIR) + "/data/rules.json");
  std::string rules_version = nlohmann::json::parse(rules)["data_version"];
  auto r = cli("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("cudnnup " CUDNNUP_VERSION " (commit ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("data: rules " + rules_version), std::string::npos) << r.out;
  auto git = sh("git -C " + sh_quote(CUDNNUP_SOURCE_DIR) + " rev-parse HEAD");
  if (git.exit_code == 0 && git.out.size() > 12) {
    EXPECT_NE(r.out.find(git.out.substr(0, 12)), std::string::npos) << "built from HEAD: " << r.out;
  }
  auto j = nlohmann::json::parse(cli("--version --json").out);
  EXPECT_EQ(j["version"], CUDNNUP_VERSION);
  EXPECT_EQ(j["data"]["rules"], rules_version);
}

TEST_F(Conventions, QuietListAndUseAndANoOpUseRecordsNothing) {
  auto use = cli("use -q 9.19");
  EXPECT_EQ(use.exit_code, 0);
  EXPECT_EQ(use.out, "");
  EXPECT_EQ(cli("list -q").out, "9.19.0.56+cuda13\n9.14.0.64+cuda13\n");
  auto again = cli("use 9.19");
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_NE(again.out.find("already the global default; nothing changed"), std::string::npos) << again.out;
  auto history = nlohmann::json::parse(cli("use --history --json").out);
  EXPECT_EQ(history["history"].size(), 1u) << history.dump(1);
  ASSERT_EQ(cli("use --local 9.14", {}, tmp / "proj").exit_code, 0);
  EXPECT_NE(cli("use --local 9.14", {}, tmp / "proj").out.find("already says 9.14"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(cli("use --history --json").out)["history"].size(), 2u);
}

TEST_F(Conventions, VerifyWithoutArgumentsVerifiesTheSelectedVersionAndSaysSo) {
  ASSERT_EQ(cli("use 9.19").exit_code, 0);
  ASSERT_EQ(cli("use --local 9.14", {}, tmp / "proj").exit_code, 0);
  auto pinned = cli("verify --json", {}, tmp / "proj");
  auto j = nlohmann::json::parse(pinned.out);
  EXPECT_EQ(j["chosen_by"], "selection");
  EXPECT_EQ(j["lib_dir"], store() + "/versions/9.14.0.64+cuda13/lib") << pinned.out;
  auto text = cli("verify", {}, tmp / "proj");
  EXPECT_EQ(text.out.rfind("Verifying cuDNN 9.14.0.64+cuda13, ", 0), 0u) << text.out;
  auto global = nlohmann::json::parse(cli("verify --json").out);
  EXPECT_EQ(global["lib_dir"], store() + "/versions/9.19.0.56+cuda13/lib");
  auto nothing = nlohmann::json::parse(cli("verify --json", {{"CUDNNUP_HOME", tmp / "empty-store"}}).out);
  EXPECT_TRUE(nothing["chosen_by"] == "default" || nothing["schema"] == "cudnnup.error/1") << nothing.dump(1);
  auto system = nlohmann::json::parse(cli("verify --json", {{"CUDNNUP_VERSION", "system"}}).out);
  EXPECT_EQ(system["chosen_by"], "default") << "system: no store version, the usual places";
  EXPECT_NE(system.value("chosen_because", "").find("system is selected"), std::string::npos) << system.dump(1);
  auto broken = cli("verify", {{"CUDNNUP_VERSION", "8.1"}});
  EXPECT_EQ(broken.exit_code, 2) << "a selection that does not resolve is an error, not another copy";
}

TEST_F(Conventions, DoctorShowsEveryPartOfTheChecklistEvenWhenEmpty) {
  auto r = cli("doctor --no-color");
  EXPECT_NE(r.out.find("\nWhat loads\n"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nFrameworks\n  none found in [0-9]+ Python environments?\n"))) << r.out;
}

// Printed commands follow the shell cudnnup was started from (a real bash, zsh or fish here),
// unless CUDNNUP_SHELL or --shell names one; an error's fix steps show it (a version that is not
// installed: its install command). A name cudnnup does not write for is a usage error.
TEST_F(Conventions, PrintedCommandsAreWrittenForTheShellCudnnupRunsIn) {
  const std::string args = "--json use 9.2+cuda13";
  auto shell_of = [](const ProcessResult& r) {
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    return j.is_discarded() ? std::string("(not JSON: ") + r.out + r.err + ")" : j["error"].value("fix_shell", std::string("(none)"));
  };
  ProcessOptions o;
  o.timeout_ms = 60000;
  o.env = std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}, {"HOME", tmp / "home"}, {"CUDNNUP_HOME", store()},
                                             {"CUDNNUP", CUDNNUP_BINARY}, {"SHELL", "/bin/bash"}};
  make_dirs(tmp / "home/.config/fish");
  for (const auto& [shell, argv] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"bash", {"/bin/bash", "--norc", "-c", "\"$CUDNNUP\" " + args + "; true"}},
           {"zsh", {"/usr/bin/zsh", "-f", "-c", "\"$CUDNNUP\" " + args + "; true"}},
           {"fish", {"/usr/bin/fish", "--no-config", "-c", "$CUDNNUP " + args + "; true"}}}) {
    if (!stdfs::exists(argv[0])) continue;
    auto r = run_process(argv, o);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(shell_of(*r), shell) << "started from " << shell;
  }
  EXPECT_EQ(shell_of(cli(args, {{"CUDNNUP_SHELL", "pwsh"}})), "pwsh");
  EXPECT_EQ(shell_of(cli("--shell cmd " + args, {{"CUDNNUP_SHELL", "pwsh"}})), "cmd") << "--shell wins";
  auto j = nlohmann::json::parse(cli(args, {{"CUDNNUP_SHELL", "fish"}}).out);
  EXPECT_EQ(j["error"]["fix_commands"], nlohmann::json::array({{"cudnnup", "install", "9.2", "--cuda", "13"}}));
  auto bad = cli("use 9.19", {{"CUDNNUP_SHELL", "tcsh"}});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("CUDNNUP_SHELL=tcsh"), std::string::npos) << bad.err;
  auto text = cli("use 9.2+cuda13", {{"CUDNNUP_SHELL", "bash"}});
  EXPECT_NE(text.err.find("\n  cudnnup install 9.2 --cuda 13\n"), std::string::npos) << text.err;
}

}  // namespace
}  // namespace cudnnup
