// shell/fix_render.h for each shell, with the paths Windows users have: the toolkit under
// C:\Program Files, and a folder with & % ' in its name. These are the rules; real bash, zsh and
// fish read the same lines back in tests/disk/shell_round_trip_posix_test.cc, cmd under Wine in
// tests/disk/cmd_round_trip_test.cc. PowerShell is not in Debian: its lines are checked here and
// against a golden file (tests/unit/shell/fix_census_test.cc).
#include "shell/fix_render.h"

#include <gtest/gtest.h>

namespace cudnnup {
namespace {

const std::string kRenderToolkit = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4";
const std::string kHostile = "C:\\a&b\\%PATH%\\it's";

std::string line(const FixStep& step, Shell shell) {
  auto r = render_fix_step(step, shell);
  EXPECT_TRUE(r.ok()) << shell_name(shell) << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : std::string();
}

FixStep uninstall(const std::string& into) { return fix::cudnnup({"uninstall", "--into", into, "--force"}); }

TEST(FixRenderShells, TheProgramFilesToolkit) {
  EXPECT_EQ(line(uninstall(kRenderToolkit), Shell::kBash),
            "cudnnup uninstall --into 'C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4' --force");
  EXPECT_EQ(line(uninstall(kRenderToolkit), Shell::kZsh), line(uninstall(kRenderToolkit), Shell::kBash));
  EXPECT_EQ(line(uninstall(kRenderToolkit), Shell::kFish),
            "cudnnup uninstall --into 'C:\\\\Program Files\\\\NVIDIA GPU Computing Toolkit\\\\CUDA\\\\v12.4' --force");
  EXPECT_EQ(line(uninstall(kRenderToolkit), Shell::kPwsh),
            "cudnnup uninstall --into 'C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4' --force");
  EXPECT_EQ(line(uninstall(kRenderToolkit), Shell::kCmd),
            "cudnnup uninstall --into \"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\" --force");
}

TEST(FixRenderShells, AmpersandPercentAndQuote) {
  EXPECT_EQ(line(uninstall(kHostile), Shell::kBash), "cudnnup uninstall --into 'C:\\a&b\\%PATH%\\it'\\''s' --force");
  EXPECT_EQ(line(uninstall(kHostile), Shell::kFish), "cudnnup uninstall --into 'C:\\\\a&b\\\\%PATH%\\\\it\\'s' --force");
  EXPECT_EQ(line(uninstall(kHostile), Shell::kPwsh), "cudnnup uninstall --into 'C:\\a&b\\%PATH%\\it''s' --force");
  // cmd: every % outside the quotes, where the name between two of them holds a quote (so no
  // %PATH% is expanded), and the backslash before a closing quote doubled for CommandLineToArgvW.
  EXPECT_EQ(line(uninstall(kHostile), Shell::kCmd), "cudnnup uninstall --into \"C:\\a&b\\\\\"%\"PATH\"%\"\\it's\" --force");
}

TEST(FixRenderShells, DollarBacktickCaretBangAndNonAscii) {
  const std::string p = "D:\\x $y `z` ^! \xc3\xbc";
  FixStep s = fix::cudnnup({"verify", "--copy", p});
  EXPECT_EQ(line(s, Shell::kBash), "cudnnup verify --copy 'D:\\x $y `z` ^! \xc3\xbc'");
  EXPECT_EQ(line(s, Shell::kFish), "cudnnup verify --copy 'D:\\\\x $y `z` ^! \xc3\xbc'");
  EXPECT_EQ(line(s, Shell::kPwsh), "cudnnup verify --copy 'D:\\x $y `z` ^! \xc3\xbc'") << "$ and ` are text in '...'";
  EXPECT_EQ(line(s, Shell::kCmd), "cudnnup verify --copy \"D:\\x $y `z` ^! \xc3\xbc\"") << "^ is text in quotes";
}

TEST(FixRenderShells, CmdQuotesTheRestAndRefusesAQuote) {
  EXPECT_EQ(line(fix::run({"x", "50%", "%%", "a\\", "a b\\", ""}), Shell::kCmd), "x \"50\"% %% a\\ \"a b\\\\\" \"\"");
  // cmd's own commands split at , ; = too; other programs get them as written.
  EXPECT_EQ(line(fix::run({"move", "C:\\a,b=c\\x.dll", "C:\\cudnn-aside"}), Shell::kCmd), "move \"C:\\a,b=c\\x.dll\" C:\\cudnn-aside");
  EXPECT_EQ(line(fix::run({"nvidia-smi", "--query-gpu=name,compute_cap"}), Shell::kCmd), "nvidia-smi --query-gpu=name,compute_cap");
  auto quote = render_fix_step(fix::run({"x", "a\"b"}), Shell::kCmd);
  ASSERT_FALSE(quote.ok());
  EXPECT_NE(quote.error().message.find("cmd cannot quote"), std::string::npos) << quote.error().message;
}

TEST(FixRenderShells, PowerShellQuotesWhatItWouldReadAsSomethingElse) {
  // A quoted program runs only through the call operator.
  EXPECT_EQ(line(fix::run({kRenderToolkit + "\\bin\\nvcc.exe", "--version"}), Shell::kPwsh),
            "& 'C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bin\\nvcc.exe' --version");
  EXPECT_EQ(line(fix::run({"C:\\cuda\\bin\\nvcc.exe", "--version"}), Shell::kPwsh), "C:\\cuda\\bin\\nvcc.exe --version");
  // Bare words PowerShell would take as numbers (9.10 is 9.1) or split (-a.b), and its operators.
  EXPECT_EQ(line(fix::cudnnup({"use", "9.10"}), Shell::kPwsh), "cudnnup use '9.10'");
  EXPECT_EQ(line(fix::cudnnup({"install", "9.19.0", "--cuda", "12"}), Shell::kPwsh), "cudnnup install 9.19.0 --cuda 12");
  EXPECT_EQ(line(fix::run({"x", "07", "1kb", "-a.b", "--%", "@x", "a,b", "a;b", "$x", "#x", "(x)"}), Shell::kPwsh),
            "x '07' '1kb' '-a.b' '--%' '@x' 'a,b' 'a;b' '$x' '#x' '(x)'");
  EXPECT_EQ(line(fix::run({"nvidia-smi", "--query-gpu=name,compute_cap", "-q"}), Shell::kPwsh),
            "nvidia-smi '--query-gpu=name,compute_cap' -q");
}

TEST(FixRenderShells, FileCommandsInTheShellsOwnWords) {
  EXPECT_EQ(line(fix::run({"mkdir", "-p", "/a b/x"}), Shell::kPwsh), "New-Item -ItemType Directory -Force -Path '/a b/x'")
      << "PowerShell's mkdir has no -p";
  EXPECT_EQ(line(fix::run({"mkdir", "-p", "/a b/x"}), Shell::kBash), "mkdir -p '/a b/x'");
  EXPECT_EQ(line(fix::run({"move", "C:\\x.dll", "C:\\aside"}), Shell::kBash), "mv 'C:\\x.dll' 'C:\\aside'") << "Git Bash";
  EXPECT_EQ(line(fix::run({"move", "C:\\x.dll", "C:\\aside"}), Shell::kPwsh), "move C:\\x.dll C:\\aside");
  EXPECT_EQ(fix_commands({fix::run({"move", "a", "b"})}), (std::vector<std::vector<std::string>>{{"move", "a", "b"}}))
      << "the argument vector is the step's";
}

TEST(FixRenderShells, ZshLeadingEqualsAndNotesOutsideComments) {
  EXPECT_EQ(line(fix::run({"x", "=ls", "a=b"}), Shell::kZsh), "x '=ls' a=b") << "=word is a command lookup in zsh";
  EXPECT_EQ(line(fix::run({"x", "=ls"}), Shell::kBash), "x =ls");
  FixStep noted = fix::cudnnup({"which", "-v"}, "every copy, and why one wins");
  EXPECT_EQ(line(noted, Shell::kBash), "cudnnup which -v   # every copy, and why one wins");
  EXPECT_EQ(line(noted, Shell::kZsh), "cudnnup which -v; : 'every copy, and why one wins'")
      << "an interactive zsh reads # as a word unless INTERACTIVE_COMMENTS is set";
  EXPECT_EQ(line(noted, Shell::kFish), "cudnnup which -v   # every copy, and why one wins");
  EXPECT_EQ(line(noted, Shell::kPwsh), "cudnnup which -v   # every copy, and why one wins");
  EXPECT_EQ(line(fix::cudnnup({"env"}, "drops C:\\a&b\\%PATH%"), Shell::kCmd), "cudnnup env   & REM drops C:\\a^&b\\^%PATH^%")
      << "a note's & and % stay text in cmd";
}

TEST(FixRenderShells, TheOutputOfEnvRunInTheCurrentShell) {
  FixStep env = fix::cudnnup_eval({"env"});
  EXPECT_EQ(line(env, Shell::kBash), "eval \"$(cudnnup env --shell bash)\"");
  EXPECT_EQ(line(env, Shell::kZsh), "eval \"$(cudnnup env --shell zsh)\"");
  EXPECT_EQ(line(env, Shell::kFish), "cudnnup env --shell fish | source");
  EXPECT_EQ(line(env, Shell::kPwsh), "cudnnup env --shell pwsh | Out-String | Invoke-Expression");
  EXPECT_EQ(line(env, Shell::kCmd), "for /f \"delims=\" %i in ('cudnnup env --shell cmd') do @%i");
}

TEST(FixRenderShells, EnvironmentChanges) {
  EXPECT_EQ(line(fix::set_env("CUDNNUP_HOME", kHostile), Shell::kBash), "export CUDNNUP_HOME='C:\\a&b\\%PATH%\\it'\\''s'");
  EXPECT_EQ(line(fix::set_env("CUDNNUP_HOME", kHostile), Shell::kFish), "set -gx CUDNNUP_HOME 'C:\\\\a&b\\\\%PATH%\\\\it\\'s'");
  EXPECT_EQ(line(fix::set_env("CUDNNUP_HOME", kHostile), Shell::kPwsh), "$env:CUDNNUP_HOME = 'C:\\a&b\\%PATH%\\it''s'");
  EXPECT_EQ(line(fix::set_env("CUDNNUP_HOME", kRenderToolkit), Shell::kCmd),
            "set \"CUDNNUP_HOME=C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\"");
  // cmd's quoted set cannot hold a %: the unquoted form with carets can.
  EXPECT_EQ(line(fix::set_env("CUDNNUP_HOME", kHostile), Shell::kCmd), "set CUDNNUP_HOME=C:\\a^&b\\^%PATH^%\\it's");
  EXPECT_EQ(line(fix::unset_env("CUDNNUP_HOME"), Shell::kCmd), "set CUDNNUP_HOME=");
  EXPECT_EQ(line(fix::unset_env("CUDNNUP_HOME"), Shell::kPwsh), "Remove-Item Env:CUDNNUP_HOME -ErrorAction SilentlyContinue");
}

TEST(FixRenderShells, ShellCodeRunsWhereItMeansTheSameElseSaysWhichShellItNeeds) {
  FixStep pipe = fix::shell("lsmod | grep nvidia");
  for (Shell s : {Shell::kBash, Shell::kZsh, Shell::kFish, Shell::kPwsh}) EXPECT_EQ(line(pipe, s), "lsmod | grep nvidia");
  FixStep var = fix::shell("echo $CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(line(var, Shell::kFish), "sh -c 'echo $CUDA_VISIBLE_DEVICES'");
  EXPECT_EQ(line(var, Shell::kPwsh), "sh -c 'echo $CUDA_VISIBLE_DEVICES'");
  FixStep exported = fix::shell("export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH");
  EXPECT_FALSE(render_fix_step(exported, Shell::kFish).ok()) << "sh -c would change nothing in fish";
  EXPECT_FALSE(render_fix_step(pipe, Shell::kCmd).ok());
  FixStep ps = fix::shell_in(ShellDialect::kPowerShell, "$env:PATH = 'x'");
  EXPECT_EQ(line(ps, Shell::kPwsh), "$env:PATH = 'x'");
  auto in_cmd = render_fix({ps}, Shell::kCmd);
  ASSERT_EQ(in_cmd.size(), 1u);
  EXPECT_EQ(in_cmd[0], "(a step that cannot be written as cmd code: it is PowerShell code, for that shell only: $env:PATH = 'x')");
}

TEST(FixRenderShells, ACommandInAMessageIsALineOrASentence) {
  EXPECT_EQ(render_command_or_sentence({"cudnnup", "link", "--undo", "--into", kRenderToolkit}, Shell::kPwsh),
            "cudnnup link --undo --into 'C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4'");
  std::string s = render_command_or_sentence({"cudnnup", "link", "--undo", "--into", "/x\ny"}, Shell::kBash);
  EXPECT_EQ(s.rfind("(a command that cannot be written as bash code: ", 0), 0u) << s;
}

}  // namespace
}  // namespace cudnnup
