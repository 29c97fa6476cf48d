// Shell code is safe by construction (shell/shell_quote.h): hostile directory names in a
// `.cudnn-version` pin's path, on LD_LIBRARY_PATH and in the store path (CUDNNUP_HOME) go through
// real bash, zsh and fish sessions that load `cudnnup init <shell>` and cd into them, and through
// `eval "$(cudnnup env)"`. The injected commands create a canary file, which must never appear,
// and after every run each file under the test's directory (the store, the pins, the shells'
// $HOME) is byte for byte as before: env, current and the hook only read;
// ordinary names (spaces, quotes, $, backslashes, bytes that are not UTF-8) must come out in the
// environment exactly (except where a backslash in the pin or store path keeps it from being
// found at all: base/paths.h treats a backslash as a separator on every OS). A path with a line
// break cannot be written safely: env refuses it (exit 2, naming it) and the hook changes nothing.
// One case runs an interactive bash and zsh under script(1), where the hook runs from the prompt.
// PowerShell and cmd are not installed on the Debian machines that build cudnnup: their escapers
// are unit-tested (unit/shell/shell_quote_test.cc).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <functional>

#include "platform/process.h"
#include "store/selection.h"
#include "support/fixture_libs.h"
#include "support/tree_snapshot.h"

namespace cudnnup {
namespace {

using namespace cudnnup::testing;

const char* const kId = "9.19.0.56+cuda13";

// Names that break out of a badly quoted or commented line. Each runs `touch CANARY` if it can.
const std::vector<std::string>& hostile_names() {
  static const std::vector<std::string> names = {
      "nl\ntouch CANARY\n#",
      "cr\rtouch CANARY",
      "sub $(touch CANARY) tick `touch CANARY`",
      "semi;touch CANARY; & touch CANARY &",
      "quotes ' \" '\\'' \\' ; touch CANARY; echo '",
      "pct %PATH% !PATH! ^& dollar $HOME ${IFS}",
      "ctl \x1b]0;title\x07 \x01\x7f bytes \xff\xfe\xc3",
      "my project dir",
  };
  return names;
}

bool has_line_break(const std::string& s) { return s.find_first_of("\r\n") != std::string::npos; }

class HostileShell : public ::testing::Test {
 public:
  void SetUp() override {
    add_version(store());
    // What fish makes in $HOME when it first starts: made here, so every run leaves $HOME as it was.
    make_dirs(tmp / "home/.config/fish");
    make_dirs(tmp / "home/.local/share/fish");
  }

  void add_version(const std::string& store_dir) {
    std::string dir = store_dir + "/versions/" + kId;
    install_stub_set("v9.19.0", dir + "/lib", /*versioned_names=*/true);
    write_text(dir + "/include/cudnn_version.h", cudnn_version_header(9, 19, 0));
  }
  std::string store() const { return tmp / "store"; }

  std::map<std::string, std::string> base_env() const {
    // A UTF-8 locale: in the C locale fish reads environment bytes as Latin-1 and passes
    // "\xff" on as "\xc3\xbf", which would change the paths before cudnnup sees them.
    return {{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"HOME", tmp / "home"}, {"CUDNNUP_HOME", store()},
            {"CUDNNUP", CUDNNUP_BINARY}, {"LANG", "C.UTF-8"}};
  }

  // Runs `script` in `shell` with `extra` in the environment; the script finds hostile paths in
  // environment variables, so it never has to quote them itself. Afterwards no injected command
  // has run and nothing under the test's directory changed, save `made` (path relative to it ->
  // contents): the files the script writes itself.
  ProcessResult run(const std::string& shell, const std::string& script, std::map<std::string, std::string> extra,
                    const std::map<std::string, std::string>& made = {}) {
    auto env = base_env();
    for (auto& [k, v] : extra) env[k] = v;
    ProcessOptions options;
    options.timeout_ms = 30000;
    options.max_output_bytes = 1 << 20;
    options.env = env;
    auto expected = disk_tree(tmp.path());
    for (const auto& [path, contents] : made) expected[path] = "file:" + contents;
    auto r = run_process({shell, "-c", script}, options);
    EXPECT_TRUE(r.ok());
    expect_no_canary();
    EXPECT_EQ(tree_changes(expected, disk_tree(tmp.path())), "") << "files under the test's directory changed";
    return r.value_or(ProcessResult{});
  }

  // No file called CANARY anywhere under the test's directory (the shells' working directories
  // are all in it).
  void expect_no_canary() {
    for (const auto& e : std::filesystem::recursive_directory_iterator(tmp.path())) {
      EXPECT_NE(e.path().filename().string(), "CANARY") << "the injected command ran (" << e.path() << ")";
    }
  }

