// Version switching as a user's shell sees it: real bash, zsh and fish sessions load the
// `cudnnup init` hook and walk into a pinned directory and out again, switch with `cudnnup use
// system`, `use --unset` and `use --undo`, and change variables by hand. A helper script prints
// the five variables the hook manages as a child process sees them ("NAME=[value]" or "NAME
// unset"), before, inside and after; the user's own values are chosen to be easy to get wrong:
// unset, empty (which differs from unset to glibc), and values with spaces, colons and empty
// entries, which must come back byte for byte. Non-interactive sessions (`bash --norc -c`,
// `zsh -f -c`, `fish --no-config -c`) run the bash hook by hand after each cd, as its prompt would;
// interactive ones under script(1) run it from the prompt (bash's PROMPT_COMMAND, zsh's precmd).
// zsh (chpwd) and fish (a PWD event) run it on every cd, in scripts too.
// Each session has its own HOME, XDG dirs and store (CUDNNUP_HOME) under a temporary directory.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "platform/process.h"
#include "support/fixture_libs.h"

namespace cudnnup {
namespace {

using namespace cudnnup::testing;

const char* const kV919 = "9.19.0.56+cuda13";
const char* const kV91 = "9.1.0.70+cuda12";

// The variables `cudnnup env` sets and the hook saves (shell/shell_env.h environment_variable_names).
const std::vector<std::string> kVars = {"LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "CUDNN_PATH", "CUDNN_HOME"};

// Prints each variable as a child process gets it, then a "--" line that ends the snapshot.
const char* const kDumpScript =
    "#!/bin/sh\n"
    "for v in LD_LIBRARY_PATH LIBRARY_PATH CPATH CUDNN_PATH CUDNN_HOME; do\n"
    "  if val=$(printenv \"$v\"); then printf '%s=[%s]\\n' \"$v\" \"$val\"; else printf '%s unset\\n' \"$v\"; fi\n"
    "done\n"
    "echo --\n";

struct ShellUnderTest {
  std::string name;
  std::vector<std::string> argv;  // up to and including -c
};

const std::vector<ShellUnderTest>& shells() {
  static const std::vector<ShellUnderTest> all = {{"bash", {"/bin/bash", "--norc", "--noprofile", "-c"}},
                                                  {"zsh", {"/usr/bin/zsh", "-f", "-c"}},
                                                  {"fish", {"/usr/bin/fish", "--no-config", "-c"}}};
  return all;
}

using Values = std::map<std::string, std::optional<std::string>>;

class ShellSwitching : public ::testing::Test {
 public:
  void SetUp() override {
    add_version(kV919, "v9.19.0", 9, 19, 0);
    add_version(kV91, "v9.1.0", 9, 1, 0);
    install_stub_set("v9.1.0", tmp / "other/lib", /*versioned_names=*/true);  // the machine's own copy
    write_text(tmp / "proj/.cudnn-version", "9.1\n");
    make_dirs(tmp / "proj/sub");
    write_text(tmp / "proj/inner/.cudnn-version", "9.19\n");
    write_text(tmp / "mine/.cudnn-version", "system\n");
    // What fish makes in $HOME when it first starts.
    make_dirs(tmp / "home/.config/fish");
    make_dirs(tmp / "home/.local/share/fish");
    write_text(tmp / "dump.sh", kDumpScript);
    ::chmod((tmp / "dump.sh").c_str(), 0755);
  }

  void add_version(const std::string& id, const std::string& variant, int major, int minor, int patch) {
    std::string dir = store() + "/versions/" + id;
    install_stub_set(variant, dir + "/lib", /*versioned_names=*/true);
    write_text(dir + "/include/cudnn_version.h", cudnn_version_header(major, minor, patch));
  }
  std::string store() const { return tmp / "store"; }
  std::string version_dir(const std::string& id) const { return store() + "/versions/" + id; }

  // The user's own values before any hook.
  Values own() const {
    return {{"LD_LIBRARY_PATH", "/opt/my libs:" + tmp / "other/lib" + "::/y:"},
            {"LIBRARY_PATH", ""},
            {"CPATH", std::nullopt},
            {"CUDNN_PATH", "/my cudnn:path"},
            {"CUDNN_HOME", std::nullopt}};
  }

  static std::string snapshot(const Values& values) {
    std::string out;
    for (const auto& v : kVars) {
      auto it = values.find(v);
      out += it != values.end() && it->second ? v + "=[" + *it->second + "]\n" : v + " unset\n";
    }
    return out;
  }

  std::map<std::string, std::string> session_env(const Values& values) const {
    std::map<std::string, std::string> env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
                                              {"HOME", tmp / "home"},
                                              {"XDG_CONFIG_HOME", tmp / "home/.config"},
                                              {"XDG_DATA_HOME", tmp / "home/.local/share"},
                                              {"LANG", "C.UTF-8"},
                                              {"CUDNNUP_HOME", store()},
                                              {"CUDNNUP", CUDNNUP_BINARY},
                                              {"DUMP", tmp / "dump.sh"}};
    for (const auto& [k, v] : values) {
      if (v) env[k] = *v;
    }
    return env;
  }

  // One session: `steps` in the shell's own syntax (see step()), from the test's directory.
  ProcessResult run(const ShellUnderTest& sh, const std::vector<std::string>& steps, Values values,
                    const std::map<std::string, std::string>& extra = {}) {
    std::string script = "cd '" + tmp.path() + "'\n";
    for (const auto& s : steps) script += step(sh.name, s) + "\n";
    auto env = session_env(values);
    for (const auto& [k, v] : extra) env[k] = v;
    ProcessOptions options;
    options.timeout_ms = 60000;
    options.env = env;
    std::vector<std::string> argv = sh.argv;
    argv.push_back(script);
    auto r = run_process(argv, options);
    EXPECT_TRUE(r.ok());
    return r.value_or(ProcessResult{});
  }

  // The steps, written once for every shell: "dump", "load" (the hook), "cd DIR" (and, in bash,
  // what its prompt would do: run the hook), "set NAME VALUE" (VALUE may use $NAME), or a command
  // line the three shells read alike.
  static std::string step(const std::string& shell, const std::string& s) {
    if (s == "dump") return shell == "fish" ? "$DUMP" : "\"$DUMP\"";
    if (s == "load") return shell == "fish" ? "$CUDNNUP init fish | source" : "eval \"$(\"$CUDNNUP\" init " + shell + ")\"";
    if (s.rfind("cd ", 0) == 0) return shell == "bash" ? s + " && _cudnnup_hook" : s;
    if (s.rfind("set ", 0) == 0) {
      std::string rest = s.substr(4);
      std::string name = rest.substr(0, rest.find(' '));
      std::string value = rest.substr(rest.find(' ') + 1);
      return shell == "fish" ? "set -gx " + name + " \"" + value + "\"" : "export " + name + "=\"" + value + "\"";
    }
    return s;
  }

  static std::vector<std::string> snapshots(const std::string& out) {
    std::vector<std::string> all;
    std::string current;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
      if (line == "--") {
        all.push_back(current);
        current.clear();
      } else {
        current += line + "\n";
      }
    }
    return all;
  }

