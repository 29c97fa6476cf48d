// The checklist for people: marks, the fix under each problem, colour only on a terminal.
#include <gtest/gtest.h>

#include <filesystem>

#include "app/render/report_text.h"
#include "platform/process.h"
#include "support/fixture_libs.h"
#include "support/run_cli.h"

namespace cudnnup::testing {
namespace {

const UserShell kBash{Shell::kBash, "parent process bash"};

Report sample_report() {
  Report r;
  r.os = "linux";
  r.rules_version = "test";
  Toolkit tk;
  tk.root = "/usr/local/cuda-12.4";
  tk.version = Version{12, 4};
  r.toolkits.push_back(tk);
  CudnnCopy c;
  c.lib_dir = "/usr/local/cuda-12.4/lib64";
  c.library_version = Version{9, 1, 0};
  c.header_version = Version{8, 9, 7};
  c.found_via = {"toolkit /usr/local/cuda-12.4"};
  r.copies.push_back(c);
  Finding f;
  f.id = "cudnn.header_library_mismatch";
  f.severity = Severity::kError;
  f.subject = c.lib_dir;
  f.title = "Header says cuDNN 8.9.7 but the library is 9.1.0";
  f.fix = {fix::cudnnup({"install", "9.1.0", "--into", "/usr/local/cuda-12.4"})};
  r.findings.push_back(f);
  return r;
}

TEST(DoctorText, MarksAndFixUnderTheProblem) {
  std::string text = render_report_text(sample_report(), Style{false}, false, false, kBash);
  EXPECT_NE(text.find("✓ CUDA 12.4  /usr/local/cuda-12.4"), std::string::npos) << text;
  size_t copy = text.find("✗ cuDNN 9.1.0  /usr/local/cuda-12.4/lib64");
  size_t fix = text.find("fix: cudnnup install 9.1.0 --into /usr/local/cuda-12.4");
  ASSERT_NE(copy, std::string::npos) << text;
  ASSERT_NE(fix, std::string::npos);
  EXPECT_LT(copy, fix) << "the fix is printed under its component";
  EXPECT_EQ(text.find('\033'), std::string::npos) << "no escape codes without colour";
  EXPECT_NE(text.find("1 error, 0 warnings"), std::string::npos);
  std::string coloured = render_report_text(sample_report(), Style{true}, false, false, kBash);
  EXPECT_NE(coloured.find("\033[31m✗"), std::string::npos);
  std::string windows = render_report_text(sample_report(), Style{false}, true, false, kBash);
  EXPECT_NE(windows.find("\\usr\\local\\cuda-12.4"), std::string::npos) << "paths shown natively";
  EXPECT_NE(text.find("Commands are written for bash: the shell cudnnup was started from (bash)"), std::string::npos)
      << "the report says for which shell";
}

TEST(DoctorText, FixesAreWrittenForTheUsersShell) {
  Report r = sample_report();
  r.findings[0].fix = {fix::cudnnup({"install", "9.1.0", "--into", "C:\\Program Files\\CUDA\\v12.4"})};
  std::string cmd = render_report_text(r, Style{false}, true, false, UserShell{Shell::kCmd, "parent process cmd.exe"});
  EXPECT_NE(cmd.find("fix: cudnnup install 9.1.0 --into \"C:\\Program Files\\CUDA\\v12.4\""), std::string::npos) << cmd;
  std::string pwsh = render_report_text(r, Style{false}, true, false, UserShell{Shell::kPwsh, "CUDNNUP_SHELL"});
  EXPECT_NE(pwsh.find("fix: cudnnup install 9.1.0 --into 'C:\\Program Files\\CUDA\\v12.4'"), std::string::npos) << pwsh;
  EXPECT_NE(pwsh.find("Commands are written for pwsh (CUDNNUP_SHELL)."), std::string::npos) << pwsh;
}

TEST(DoctorText, FindingsWithoutTheirOwnLineAreNotLeftOut) {
  Report r = sample_report();
  Finding f;
  f.id = "install.files_changed";
  f.severity = Severity::kError;
  f.subject = "/home/u/.local/share/cudnnup/versions/9.19.0.56+cuda13";  // no section line of its own
  f.title = "1 of 30 files of the store's cuDNN 9.19.0.56+cuda13 vanished or changed after install";
  r.findings.push_back(f);
  std::string text = render_report_text(r, Style{false}, false, false, kBash);
  auto other = text.find("Other findings");
  ASSERT_NE(other, std::string::npos) << text;
  EXPECT_NE(text.find(f.title, other), std::string::npos) << text;
  EXPECT_EQ(render_report_text(sample_report(), Style{false}, false, false, kBash).find("Other findings"), std::string::npos)
      << "no section when every finding has its line";
}

TEST(DoctorText, QuietShowsOnlyProblems) {
  std::string text = render_report_text(sample_report(), Style{false}, false, true, kBash);
  EXPECT_EQ(text.find("✓ CUDA 12.4"), std::string::npos);
  EXPECT_NE(text.find("✗ cuDNN 9.1.0"), std::string::npos);
}

// Through a pseudo-terminal (util-linux `script`): colour there, none with NO_COLOR or a pipe.
TEST(DoctorText, ColourOnlyOnATerminalAndNotWithNoColor) {
#ifdef _WIN32
  // Under Wine, /usr/bin/script is visible through drive Z: but cannot run as a Windows program.
  GTEST_SKIP() << "needs a Linux pseudo-terminal (util-linux script(1))";
#endif
  if (!std::filesystem::exists("/usr/bin/script")) GTEST_SKIP() << "no util-linux script(1)";
  TempDir home;
  auto run_in_pty = [&](const std::string& extra_env) {
    ProcessOptions o;
    o.env = std::map<std::string, std::string>{{"HOME", home.path()}, {"PATH", "/usr/bin:/bin"}, {"TERM", "xterm"}};
    if (!extra_env.empty()) (*o.env)[extra_env] = "1";
    auto r = run_process({"/usr/bin/script", "-qec", std::string(CUDNNUP_BINARY) + " doctor", "/dev/null"}, o);
    return r.ok() ? r->out : std::string();
  };
  std::string tty = run_in_pty("");
  EXPECT_NE(tty.find("\033["), std::string::npos) << tty;
  std::string no_color = run_in_pty("NO_COLOR");
  EXPECT_NE(no_color.find("cudnnup doctor"), std::string::npos);
  EXPECT_EQ(no_color.find("\033["), std::string::npos);
  auto piped = run_cli({"doctor"}, {{"HOME", home.path()}});
  EXPECT_EQ(piped.out.find("\033["), std::string::npos);
}

}  // namespace
}  // namespace cudnnup::testing
