// `cudnnup completions SHELL` driven through each shell's real completion machinery: bash
// (`complete -p`, then the completion function called with COMP_WORDS/COMP_CWORD as readline
// would), fish (`complete -C`), zsh (compinit with the generated _cudnnup first in $fpath, in a
// `zsh -f -i` on a pseudo-terminal, a TAB typed: tests/cli/zsh_complete.zsh). PowerShell is not in
// Debian: its script is compared with a golden file (tests/unit/app/cli_definition_test.cc).
#include <gtest/gtest.h>

#include <filesystem>

#include "platform/process.h"
#include "support/fixture_libs.h"

namespace cudnnup {
namespace {

using namespace cudnnup::testing;

class Completions : public ::testing::Test {
 protected:
  void SetUp() override {
    make_dirs(tmp / "bin");
    make_symlink(CUDNNUP_BINARY, tmp / "bin/cudnnup");
    make_dirs(tmp / "home");
    make_dirs(tmp / "files/some-dir");
    write_text(tmp / "files/rules-a.json", "{}");
    write_text(tmp / "bin/zz-unique-tool", "#!/bin/sh\n");
    std::filesystem::permissions(tmp / "bin/zz-unique-tool", std::filesystem::perms::owner_all);
  }
  std::map<std::string, std::string> env() const {
    return {{"PATH", tmp / "bin" + ":/usr/bin:/bin"}, {"HOME", tmp / "home"}, {"TERM", "dumb"}, {"NO_COLOR", "1"}};
  }
  ProcessResult run(const std::vector<std::string>& argv, int timeout_ms = 30000) {
    ProcessOptions o;
    o.timeout_ms = timeout_ms;
    o.env = env();
    auto r = run_process(argv, o);
    EXPECT_TRUE(r.ok());
    return r.value_or(ProcessResult{});
  }
  std::string script(const std::string& shell) {
    auto r = run({CUDNNUP_BINARY, "completions", shell});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }
  // Completes the words in bash: the last one is the word under the cursor.
  std::string bash(const std::string& words) {
    write_text(tmp / "complete.bash", script("bash"));
    std::string s = "source '" + tmp / "complete.bash" + "'\n"
                    "cd '" + tmp / "files" + "'\n"
                    "COMP_WORDS=(" + words + "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
                    "COMP_LINE=\"${COMP_WORDS[*]}\"; COMP_POINT=${#COMP_LINE}\n"
                    "_cudnnup; printf '%s\\n' \"${COMPREPLY[@]}\"\n";
    auto r = run({"/bin/bash", "--norc", "--noprofile", "-c", s});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }
  std::string fish(const std::string& line) {
    write_text(tmp / "cudnnup.fish", script("fish"));
    auto r = run({"/usr/bin/fish", "--no-config", "-c",
                  "source '" + tmp / "cudnnup.fish" + "'; cd '" + tmp / "files" + "'; complete -C '" + line + "'"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }
  // What the terminal shows once `pattern` appears after typing `line` and a TAB.
  ProcessResult zsh(const std::string& line, const std::string& pattern) {
    write_text(tmp / "zfunc/_cudnnup", script("zsh"));
    return run({"/usr/bin/zsh", "-f", std::string(CUDNNUP_SOURCE_DIR) + "/tests/cli/zsh_complete.zsh", tmp / "zfunc", line, pattern},
               20000);
  }
  TempDir tmp;
};

TEST_F(Completions, BashRegistersAFunctionThatCompletesCommandsOptionsAndValues) {
  ASSERT_TRUE(std::filesystem::exists("/bin/bash"));
  write_text(tmp / "complete.bash", script("bash"));
  auto reg = run({"/bin/bash", "--norc", "--noprofile", "-c", "source '" + tmp / "complete.bash" + "' && complete -p cudnnup"});
  EXPECT_EQ(reg.out, "complete -F _cudnnup cudnnup\n") << reg.err;

  EXPECT_EQ(bash("cudnnup ins"), "install\n");
  EXPECT_EQ(bash("cudnnup un"), "uninstall\n");
  EXPECT_EQ(bash("cudnnup doctor --probe-"), "--probe-frameworks\n--probe-timeout\n");
  EXPECT_EQ(bash("cudnnup --format ''"), "text\njson\nprometheus\nnfd\nhtml\n");
  EXPECT_EQ(bash("cudnnup doctor --color = al"), "always\n") << "--color=al, split at '=' as bash does";
  EXPECT_EQ(bash("cudnnup cache ''"), "clean\n");
  EXPECT_EQ(bash("cudnnup cache clean --dr"), "--dry-run\n");
  EXPECT_EQ(bash("cudnnup --db rules.json doc"), "doctor\n") << "an option's value is not a command";
  EXPECT_EQ(bash("cudnnup init z"), "zsh\n");
  EXPECT_EQ(bash("cudnnup doctor --db rules-"), "rules-a.json\n") << "a FILE option completes files";
  EXPECT_EQ(bash("cudnnup link --into so"), "some-dir\n") << "a DIR option completes folders";
  EXPECT_EQ(bash("cudnnup exec zz-uni"), "zz-unique-tool\n") << "exec completes a command";
  EXPECT_EQ(bash("cudnnup exec zz-unique-tool --jso"), "\n") << "after exec's command its words are the command's";
}

TEST_F(Completions, FishCompletesCommandsWithTheirPurposeAndOptionValues) {
  ASSERT_TRUE(std::filesystem::exists("/usr/bin/fish")) << "run scripts/install-deps.sh";
  std::string ins = fish("cudnnup ins");
  EXPECT_EQ(ins.rfind("install\tInstall cuDNN", 0), 0u) << ins;
  EXPECT_EQ(ins.find("uninstall"), std::string::npos) << ins;
  std::string opts = fish("cudnnup doctor --probe-");
  EXPECT_NE(opts.find("--probe-frameworks"), std::string::npos) << opts;
  EXPECT_NE(opts.find("--probe-timeout"), std::string::npos) << opts;
  EXPECT_EQ(opts.find("--deep"), std::string::npos) << opts;
  std::string formats = fish("cudnnup list --format ");
  EXPECT_NE(formats.find("json"), std::string::npos) << formats;
  EXPECT_NE(formats.find("text"), std::string::npos) << formats;
  EXPECT_NE(fish("cudnnup cache ").find("clean"), std::string::npos);
  EXPECT_EQ(fish("cudnnup cache ").find("doctor"), std::string::npos) << "only the commands under cache";
  EXPECT_NE(fish("cudnnup completions p").find("powershell"), std::string::npos);
  EXPECT_NE(fish("cudnnup archive-info rules-").find("rules-a.json"), std::string::npos) << "a FILE positional";
}

TEST_F(Completions, ZshCompletesThroughCompinitInAnInteractiveShell) {
  ASSERT_TRUE(std::filesystem::exists("/usr/bin/zsh")) << "run scripts/install-deps.sh";
  auto one = zsh("cudnnup ins", "install ");
  EXPECT_EQ(one.exit_code, 0) << one.out << one.err;
  EXPECT_NE(one.out.find("cudnnup install "), std::string::npos) << one.out;

  auto opt = zsh("cudnnup doctor --probe-f", "frameworks");
  EXPECT_EQ(opt.exit_code, 0) << opt.out << opt.err;
  EXPECT_NE(opt.out.find("--probe-frameworks"), std::string::npos) << opt.out;

  auto value = zsh("cudnnup completions f", "fish ");
  EXPECT_EQ(value.exit_code, 0) << value.out << value.err;

  auto nested = zsh("cudnnup cache cl", "clean ");
  EXPECT_EQ(nested.exit_code, 0) << nested.out << nested.err;
}

}  // namespace
}  // namespace cudnnup