  // The value of `name` in one snapshot, nullopt when unset there.
  static std::optional<std::string> value_in(const std::string& snap, const std::string& name) {
    std::istringstream in(snap);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(name + "=[", 0) == 0) return line.substr(name.size() + 2, line.size() - name.size() - 3);
    }
    return std::nullopt;
  }

  // A snapshot where `id` applies: the variables name its dirs first, and no other copy.
  void expect_applied(const std::string& snap, const std::string& id, const std::string& where) {
    SCOPED_TRACE(where);
    auto ld = value_in(snap, "LD_LIBRARY_PATH");
    ASSERT_TRUE(ld) << snap;
    EXPECT_EQ(ld->rfind(version_dir(id) + "/lib:", 0), 0u) << *ld;
    EXPECT_EQ(ld->find(tmp / "other/lib"), std::string::npos) << "the other copy is taken out: " << *ld;
    for (const std::string& other : {std::string(kV919), std::string(kV91)}) {
      if (other != id) {
        EXPECT_EQ(ld->find(version_dir(other)), std::string::npos) << *ld;
      }
    }
    EXPECT_NE(ld->find("/opt/my libs"), std::string::npos) << "the user's other entries stay: " << *ld;
    EXPECT_EQ(value_in(snap, "CUDNN_PATH"), version_dir(id)) << snap;
    EXPECT_EQ(value_in(snap, "CUDNN_HOME"), version_dir(id)) << snap;
    EXPECT_EQ(value_in(snap, "CPATH").value_or("").rfind(version_dir(id) + "/include", 0), 0u) << snap;
  }

  ProcessResult cli(const std::string& args) {
    ProcessOptions options;
    options.env = session_env({});
    auto r = run_process({"/bin/sh", "-c", "cd '" + tmp.path() + "' && \"$CUDNNUP\" " + args}, options);
    EXPECT_TRUE(r.ok());
    return r.value_or(ProcessResult{});
  }

  TempDir tmp;
};

