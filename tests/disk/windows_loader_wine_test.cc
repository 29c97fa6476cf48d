// The DLL search model (core/windows_loader.h) against a real loader: a child process calls
// LoadLibraryExW by name with the PATH and flags of each case, and we compare what it got with
// what resolve_dll() predicted. In CI the "real loader" is Wine's, which implements the same
// documented order; results on real Windows are not in CI (docs/windows.md).
#ifdef _WIN32

#include <windows.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "base/paths.h"
#include "loader/windows/windows_loader.h"
#include "platform/process.h"
#include "platform/real_filesystem.h"
#include "platform/system.h"
#include "support/fixture_libs.h"
#include "support/windows_fixtures.h"

namespace cudnnup {
namespace {

using testing::TempDir;

// Child side: loads CUDNNUP_TEST_LOAD_NAME and prints "loaded <path>" or "error <code>".
// CUDNNUP_TEST_LOAD_MODE=default_dirs uses LOAD_LIBRARY_SEARCH_DEFAULT_DIRS, after
// AddDllDirectory(CUDNNUP_TEST_LOAD_USER_DIR) when that is set.
TEST(Win32LoaderHelper, LoadsByNameWhenAsked) {
  const char* name = std::getenv("CUDNNUP_TEST_LOAD_NAME");
  if (!name) GTEST_SKIP() << "helper for WindowsLoaderAgainstLoader";
  const char* mode = std::getenv("CUDNNUP_TEST_LOAD_MODE");
  const char* user_dir = std::getenv("CUDNNUP_TEST_LOAD_USER_DIR");
  SetErrorMode(SEM_FAILCRITICALERRORS);
  DWORD flags = 0;
  if (mode && std::string(mode) == "default_dirs") {
    flags = LOAD_LIBRARY_SEARCH_DEFAULT_DIRS;
    if (user_dir) {
      std::wstring w(user_dir, user_dir + std::strlen(user_dir));
      for (auto& c : w) c = c == L'/' ? L'\\' : c;
      AddDllDirectory(w.c_str());
    }
  }
  std::wstring wname(name, name + std::strlen(name));
  HMODULE m = LoadLibraryExW(wname.c_str(), nullptr, flags);
  if (!m) {
    std::printf("error %lu\n", GetLastError());
    return;
  }
  wchar_t path[MAX_PATH];
  DWORD n = GetModuleFileNameW(m, path, MAX_PATH);
  std::string narrow;
  for (DWORD i = 0; i < n; ++i) narrow += path[i] == L'\\' ? '/' : char(path[i]);
  std::printf("loaded %s\n", narrow.c_str());
}

class WindowsLoaderAgainstLoader : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::windows_fixture_dll("v9.19.0.56", "cudnn64_9.dll")) GTEST_SKIP() << testing::kNoWindowsFixtures;
  }
  void put_set(const std::string& variant, const std::string& dir, bool with_graph = true) {
    testing::copy_file(*testing::windows_fixture_dll(variant, "cudnn64_9.dll"), dir + "/cudnn64_9.dll");
    if (with_graph) {
      testing::copy_file(*testing::windows_fixture_dll(variant, "cudnn_graph64_9.dll"), dir + "/cudnn_graph64_9.dll");
    }
  }
  // What the child process got: "loaded <path>" or "error <code>".
  std::string real_load(const std::vector<std::string>& path_dirs, bool default_dirs, const std::string& user_dir = "",
                        const std::string& name = "cudnn64_9.dll") {
    ProcessOptions o;
    auto env = current_environment().vars;
    std::string path = "C:\\windows\\system32;C:\\windows";
    for (const auto& d : path_dirs) path += ";" + paths::to_native(d, true);
    env["PATH"] = path;
    env["CUDNNUP_TEST_LOAD_NAME"] = name;
    if (default_dirs) env["CUDNNUP_TEST_LOAD_MODE"] = "default_dirs";
    if (!user_dir.empty()) env["CUDNNUP_TEST_LOAD_USER_DIR"] = user_dir;
    o.env = env;
    auto r = run_process({self_executable_path(), "--gtest_filter=Win32LoaderHelper.LoadsByNameWhenAsked"}, o);
    EXPECT_TRUE(r);
    if (!r) return "";
    for (const std::string prefix : {"loaded ", "error "}) {
      size_t at = r->out.find(prefix);
      if (at != std::string::npos) return r->out.substr(at, r->out.find_first_of("\r\n", at) - at);
    }
    return "no answer: " + r->out;
  }
  DllSearchContext context(const std::vector<std::string>& path_dirs) {
    DllSearchContext ctx;
    ctx.application_dir = paths::parent(self_executable_path());
    ctx.system32_dir = "C:/windows/system32";
    ctx.system16_dir = "C:/windows/system";
    ctx.windows_dir = "C:/windows";
    ctx.current_dir = current_environment().cwd;
    ctx.path = {"C:/windows/system32", "C:/windows"};
    for (const auto& d : path_dirs) ctx.path.push_back(d);
    return ctx;
  }
  static std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }
  // The model's answer in the child's words.
  std::string predicted(const DllResolution& r) {
    if (!r.winner || !r.loads) return "error " + std::to_string(r.win32_error);
    return "loaded " + r.winner->path;
  }
  void expect_same(const std::string& real, const std::string& model) {
    EXPECT_EQ(lower(real), lower(model)) << "real loader: " << real << "\nmodel: " << model;
  }
  TempDir tmp;
  std::unique_ptr<FileSystem> fs = make_real_filesystem();
};

