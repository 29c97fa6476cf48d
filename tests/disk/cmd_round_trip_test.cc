// Printed commands typed into cmd: every Windows command step of the fix census
// (tests/support/fix_census.h) and a list of hostile words, rendered for cmd (shell/fix_render.h)
// with tests/fixtures/windows/argv_echo.c in the program's place, run by `cmd /d /s /c "LINE"`
// (as cmd runs what is typed at its prompt: command-line rules, not a batch file's), must reach
// the program as exactly the words meant. The cmd's own commands the fixes use (mkdir, move)
// also run for real on a hostile folder. Built only for Windows; CI runs it under Wine, whose cmd
// does not expand %NAME% in `cmd /c` at all: that the quotes keep a real cmd from expanding one
// rests on cmd's documented rules (shell/shell_quote.h cmd_argument).
#ifdef _WIN32

#include <windows.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/paths.h"
#include "platform/win32_text.h"
#include "shell/fix_render.h"
#include "support/fix_census.h"
#include "support/fixture_libs.h"
#include "support/windows_fixtures.h"

namespace cudnnup {
namespace {

using testing::TempDir;

// Runs `cmd.exe /d /s /c "LINE"` with LINE as it is (no quoting of ours: /s strips the outer
// quotes and cmd reads the rest as typed), stdout going to `out`. Returns the exit code.
int run_in_cmd(const std::string& line, const std::string& out) {
  wchar_t system_dir[MAX_PATH];
  GetSystemDirectoryW(system_dir, MAX_PATH);
  std::wstring cmd = std::wstring(system_dir) + L"\\cmd.exe";
  std::wstring command_line = L"cmd.exe /d /s /c \"" + win32::widen(line) + L"\"";
  SECURITY_ATTRIBUTES sa{sizeof sa, nullptr, TRUE};
  HANDLE file = CreateFileW(win32::to_win_path(out).c_str(), GENERIC_WRITE, FILE_SHARE_READ, &sa, CREATE_ALWAYS, 0, nullptr);
  if (file == INVALID_HANDLE_VALUE) return -1;
  STARTUPINFOW si{};
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdOutput = file;
  si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
  si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
  PROCESS_INFORMATION pi{};
  BOOL ok = CreateProcessW(cmd.c_str(), command_line.data(), nullptr, nullptr, TRUE, CREATE_NO_WINDOW, nullptr, nullptr, &si, &pi);
  CloseHandle(file);
  if (!ok) return -1;
  WaitForSingleObject(pi.hProcess, 60000);
  DWORD code = 1;
  GetExitCodeProcess(pi.hProcess, &code);
  CloseHandle(pi.hProcess);
  CloseHandle(pi.hThread);
  return static_cast<int>(code);
}

std::string read_all(const std::string& path) {
  std::ifstream in(std::filesystem::u8path(path), std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), {});
  std::string out;
  for (char c : s) {
    if (c != '\r') out += c;
  }
  return out;
}

std::string cmd_output_lines(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += w + "\n";
  return out;
}

TEST(CmdRoundTrip, EveryWindowsCommandReachesTheProgramAsMeant) {
  auto built = testing::windows_fixture_dll("tools", "argv_echo.exe");
  if (!built) GTEST_SKIP() << testing::kNoWindowsFixtures;
  TempDir tmp;
  // A copy in a folder of this (Windows) file system: the build's path may be a Unix one.
  testing::copy_file(*built, tmp / "argv_echo.exe");
  const std::string echo = paths::to_native(tmp / "argv_echo.exe", true);
  std::vector<std::vector<std::string>> word_lists = {
      {"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4", "C:\\a&b\\%PATH%\\it's"},
      {"%USERPROFILE%", "%PATH%x%PATH%", "50%", "%%", "100% done", "a^b", "(x)", "<>|&", "it's & more", "!x!", "$x `y`"},
      {"a\\", "a b\\", "C:\\x y\\", "", "\xc3\xbc \xe2\x80\x99", "a,b;c=d"}};
  std::vector<FixStep> steps;
  for (const auto& e : testing::fix_census().entries) {
    if (e.windows && e.step.is_command() && !e.step.eval) steps.push_back(e.step);
  }
  for (const auto& words : word_lists) steps.push_back(fix::run(words, "drops C:\\a&b\\%PATH% (it's)"));
  ASSERT_GT(steps.size(), 20u);
  size_t ran = 0;
  for (const auto& step : steps) {
    std::vector<std::string> argv = {echo};
    argv.insert(argv.end(), step.argv.begin(), step.argv.end());
    auto line = render_fix_step(fix::run(argv, step.note), Shell::kCmd);
    ASSERT_TRUE(line.ok()) << line.error().message;
    std::string out = tmp / ("out" + std::to_string(ran) + ".txt");
    EXPECT_EQ(run_in_cmd(*line, out), 0) << *line;
    EXPECT_EQ(read_all(out), cmd_output_lines(step.argv)) << "cmd read back wrong: " << *line;
    ++ran;
  }
}

// mkdir and move are cmd's own commands, which split their arguments themselves.
TEST(CmdRoundTrip, MkdirAndMoveOnAHostileFolder) {
  // No '%' here: Wine's own move does not join a word's quoted pieces ("p "%"x"%" q" reads as
  // another path, exit 0 and nothing moved), so a '%' in a folder given to cmd's mkdir and move is
  // checked against the renderer's rules only (fix_render_test.cc), and needs a real cmd.exe
  // (docs/windows.md). The argv round trip above has '%' in every line.
  for (const std::string name : {"plain", "a&b", "it's", "x ^! y", "u \xc3\xbc", "a&b it's ^! \xc3\xbc, one=1"}) {
    TempDir tmp;
    std::string dir = tmp / name;
    std::string aside = tmp / "aside, one=1";
    // UTF-8 names through u8path: a std::string path is read in the ANSI code page on Windows.
    std::filesystem::create_directories(std::filesystem::u8path(dir));
    std::ofstream(std::filesystem::u8path(dir + "/cudnn64_9.dll"), std::ios::binary) << "MZ";
    auto native = [](const std::string& p) { return paths::to_native(p, true); };
    int ran = 0;
    for (const auto& step : {fix::run({"mkdir", native(aside)}), fix::run({"move", native(dir + "/cudnn64_9.dll"), native(aside)})}) {
      auto line = render_fix_step(step, Shell::kCmd);
      ASSERT_TRUE(line.ok());
      // A file of its own per run: Wine may still hold the last cmd's inherited handle to the last one.
      std::string out = tmp / ("out" + std::to_string(ran++) + ".txt");
      EXPECT_EQ(run_in_cmd(*line, out), 0) << *line << "\n" << read_all(out);
    }
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::u8path(aside + "/cudnn64_9.dll"))) << name;
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::u8path(dir + "/cudnn64_9.dll"))) << name;
  }
}

}  // namespace
}  // namespace cudnnup

#endif  // _WIN32