TEST_F(ShellSwitching, LeavingAPinnedDirectoryPutsTheUsersOwnValuesBackExactly) {
  for (const auto& sh : shells()) {
    SCOPED_TRACE(sh.name);
    auto r = run(sh, {"dump", "load", "dump", "cd proj/sub", "dump", "cd ../inner", "dump", "cd ../..", "dump"}, own());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto snaps = snapshots(r.out);
    ASSERT_EQ(snaps.size(), 5u) << r.out << r.err;
    EXPECT_EQ(snaps[0], snapshot(own())) << "what the session started with";
    EXPECT_EQ(snaps[1], snapshot(own())) << "no version applies here: loading the hook changes nothing";
    expect_applied(snaps[2], kV91, "in proj/sub, pinned to 9.1");
    // From one pin to the next the hook starts from the user's values, not from 9.1's.
    expect_applied(snaps[3], kV919, "in proj/inner, pinned to 9.19");
    EXPECT_EQ(snaps[4], snapshot(own())) << "back out: unset stays unset, empty stays empty, every byte as before";
    EXPECT_EQ(r.err, "cudnnup: cuDNN " + std::string(kV91) + " (from " + tmp / "proj/.cudnn-version" + ")\n" +
                         "cudnnup: cuDNN " + kV919 + " (from " + tmp / "proj/inner/.cudnn-version" + ")\n" +
                         "cudnnup: cuDNN back to this machine's own copies\n")
        << "one line per change";
  }
}

TEST_F(ShellSwitching, UseSystemUnsetAndUndoSwitchAtOnceAndRestoreExactly) {
  ASSERT_EQ(cli("use 9.19").exit_code, 0);
  for (const auto& sh : shells()) {
    SCOPED_TRACE(sh.name);
    auto r = run(sh,
                 {"load", "dump",                              // 0: the global default
                  "cudnnup use system > /dev/null", "dump",    // 1: own
                  "cudnnup use 9.19 > /dev/null", "dump",      // 2: 9.19
                  "cudnnup use --unset > /dev/null", "dump",   // 3: own
                  "cudnnup use --undo > /dev/null", "dump",    // 4: 9.19 again
                  "cd mine", "dump",                           // 5: a pin that says system
                  "cd ../proj", "dump",                        // 6: 9.1
                  "cudnnup use --local system > /dev/null", "dump",  // 7: own
                  "cudnnup use --local --unset > /dev/null", "dump",  // 8: the global 9.19
                  "cudnnup use --local 9.1 > /dev/null", "cd ..", "dump"},  // 9: the global 9.19
                 own());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto snaps = snapshots(r.out);
    ASSERT_EQ(snaps.size(), 10u) << r.out << r.err;
    expect_applied(snaps[0], kV919, "at start, the global default");
    EXPECT_EQ(snaps[1], snapshot(own())) << "use system";
    expect_applied(snaps[2], kV919, "use 9.19");
    EXPECT_EQ(snaps[3], snapshot(own())) << "use --unset";
    expect_applied(snaps[4], kV919, "use --undo");
    EXPECT_EQ(snaps[5], snapshot(own())) << "a pin that says system";
    expect_applied(snaps[6], kV91, "proj");
    EXPECT_EQ(snaps[7], snapshot(own())) << "use --local system";
    expect_applied(snaps[8], kV919, "use --local --unset: the global default again");
    expect_applied(snaps[9], kV919, "back at the top");
  }
  // Every change logged, the no-ops none.
  auto history = nlohmann::json::parse(cli("--json use --history").out);
  EXPECT_EQ(history["history"].size(), 1u + 3 * 7) << "`use 9.19` first, then seven changes in each shell: " << history.dump(1);
}