TEST_F(WindowsLoaderAgainstLoader, FirstPathDirectoryWins) {
  put_set("v9.1.0.70", tmp / "a");
  put_set("v9.19.0.56", tmp / "b");
  std::vector<std::string> dirs = {tmp / "a", tmp / "b"};
  auto model = resolve_dll(*fs, "cudnn64_9.dll", context(dirs));
  expect_same(real_load(dirs, false), predicted(model));
  EXPECT_EQ(model.winner->path, tmp / "a/cudnn64_9.dll");
}

TEST_F(WindowsLoaderAgainstLoader, MissingSubDllIs126) {
  put_set("v9.19.0.56", tmp / "a", /*with_graph=*/false);
  std::vector<std::string> dirs = {tmp / "a"};
  auto model = resolve_dll(*fs, "cudnn64_9.dll", context(dirs));
  EXPECT_EQ(model.win32_error, 126);
  expect_same(real_load(dirs, false), predicted(model));
}

TEST_F(WindowsLoaderAgainstLoader, SubDllFoundInALaterPathDirectory) {
  put_set("v9.19.0.56", tmp / "a", /*with_graph=*/false);
  testing::copy_file(*testing::windows_fixture_dll("v9.19.0.56", "cudnn_graph64_9.dll"), tmp / "b/cudnn_graph64_9.dll");
  std::vector<std::string> dirs = {tmp / "a", tmp / "b"};
  auto model = resolve_dll(*fs, "cudnn64_9.dll", context(dirs));
  EXPECT_TRUE(model.loads);
  expect_same(real_load(dirs, false), predicted(model));
}

TEST_F(WindowsLoaderAgainstLoader, DefaultDirsModeIgnoresPath) {
  put_set("v9.19.0.56", tmp / "a");
  std::vector<std::string> dirs = {tmp / "a"};
  auto ctx = context(dirs);
  ctx.mode = DllSearchMode::kDefaultDirs;
  auto model = resolve_dll(*fs, "cudnn64_9.dll", ctx);
  EXPECT_FALSE(model.winner);
  expect_same(real_load(dirs, true), predicted(model));
}

