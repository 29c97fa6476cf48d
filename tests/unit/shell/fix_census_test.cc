// Every fix cudnnup can print (tests/support/fix_census.h) in every shell: each step is a line of
// that shell's code or a sentence that says why it cannot be one; a fix for Windows is a command
// in cmd and in PowerShell, a fix for Linux in bash and zsh; every cudnnup step parses with the
// real command line. PowerShell is not in Debian, so its lines are compared with a golden file
// (tests/unit/shell/golden/fix_census_pwsh.txt; CUDNNUP_UPDATE_GOLDEN=1 writes it again).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "shell/fix_render.h"
#include "support/fix_census.h"
#include "support/fix_check.h"

namespace cudnnup {
namespace {

using testing::fix_census;

constexpr Shell kShells[] = {Shell::kBash, Shell::kZsh, Shell::kFish, Shell::kPwsh, Shell::kCmd};

bool is_sentence(const std::string& line) { return line.rfind("(a step that cannot be written as ", 0) == 0 || line.rfind("Edit ", 0) == 0; }

TEST(FixCensus, ReachesTheFindingsWithFixes) {
  const auto& ids = fix_census().finding_ids;
  for (const char* id : {"cudnn.library_damaged", "cudnn.dangling_link", "cudnn.sublibrary_missing", "cudnn.header_library_mismatch",
                         "cudnn.cuda_major_mismatch", "cudnn.load_failed", "cudnn.mixed_majors", "cudnn.shadowed", "cudnn.not_found",
                         "driver.not_found", "windows.stale_session_path", "windows.path_truncated", "install.files_changed",
                         "driver.jit_cache_not_writable"}) {
    EXPECT_TRUE(ids.count(id)) << id << " was not reached: the census would miss its fix";
  }
  EXPECT_GE(fix_census().entries.size(), 300u);
}

TEST(FixCensus, EveryStepIsALineOfEachShellOrSaysWhyNot) {
  size_t lines = 0;
  for (const auto& e : fix_census().entries) {
    for (Shell shell : kShells) {
      SCOPED_TRACE(e.origin + " in " + shell_name(shell) + ": " + fix_step_to_json(e.step).dump());
      auto rendered = render_fix({e.step}, shell);
      ASSERT_EQ(rendered.size(), 1u);
      auto direct = render_fix_step(e.step, shell);
      if (direct.ok()) {
        EXPECT_EQ(rendered[0], *direct);
        EXPECT_EQ(rendered[0].find('\n'), std::string::npos) << "one line";
        ++lines;
      } else {
        EXPECT_TRUE(is_sentence(rendered[0])) << rendered[0];
        EXPECT_NE(rendered[0].find(direct.error().message), std::string::npos) << "the sentence says why";
      }
    }
  }
  EXPECT_GE(lines, 1000u);
}

TEST(FixCensus, FixesForAnOsAreCommandsInItsShells) {
  for (const auto& e : fix_census().entries) {
    if (e.step.kind == FixKind::kText) continue;
    std::vector<Shell> shells = e.windows ? std::vector<Shell>{Shell::kCmd, Shell::kPwsh} : std::vector<Shell>{Shell::kBash, Shell::kZsh};
    for (Shell shell : shells) {
      auto r = render_fix_step(e.step, shell);
      // PowerShell's own code is for PowerShell: cmd users get the sentence (and the step before it).
      bool powershell_only = e.step.kind == FixKind::kShell && e.step.dialect == ShellDialect::kPowerShell && shell == Shell::kCmd;
      EXPECT_TRUE(r.ok() || powershell_only) << e.origin << " in " << shell_name(shell) << ": "
                                             << (r.ok() ? "" : r.error().message);
    }
  }
}

TEST(FixCensus, EveryCudnnupStepParses) {
  size_t checked = 0;
  for (const auto& e : fix_census().entries) {
    if (e.step.kind != FixKind::kCudnnup) continue;
    EXPECT_EQ(testing::cli_refusal(e.step.argv), "") << e.origin << ": " << fix_step_to_json(e.step).dump();
    ++checked;
  }
  EXPECT_GE(checked, 100u);
}

std::string pwsh_lines() {
  std::ostringstream out;
  out << "# Every fix of tests/support/fix_census.h as PowerShell lines (shell/fix_render.h), checked by\n"
         "# tests/unit/shell/fix_census_test.cc. Regenerate with CUDNNUP_UPDATE_GOLDEN=1 and review the diff.\n";
  for (const auto& e : fix_census().entries) {
    if (e.step.kind == FixKind::kText) continue;
    out << e.origin << "\n  " << render_fix({e.step}, Shell::kPwsh).front() << "\n";
  }
  return out.str();
}

TEST(FixCensus, PowerShellLinesMatchTheGoldenFile) {
  const std::string path = std::string(CUDNNUP_SOURCE_DIR) + "/tests/unit/shell/golden/fix_census_pwsh.txt";
  std::string now = pwsh_lines();
  const char* update = std::getenv("CUDNNUP_UPDATE_GOLDEN");
  if (update && *update) {
    std::ofstream(path, std::ios::binary) << now;
    GTEST_SKIP() << "wrote " << path;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) GTEST_SKIP() << path << " is not readable from this test binary";
  std::string golden((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(now, golden) << "the PowerShell lines changed: review them, then CUDNNUP_UPDATE_GOLDEN=1";
}

}  // namespace
}  // namespace cudnnup