TEST_F(ShellSwitching, EachChangeIsSaidOnceOnStderrUnlessQuiet) {
  ASSERT_EQ(cli("use 9.19").exit_code, 0);
  const std::vector<std::string> walk = {"load", "cd proj", "cd sub", "cd ../..", "cd mine", "cd ..", "cd plain"};
  make_dirs(tmp / "plain");
  const std::string global = "cudnnup: cuDNN " + std::string(kV919) + " (the global default)\n";
  for (const auto& sh : shells()) {
    SCOPED_TRACE(sh.name);
    auto r = run(sh, walk, own());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, global + "cudnnup: cuDNN " + kV91 + " (from " + tmp / "proj/.cudnn-version" + ")\n" +  // cd proj
                         global +  // cd sub: nothing; cd ../..
                         "cudnnup: cuDNN back to this machine's own copies (system, from " + tmp / "mine/.cudnn-version" +
                         ")\n" + global)  // cd ..; cd plain: nothing
        << "shell start, then one line per change and none when nothing changed";
    auto quiet = run(sh, walk, own(), {{"CUDNNUP_HOOK_QUIET", "1"}});
    ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
    EXPECT_EQ(quiet.err, "");
  }
}

// The rule for a variable changed by hand while a version applies: it is the user's own value
// from then on. The hook applies versions on top of it and puts it back, as the user set it,
// where no version applies; the variables not touched by hand come back as they were.
TEST_F(ShellSwitching, AVariableChangedByHandIsTheUsersOwnValueFromThenOn) {
  for (const auto& sh : shells()) {
    SCOPED_TRACE(sh.name);
    auto r = run(sh,
                 {"load", "cd proj", "set LD_LIBRARY_PATH /extra:$LD_LIBRARY_PATH", "set CUDNN_HOME /my home", "dump",
                  "cd sub", "dump", "cd ../..", "dump"},
                 own());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto snaps = snapshots(r.out);
    ASSERT_EQ(snaps.size(), 3u) << r.out << r.err;
    auto by_hand = value_in(snaps[0], "LD_LIBRARY_PATH");
    ASSERT_TRUE(by_hand);
    EXPECT_EQ(by_hand->rfind("/extra:" + version_dir(kV91) + "/lib:", 0), 0u) << *by_hand;
    // Still inside: the version applies on top of the hand-set values.
    auto inside = value_in(snaps[1], "LD_LIBRARY_PATH");
    EXPECT_EQ(inside, version_dir(kV91) + "/lib:/extra:/opt/my libs::/y:") << "9.1 once, first; the rest as set by hand";
    EXPECT_EQ(value_in(snaps[1], "CUDNN_HOME"), version_dir(kV91));
    Values after = own();
    after["LD_LIBRARY_PATH"] = *by_hand;
    after["CUDNN_HOME"] = "/my home";
    EXPECT_EQ(snaps[2], snapshot(after)) << "the hand-set values, and the others as the user had them";
  }
}