TEST_F(WindowsLoaderAgainstLoader, DefaultDirsModeUsesAddDllDirectory) {
  put_set("v9.19.0.56", tmp / "torch/lib");
  put_set("v9.1.0.70", tmp / "onpath");
  std::vector<std::string> dirs = {tmp / "onpath"};
  auto ctx = context(dirs);
  ctx.mode = DllSearchMode::kDefaultDirs;
  ctx.user_dirs = {tmp / "torch/lib"};
  auto model = resolve_dll(*fs, "cudnn64_9.dll", ctx);
  ASSERT_TRUE(model.winner);
  EXPECT_EQ(model.winner->path, tmp / "torch/lib/cudnn64_9.dll");
  expect_same(real_load(dirs, true, tmp / "torch/lib"), predicted(model));
}

// These two record what the real loader does with an unloadable first match. The model says
// "the load fails" (193); if a loader skips to the next directory instead, this test fails and
// docs/windows.md must change.
TEST_F(WindowsLoaderAgainstLoader, EmptyDllFirstOnPath) {
  testing::make_dirs(tmp / "a");
  ASSERT_TRUE(fs->write_file(tmp / "a/cudnn64_9.dll", "", false));
  put_set("v9.19.0.56", tmp / "b");
  std::vector<std::string> dirs = {tmp / "a", tmp / "b"};
  auto model = resolve_dll(*fs, "cudnn64_9.dll", context(dirs));
  EXPECT_EQ(model.win32_error, 193);
  expect_same(real_load(dirs, false), predicted(model));
}

TEST_F(WindowsLoaderAgainstLoader, WrongMachineDllFirstOnPath) {
  put_set("v9.19.0.56", tmp / "a");
  auto bytes = fs->read_file(tmp / "a/cudnn64_9.dll");
  ASSERT_TRUE(bytes);
  std::string patched = *bytes;  // COFF Machine -> IMAGE_FILE_MACHINE_I386
  uint32_t pe = 0;
  std::memcpy(&pe, patched.data() + 0x3c, 4);
  patched[pe + 4] = char(0x4c);
  patched[pe + 5] = char(0x01);
  ASSERT_TRUE(fs->write_file(tmp / "a/cudnn64_9.dll", patched, false));
  put_set("v9.19.0.56", tmp / "b");
  std::vector<std::string> dirs = {tmp / "a", tmp / "b"};
  auto model = resolve_dll(*fs, "cudnn64_9.dll", context(dirs));
  EXPECT_EQ(model.win32_error, 193);
  expect_same(real_load(dirs, false), predicted(model));
}

// cuDNN 8.3 up to 9.2 import zlibwapi.dll: a DLL whose import table names it fails with 126
// until a zlibwapi.dll is on the search, as the model predicts.
TEST_F(WindowsLoaderAgainstLoader, ZlibwapiImportMissingIs126UntilOnPath) {
  auto cnn = testing::windows_fixture_dll("v9.1.0.70-zlibwapi", "cudnn_cnn64_9.dll");
  testing::copy_file(*cnn, tmp / "a/cudnn_cnn64_9.dll");
  std::vector<std::string> dirs = {tmp / "a"};
  auto missing = resolve_dll(*fs, "cudnn_cnn64_9.dll", context(dirs));
  EXPECT_EQ(missing.win32_error, 126);
  expect_same(real_load(dirs, false, "", "cudnn_cnn64_9.dll"), predicted(missing));
  testing::copy_file(*testing::windows_fixture_dll("zlibwapi", "zlibwapi.dll"), tmp / "z/zlibwapi.dll");
  dirs.push_back(tmp / "z");
  auto found = resolve_dll(*fs, "cudnn_cnn64_9.dll", context(dirs));
  EXPECT_TRUE(found.loads);
  expect_same(real_load(dirs, false, "", "cudnn_cnn64_9.dll"), predicted(found));
}

}  // namespace
}  // namespace cudnnup

#endif  // _WIN32