  // The hook script of each shell: load `init`, enter $HOSTILE, let the hook run, print a variable.
  static std::string hook_script(const std::string& shell, const std::string& var) {
    if (shell == "fish") {
      // `source` returns the status of the hook's first run (where the test starts, nothing is
      // selected), so the next steps do not depend on it.
      return "$CUDNNUP init fish | source; cd $HOSTILE; and printenv " + var + "; or true";
    }
    return "eval \"$(\"$CUDNNUP\" init " + shell + ")\" && cd \"$HOSTILE\" && _cudnnup_hook; printenv " + var + " || true";
  }
  static std::string env_script(const std::string& shell, const std::string& var) {
    if (shell == "fish") return "cd $HOSTILE; and $CUDNNUP env --shell fish | source; and printenv " + var + "; or true";
    return "cd \"$HOSTILE\" && eval \"$(\"$CUDNNUP\" env --shell " + shell + ")\"; printenv " + var + " || true";
  }

  // Every shell through its hook; bash and fish (two different escapers) also through `env`.
  struct Mode {
    std::string shell, path;
    bool hook;
  };
  const std::vector<Mode> modes = {{"bash", "/bin/bash", true}, {"zsh", "/usr/bin/zsh", true}, {"fish", "/usr/bin/fish", true},
                                   {"bash", "/bin/bash", false}, {"fish", "/usr/bin/fish", false}};
  TempDir tmp;
};

TEST_F(HostileShell, PinDirectoryNamesNeverRunAndThePinStillApplies) {
  const std::string expect = store() + "/versions/" + kId + "\n";
  int n = 0;
  for (const auto& name : hostile_names()) {
    std::string dir = tmp / ("pins/" + std::to_string(n++) + "/" + name);
    make_dirs(dir);
    write_text(dir + "/.cudnn-version", "9.19\n");
    // base/paths.h reads '\\' as a separator on every OS, so a pin below a directory whose name
    // holds one is not found (nothing is selected, nothing runs): only the canary is checked there.
    const bool backslash = name.find('\\') != std::string::npos;
    for (const auto& m : modes) {
      SCOPED_TRACE(m.shell + (m.hook ? " hook in " : " env in ") + name);
      auto r = run(m.path, m.hook ? hook_script(m.shell, "CUDNN_PATH") : env_script(m.shell, "CUDNN_PATH"), {{"HOSTILE", dir}});
      if (!backslash) {
        EXPECT_EQ(r.out, expect) << r.err;
      }
    }
  }
}

TEST_F(HostileShell, LdLibraryPathEntriesAreQuotedOrRefused) {
  int n = 0;
  for (const auto& name : hostile_names()) {
    // One entry that holds only another cuDNN (removed, and named in a comment) and one that
    // holds something else (kept, so it is part of the value written).
    std::string base = tmp / ("ld/" + std::to_string(n++));
    std::string other = base + "/" + name + " cudnn";
    std::string kept = base + "/" + name + " libs";
    install_stub_set("v9.1.0", other);
    write_text(kept + "/libfoo.so.1", "not a library");
    std::string ld = other + ":" + kept;
    for (const auto& m : modes) {
      SCOPED_TRACE(m.shell + (m.hook ? " hook, " : " env, ") + name);
      auto r = run(m.path, m.hook ? hook_script(m.shell, "LD_LIBRARY_PATH") : env_script(m.shell, "LD_LIBRARY_PATH"),
                   {{"HOSTILE", tmp.path()}, {"LD_LIBRARY_PATH", ld}, {"CUDNNUP_VERSION", "9.19"}});
      if (has_line_break(name)) {
        // Refused: the environment stays as it was, and env says which path.
        EXPECT_EQ(r.out, ld + "\n");
        EXPECT_NE(r.err.find("line break"), std::string::npos) << r.err;
      } else {
        EXPECT_EQ(r.out, store() + "/versions/" + kId + "/lib:" + kept + "\n") << r.err;
      }
    }
  }
}

TEST_F(HostileShell, StorePathsAreQuotedOrRefused) {
  int n = 0;
  for (const auto& name : hostile_names()) {
    std::string store_dir = tmp / ("stores/" + std::to_string(n++) + "/" + name);
    add_version(store_dir);
    const bool backslash = name.find('\\') != std::string::npos;  // not found: see the pin test
    for (const auto& m : modes) {
      SCOPED_TRACE(m.shell + (m.hook ? " hook, store " : " env, store ") + name);
      auto r = run(m.path, m.hook ? hook_script(m.shell, "CUDNN_HOME") : env_script(m.shell, "CUDNN_HOME"),
                   {{"HOSTILE", tmp.path()}, {"CUDNNUP_HOME", store_dir}, {"CUDNNUP_VERSION", "9.19"}});
      if (has_line_break(name)) {
        EXPECT_EQ(r.out, "");
        EXPECT_NE(r.err.find("line break"), std::string::npos) << r.err;
      } else if (!backslash) {
        EXPECT_EQ(r.out, store_dir + "/versions/" + kId + "\n") << r.err;
      }
    }
  }
}

// A pin file comes with a cloned repository: a FIFO must not hang `current` or the prompt, a link
// to another file must not get that file's first line printed, and bytes in it never reach the
// terminal raw (issue: a FIFO hung every prompt, a link to /etc/shadow printed its first line).
TEST_F(HostileShell, PinFilesThatAreNotPlainPinsAreRefusedWithoutEchoingThem) {
  std::string secret = tmp / "secret.txt";
  write_text(secret, "root:$6$SECRETHASH:19000:0:99999:7:::\n");
  struct Case {
    std::string name;
    std::function<void(const std::string&)> make;
  };
  const std::vector<Case> cases = {
      {"fifo", [](const std::string& pin) { ASSERT_EQ(::mkfifo(pin.c_str(), 0600), 0); }},
      {"link to another file", [&](const std::string& pin) { std::filesystem::create_symlink(secret, pin); }},
      {"link to a device", [](const std::string& pin) { std::filesystem::create_symlink("/dev/zero", pin); }},
      {"directory", [](const std::string& pin) { make_dirs(pin); }},
      {"escape sequences", [](const std::string& pin) { write_text(pin, "\x1b]0;owned\x07\x1b[2J9.19\n"); }},
      {"oversized", [](const std::string& pin) { write_text(pin, std::string(kMaxPinFileBytes + 1, '9')); }},
  };
  int n = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::string dir = tmp / ("badpins/" + std::to_string(n++));
    make_dirs(dir);
    c.make(dir + "/.cudnn-version");
    // run() waits at most 30 s: a hang fails the test instead of blocking the suite.
    auto current = run("/bin/bash", "cd \"$HOSTILE\" && \"$CUDNNUP\" current", {{"HOSTILE", dir}});
    EXPECT_EQ(current.exit_code, 2) << current.describe_failure() << "\n" << current.err;
    EXPECT_NE(current.err.find(".cudnn-version"), std::string::npos) << "the message names the pin file: " << current.err;
    EXPECT_EQ(current.err.find("SECRETHASH"), std::string::npos) << current.err;
    EXPECT_EQ(current.err.find('\x1b'), std::string::npos) << "no raw escape byte on the terminal";
    EXPECT_EQ(current.out.find('\x1b'), std::string::npos);
    // Under the hook the prompt comes back, and the environment is left alone.
    auto hook = run("/bin/bash", hook_script("bash", "CUDNN_PATH"), {{"HOSTILE", dir}});
    EXPECT_TRUE(hook.exited_normally()) << hook.describe_failure();
    EXPECT_EQ(hook.out, "");
    EXPECT_EQ(hook.err.find("SECRETHASH"), std::string::npos) << hook.err;
  }
}

TEST_F(HostileShell, InteractiveSessionsRunTheHookFromThePrompt) {
  std::string dir = tmp / "proj/nl\ntouch CANARY\n#$(touch CANARY)";
  make_dirs(dir);
  write_text(dir + "/.cudnn-version", "9.19\n");
  for (const auto& [shell, command] : std::vector<std::pair<std::string, std::string>>{
           {"bash", "bash --norc --noprofile -i"}, {"zsh", "zsh -f -i"}}) {
    SCOPED_TRACE(shell);
    std::string out = tmp / (shell + ".out");
    std::string input = tmp / (shell + ".in");
    // Typed at the prompt: the hook runs before each new prompt, after the cd. Without HISTFILE
    // bash keeps no history file in $HOME, so the one file the session writes is $OUT: the
    // variable the hook set.
    write_text(input, "unset HISTFILE\neval \"$(\"$CUDNNUP\" init " + shell + ")\"\ncd \"$HOSTILE\"\n"
                      "printenv CUDNN_PATH > \"$OUT\"\nexit\n");
    auto r = run("/bin/sh", "script -q -e -c '" + command + "' /dev/null < \"$IN\" > /dev/null 2>&1",
                 {{"HOSTILE", dir}, {"OUT", out}, {"IN", input}}, {{shell + ".out", store() + "/versions/" + kId + "\n"}});
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
}

}  // namespace
}  // namespace cudnnup