// The bash hook acts at the prompt, so a script that cd's gets nothing from it; `cudnnup exec`
// is the way for scripts. `exec --version system` takes the store's dirs out of what it inherited.
TEST_F(ShellSwitching, ScriptsUseExecAndBashScriptsGetNothingFromTheHook) {
  ProcessOptions options;
  options.env = session_env(own());
  auto r = run_process({"/bin/bash", "--norc", "--noprofile", "-c",
                        "cd '" + tmp.path() + "' && eval \"$(\"$CUDNNUP\" init bash)\" && cd proj/sub && \"$DUMP\" && "
                        "\"$CUDNNUP\" exec \"$DUMP\" && _cudnnup_hook && \"$DUMP\" && \"$CUDNNUP\" exec --version system \"$DUMP\""},
                       options);
  ASSERT_TRUE(r.ok());
  auto snaps = snapshots(r->out);
  ASSERT_EQ(snaps.size(), 4u) << r->out << r->err;
  EXPECT_EQ(snaps[0], snapshot(own())) << "bash's hook waits for a prompt, which a script never shows";
  expect_applied(snaps[1], kV91, "cudnnup exec in proj/sub");
  expect_applied(snaps[2], kV91, "the hook run as the prompt would");
  auto ld = value_in(snaps[3], "LD_LIBRARY_PATH");
  ASSERT_TRUE(ld) << snaps[3];
  EXPECT_EQ(*ld, "/opt/my libs::/y:") << "the store's dir taken out, nothing else";
  EXPECT_EQ(value_in(snaps[3], "CUDNN_PATH"), std::nullopt) << "it named a store version";
  EXPECT_EQ(value_in(snaps[3], "CUDNN_HOME"), std::nullopt);
  EXPECT_EQ(value_in(snaps[3], "CPATH"), std::nullopt) << "only the store's include dir was in it: unset, not empty";
}

// Interactive shells on a pseudo-terminal (script(1)), where the hook runs from the prompt:
// bash's PROMPT_COMMAND (next to one of the user's own, which keeps running), zsh's precmd and
// chpwd, fish's PWD event. The lines are typed at the prompt one by one.
TEST_F(ShellSwitching, InteractiveSessionsSwitchAtThePromptAndRestoreOnLeaving) {
  struct Interactive {
    std::string shell, command, setup, load;
  };
  const std::vector<Interactive> sessions = {
      {"bash", "bash --norc --noprofile -i", "unset HISTFILE\nPROMPT_COMMAND='_mine=$((_mine+1))'\n",
       "eval \"$(\"$CUDNNUP\" init bash)\"\n"},
      {"zsh", "zsh -f -i", "", "eval \"$(\"$CUDNNUP\" init zsh)\"\n"},
      {"fish", "fish --no-config -i", "set -g fish_history ''\n", "$CUDNNUP init fish | source\n"}};
  for (const auto& s : sessions) {
    SCOPED_TRACE(s.shell);
    std::string out = tmp / (s.shell + ".out");
    std::string input = tmp / (s.shell + ".in");
    write_text(input, s.setup + "\"$DUMP\" > \"$OUT.0\"\n" + s.load +
                          "cd proj/sub\n"
                          "\"$DUMP\" > \"$OUT.1\"\n"
                          "cd ../..\n"
                          "\"$DUMP\" > \"$OUT.2\"\n" +
                          (s.shell == "bash" ? "echo \"${_mine:-0}\" > \"$OUT.mine\"\n" : "") + "exit\n");
    auto env = session_env(own());
    env["OUT"] = out;
    env["IN"] = input;
    env["PS1"] = "$ ";
    ProcessOptions options;
    options.timeout_ms = 60000;
    options.env = env;
    auto r = run_process({"/bin/sh", "-c", "cd '" + tmp.path() + "' && script -q -f -e -c '" + s.command +
                                               "' /dev/null < \"$IN\" > /dev/null 2>&1"},
                         options);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->exit_code, 0) << r->err;
    auto read = [](const std::string& path) {
      std::ifstream f(path);
      std::stringstream text;
      text << f.rdbuf();
      return text.str();
    };
    EXPECT_EQ(read(out + ".0"), snapshot(own()) + "--\n");
    auto inside = snapshots(read(out + ".1"));
    ASSERT_EQ(inside.size(), 1u);
    expect_applied(inside[0], kV91, "at the prompt in proj/sub");
    EXPECT_EQ(read(out + ".2"), snapshot(own()) + "--\n") << "back out at the prompt: every byte as before";
    if (s.shell == "bash") {
      EXPECT_NE(read(out + ".mine"), "0\n") << "the user's own PROMPT_COMMAND still runs";
    }
  }
}

}  // namespace
}  // namespace cudnnup
