// Printed commands typed into real shells: bash, zsh and fish must read each rendered line
// (shell/fix_render.h) back into exactly the words cudnnup meant. Every command step of the fix
// census (tests/support/fix_census.h: the catalogue, doctor's findings on hostile folders, the
// errors' and the app's own lines) and a list of hostile words is rendered with `printf '%s\n'`
// in front of its words, note included, and run; printf's lines must be the words. zsh and bash
// run once more as interactive shells reading the lines from stdin, as a person's paste: there an
// interactive zsh reads # as a word (INTERACTIVE_COMMENTS is off), so notes must not be comments.
// Environment changes are checked with printenv. A shell that is not installed is skipped, saying so.
#include <gtest/gtest.h>

#include <filesystem>

#include "platform/process.h"
#include "shell/fix_render.h"
#include "support/fix_census.h"
#include "support/fixture_libs.h"

namespace cudnnup {
namespace {

using testing::TempDir;

const char* const kSeparator = "--cudnnup-round-trip--";

std::string find_shell(const std::string& name) {
  for (const char* dir : {"/usr/bin/", "/bin/", "/usr/local/bin/"}) {
    if (std::filesystem::exists(std::string(dir) + name)) return std::string(dir) + name;
  }
  return "";
}

const std::vector<std::vector<std::string>>& hostile_word_lists() {
  static const std::vector<std::vector<std::string>> lists = {
      {"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4", "C:\\a&b\\%PATH%\\it's"},
      {"it's", "$(touch CANARY)", "`touch CANARY`", "${HOME}", "$HOME", "a b", "a  b", "\t"},
      {"~", "~/x", "*", "?", "[a]", "{a,b}", "#x", "=x", "-", "--", "!x", "!!", "a;b", "a|b", "a&b", "(x)", "<x>"},
      {"a\\", "\\", "'", "\"", "''", "\\'", "\xc3\xbc \xe2\x80\x99 \xe2\x80\x98", "", "%", "%PATH%", "^", "@x", "x=y", "--x=y",
       "9.10", "07", "1kb", "-a.b", "--%"},
  };
  return lists;
}

struct Case {
  std::string line;  // shell code
  std::string want;  // what it prints
};

std::string lines_of(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += w + "\n";
  return out;
}

// printf '%s\n' WORDS... for `shell`, with the step's note; or, for an environment change, the
// change and then printenv (an unset variable prints nothing).
std::optional<Case> case_for(const FixStep& step, Shell shell) {
  if (step.is_command() && !step.eval) {
    std::vector<std::string> argv = {"printf", "%s\\n"};
    argv.insert(argv.end(), step.argv.begin(), step.argv.end());
    FixStep printing = fix::run(argv, step.note);
    auto line = render_fix_step(printing, shell);
    EXPECT_TRUE(line.ok()) << shell_name(shell) << ": " << (line.ok() ? "" : line.error().message);
    if (!line.ok()) return std::nullopt;
    return Case{*line, lines_of(step.argv)};
  }
  if (step.kind == FixKind::kSetEnv || step.kind == FixKind::kUnsetEnv) {
    auto line = render_fix_step(step, shell);
    EXPECT_TRUE(line.ok()) << (line.ok() ? "" : line.error().message);
    if (!line.ok()) return std::nullopt;
    auto show = render_words({"printenv", step.name}, shell);
    return Case{*line + "\n" + *show, step.kind == FixKind::kSetEnv ? step.value + "\n" : ""};
  }
  return std::nullopt;
}

std::vector<Case> cases_for(Shell shell, bool notes_only) {
  std::vector<Case> out;
  for (const auto& e : testing::fix_census().entries) {
    if (notes_only && e.step.note.empty()) continue;
    if (auto c = case_for(e.step, shell)) out.push_back(*c);
  }
  if (notes_only) return out;
  for (const auto& words : hostile_word_lists()) {
    if (auto c = case_for(fix::run(words, "it's $(touch CANARY) & `x` #"), shell)) out.push_back(*c);
  }
  return out;
}

// All cases in one run of the shell, each followed by a separator line, so a line that swallowed
// the next (an unclosed quote) shows up as a mismatch rather than as a wrong total. `args` end
// with -c (the script is the next argument), or, with `pasted`, they make an interactive shell
// that reads the script from stdin.
void round_trip(const std::string& name, std::vector<std::string> args, Shell shell, bool notes_only, bool pasted = false) {
  std::string path = find_shell(name);
  if (path.empty()) GTEST_SKIP() << name << " is not installed";
  TempDir tmp;
  testing::make_dirs(tmp / "home/.config/fish");
  std::vector<Case> cases = cases_for(shell, notes_only);
  ASSERT_FALSE(cases.empty());
  auto separator = render_words({"printf", "%s\\n", kSeparator}, shell);
  ASSERT_TRUE(separator.ok());
  std::string script, want;
  for (const auto& c : cases) {
    script += c.line + "\n" + *separator + "\n";
    want += c.want + kSeparator + "\n";
  }
  if (pasted) {
    testing::write_text(tmp / "pasted", script);
    std::string flags;
    for (const auto& a : args) flags += " " + a;
    args = {"/bin/sh", "-c", "exec \"$0\"" + flags + " < \"$1\"", path, tmp / "pasted"};
  } else {
    args.insert(args.begin(), path);
    args.push_back(script);
  }
  ProcessOptions options;
  options.timeout_ms = 60000;
  options.max_output_bytes = 16 << 20;
  options.env = std::map<std::string, std::string>{
      {"PATH", "/usr/bin:/bin"}, {"HOME", tmp / "home"}, {"LANG", "C.UTF-8"}, {"TERM", "dumb"}};
  options.cwd = tmp.path();
  auto r = run_process(args, options);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, 0) << r->err;
  // Line by line, so a failure names the case.
  size_t at = 0, case_index = 0;
  std::string got = r->out;
  while (case_index < cases.size()) {
    std::string one_want = cases[case_index].want + kSeparator + "\n";
    std::string one_got = got.substr(at, one_want.size());
    EXPECT_EQ(one_got, one_want) << name << " read back wrong: " << cases[case_index].line;
    if (one_got != one_want) break;
    at += one_want.size();
    ++case_index;
  }
  EXPECT_EQ(got.size(), want.size()) << name << " printed more than the words";
  EXPECT_FALSE(std::filesystem::exists(tmp / "CANARY")) << "a rendered line ran a command";
}

TEST(ShellRoundTrip, Bash) { round_trip("bash", {"--norc", "--noprofile", "-c"}, Shell::kBash, false); }
TEST(ShellRoundTrip, Zsh) { round_trip("zsh", {"-f", "-c"}, Shell::kZsh, false); }
TEST(ShellRoundTrip, ZshPastedInteractivelyWhereHashIsAWord) { round_trip("zsh", {"-f", "-i"}, Shell::kZsh, true, true); }
TEST(ShellRoundTrip, BashPastedInteractively) { round_trip("bash", {"--norc", "--noprofile", "-i"}, Shell::kBash, true, true); }
TEST(ShellRoundTrip, Fish) { round_trip("fish", {"--no-config", "-c"}, Shell::kFish, false); }

}  // namespace
}  // namespace cudnnup
