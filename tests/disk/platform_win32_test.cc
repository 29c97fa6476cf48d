// The Win32 platform layer against the real OS. Built only for Windows; CI runs it under Wine
// (scripts/test-windows.sh), which cannot create symlinks or junctions: those tests skip there
// and say so, and the logic that uses links is tested with the in-memory filesystem.
#ifdef _WIN32

#include <windows.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "binfmt/pe.h"
#include "platform/dynamic_library.h"
#include "platform/file_lock.h"
#include "platform/process.h"
#include "platform/real_filesystem.h"
#include "platform/registry.h"
#include "platform/system.h"
#include "support/fixture_libs.h"
#include "support/windows_fixtures.h"

namespace cudnnup {
namespace {

using testing::TempDir;

std::string lower_copy(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool running_under_wine() {
  HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  return ntdll && GetProcAddress(ntdll, "wine_get_version") != nullptr;
}

TEST(Win32FileSystem, WritesReadsAndStatsWithSlashPaths) {
  TempDir tmp;
  auto fs = make_real_filesystem();
  std::string file = tmp / "a.txt";
  ASSERT_TRUE(fs->write_file(file, "hello, windows", true));
  auto info = fs->stat(file);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->type, FileType::kRegular);
  EXPECT_EQ(info->size, 14u);
  EXPECT_GT(info->mtime_ns, int64_t(1500000000) * 1000000000);  // after 2017: the epoch conversion is right
  auto part = fs->read_range(file, 7, 100);
  ASSERT_TRUE(part);
  EXPECT_EQ(*part, "windows");
  auto missing = fs->stat(tmp / "nope.txt");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_NE(missing.error().message.find("nope.txt"), std::string::npos);
}

TEST(Win32FileSystem, ListsDirectoriesWithTypes) {
  TempDir tmp;
  auto fs = make_real_filesystem();
  ASSERT_TRUE(fs->make_dir(tmp / "sub"));
  ASSERT_TRUE(fs->make_dir(tmp / "sub"));  // existing is fine
  ASSERT_TRUE(fs->write_file(tmp / "f.dll", "x", false));
  auto entries = fs->list_dir(tmp.path());
  ASSERT_TRUE(entries);
  ASSERT_EQ(entries->size(), 2u);
  for (const auto& e : *entries) {
    if (e.name == "sub") EXPECT_EQ(e.type, FileType::kDirectory);
    else EXPECT_EQ(e.type, FileType::kRegular) << e.name;
  }
}

TEST(Win32FileSystem, RenameReplacesAndRemoveHandlesReadOnlyFiles) {
  TempDir tmp;
  auto fs = make_real_filesystem();
  ASSERT_TRUE(fs->write_file(tmp / "new", "new", true));
  ASSERT_TRUE(fs->write_file(tmp / "old", "old", true));
  ASSERT_TRUE(fs->rename(tmp / "new", tmp / "old"));
  EXPECT_EQ(fs->read_file(tmp / "old").value_or(""), "new");
  EXPECT_FALSE(fs->exists(tmp / "new"));
  // Archives unpack read-only files; remove() must still work.
  ASSERT_TRUE(SetFileAttributesW(std::filesystem::path(tmp / "old").c_str(), FILE_ATTRIBUTE_READONLY));
  auto removed = fs->remove(tmp / "old");
  EXPECT_TRUE(removed) << removed.error().message;
  EXPECT_FALSE(fs->exists(tmp / "old"));
}

TEST(Win32FileSystem, NonAsciiAndLongPaths) {
  TempDir tmp;
  auto fs = make_real_filesystem();
  std::string name = tmp / "caf\xc3\xa9-\xc3\xbc.txt";  // "café-ü.txt" in UTF-8
  ASSERT_TRUE(fs->write_file(name, "x", false));
  auto entries = fs->list_dir(tmp.path());
  ASSERT_TRUE(entries);
  ASSERT_EQ(entries->size(), 1u);
  EXPECT_EQ((*entries)[0].name, "caf\xc3\xa9-\xc3\xbc.txt");
  // Deeper than MAX_PATH (260): the store under %LOCALAPPDATA% gets there.
  std::string deep = tmp.path();
  for (int i = 0; i < 6; ++i) {
    deep += "/" + std::string(50, char('a' + i));
    ASSERT_TRUE(fs->make_dir(deep)) << deep.size();
  }
  ASSERT_GT(deep.size(), 300u);
  ASSERT_TRUE(fs->write_file(deep + "/cudnn64_9.dll", "deep", false));
  EXPECT_EQ(fs->read_file(deep + "/cudnn64_9.dll").value_or(""), "deep");
}

TEST(Win32FileSystem, MakeDirsCreatesEveryLevel) {
  TempDir tmp;
  auto fs = make_real_filesystem();
  ASSERT_TRUE(fs->make_dirs(tmp / "store/versions/9.19.0.56+cuda13/bin"));
  EXPECT_TRUE(fs->is_dir(tmp / "store/versions/9.19.0.56+cuda13/bin"));
  EXPECT_TRUE(fs->is_dir("C:/"));
}

TEST(Win32FileSystem, CanonicalUsesSlashesWithoutPrefix) {
  TempDir tmp;
  auto fs = make_real_filesystem();
  ASSERT_TRUE(fs->make_dir(tmp / "a"));
  ASSERT_TRUE(fs->make_dir(tmp / "b"));
  auto c = fs->canonical(tmp / "a/../b");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->find('\\'), std::string::npos) << *c;
  EXPECT_NE(c->substr(0, 4), "//?/");
  EXPECT_EQ(c->substr(c->size() - 2), "/b");
}

TEST(Win32FileSystem, DirectorySymlinkOrJunction) {
  TempDir tmp;
  auto fs = make_real_filesystem();
  ASSERT_TRUE(fs->make_dir(tmp / "v9"));
  ASSERT_TRUE(fs->write_file(tmp / "v9/cudnn64_9.dll", "x", false));
  auto made = fs->symlink(tmp / "v9", tmp / "current");
  if (!made && running_under_wine()) {
    GTEST_SKIP() << "Wine cannot create symlinks or junctions (" << made.error().message
                 << "); covered by the in-memory filesystem tests";
  }
  ASSERT_TRUE(made) << made.error().message;
  auto l = fs->lstat(tmp / "current");
  ASSERT_TRUE(l) << l.error().message;
  EXPECT_EQ(l->type, FileType::kSymlink);
  EXPECT_TRUE(fs->is_dir(tmp / "current"));
  EXPECT_TRUE(fs->is_file(tmp / "current/cudnn64_9.dll"));
  auto target = fs->read_link(tmp / "current");
  ASSERT_TRUE(target) << target.error().message;
  EXPECT_EQ(*target, tmp / "v9");
  ASSERT_TRUE(fs->remove(tmp / "current"));
  EXPECT_TRUE(fs->is_file(tmp / "v9/cudnn64_9.dll")) << "removing the link must not touch the target";
}

TEST(Win32FileSystem, DirLinkIsAJunctionAndRenameRetargetsIt) {
  TempDir tmp;
  auto fs = make_real_filesystem();
  ASSERT_TRUE(fs->make_dir(tmp / "v9.1"));
  ASSERT_TRUE(fs->make_dir(tmp / "v9.19"));
  auto made = fs->create_dir_link(tmp / "v9.1", tmp / "current");
  if (!made && running_under_wine()) {
    GTEST_SKIP() << "Wine cannot create junctions (" << made.error().message << ")";
  }
  ASSERT_TRUE(made) << made.error().message;
  EXPECT_EQ(fs->read_link(tmp / "current").value_or(""), tmp / "v9.1");
  // The store switches `current` by making a new link and renaming it over the old one.
  ASSERT_TRUE(fs->create_dir_link(tmp / "v9.19", tmp / "current.tmp"));
  auto renamed = fs->rename(tmp / "current.tmp", tmp / "current");
  ASSERT_TRUE(renamed) << renamed.error().message;
  EXPECT_EQ(fs->read_link(tmp / "current").value_or(""), tmp / "v9.19");
  EXPECT_FALSE(fs->exists(tmp / "current.tmp"));
  EXPECT_TRUE(fs->is_dir(tmp / "v9.1")) << "the old target is untouched";
}

TEST(Win32System, EnvironmentIsWindowsWithUpperCaseKeysAndSlashes) {
  Environment env = current_environment();
  EXPECT_TRUE(env.windows());
  EXPECT_TRUE(env.vars.count("PATH")) << "keys are stored upper-case";
  for (const auto& [k, v] : env.vars) {
    for (char c : k) EXPECT_FALSE(c >= 'a' && c <= 'z') << k;
  }
  EXPECT_FALSE(env.home.empty());
  EXPECT_EQ(env.home.find('\\'), std::string::npos) << env.home;
  EXPECT_EQ(env.cwd.find('\\'), std::string::npos) << env.cwd;
}

std::string cudnnup_exe() { return CUDNNUP_BINARY; }

TEST(Win32Process, CapturesOutputAndExitCode) {
  auto r = run_process({cudnnup_exe(), "--version"}, {});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_TRUE(r->exited_normally());
  EXPECT_EQ(r->out.rfind("cudnnup ", 0), 0u) << r->out;
  auto bad = run_process({cudnnup_exe(), "doctor", "--no-such-flag"}, {});
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->exit_code, 2);
  EXPECT_NE(bad->err.find("--no-such-flag"), std::string::npos) << bad->err;
}

TEST(Win32Process, ArgumentsSurviveQuotingAsUtf8) {
  // The probe child echoes the library path it was given, so the round trip through
  // CreateProcessW and CommandLineToArgvW is visible (the request is JSON with quotes inside).
  std::string odd = "C:/dir with space/caf\xc3\xa9 \"quoted\"\\/cudnn64_9.dll";
  nlohmann::json request{{"protocol", "cudnnup.child/1"}, {"task", "probe-cudnn"}, {"events", "-"}, {"library", odd}};
  auto r = run_process({cudnnup_exe(), "__child", request.dump()}, {});
  ASSERT_TRUE(r) << r.error().message;
  nlohmann::json j;
  for (size_t at = 0, next; at < r->out.size(); at = next + 1) {
    next = r->out.find('\n', at);
    if (next == std::string::npos) next = r->out.size();
    auto e = nlohmann::json::parse(r->out.substr(at, next - at), nullptr, false);
    if (!e.is_discarded() && e.value("event", "") == "result") j = e["result"];
  }
  ASSERT_TRUE(j.is_object()) << r->out;
  EXPECT_EQ(j.value("path", ""), odd);
  EXPECT_EQ(j.value("loaded", true), false);
}

TEST(Win32Process, PassesExactlyTheGivenEnvironment) {
  ProcessOptions options;
  std::map<std::string, std::string> env = current_environment().vars;
  env["CUDNNUP_TEST_MARKER"] = "marker-42";
  options.env = env;
  auto r = run_process({"cmd.exe", "/c", "echo %CUDNNUP_TEST_MARKER%"}, options);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NE(r->out.find("marker-42"), std::string::npos) << r->out;
}

TEST(Win32Process, MissingProgramIsAnError) {
  auto r = run_process({"C:/no/such/program.exe"}, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
}

// Helper for the timeout test: sleeps only when the parent asks through the environment.
TEST(Win32ProcessHelper, SleepsWhenAsked) {
  if (!std::getenv("CUDNNUP_TEST_SLEEP")) GTEST_SKIP() << "helper for Win32Process.TimeoutKillsTheChild";
  std::this_thread::sleep_for(std::chrono::seconds(60));
}

TEST(Win32Process, TimeoutKillsTheChild) {
  ProcessOptions options;
  options.timeout_ms = 1500;
  std::map<std::string, std::string> env = current_environment().vars;
  env["CUDNNUP_TEST_SLEEP"] = "1";
  options.env = env;
  auto start = std::chrono::steady_clock::now();
  auto r = run_process({self_executable_path(), "--gtest_filter=Win32ProcessHelper.SleepsWhenAsked"}, options);
  auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->timed_out);
  EXPECT_FALSE(r->exited_normally());
  EXPECT_EQ(r->describe_failure(), "did not finish in time and was stopped");
  EXPECT_LT(took, std::chrono::seconds(30));
}

// Helper for the exec test: replaces itself (Windows: runs and exits with the child's code).
TEST(Win32ProcessHelper, ExecsWhenAsked) {
  const char* args = std::getenv("CUDNNUP_TEST_EXEC");
  if (!args) GTEST_SKIP() << "helper for Win32Process.ExecRunsTheChildAndExitsWithItsCode";
  std::vector<std::string> argv = {CUDNNUP_BINARY};
  if (std::string(args) == "version") argv.push_back("--version");
  else argv.push_back("--no-such-flag");
  Error e = exec_process(argv, current_environment().vars);
  FAIL() << "exec_process returned: " << e.message;
}

TEST(Win32Process, ExecRunsTheChildAndExitsWithItsCode) {
  for (std::string mode : {"version", "bad"}) {
    ProcessOptions options;
    std::map<std::string, std::string> env = current_environment().vars;
    env["CUDNNUP_TEST_EXEC"] = mode;
    options.env = env;
    auto r = run_process({self_executable_path(), "--gtest_filter=Win32ProcessHelper.ExecsWhenAsked"}, options);
    ASSERT_TRUE(r) << r.error().message;
    if (mode == "version") {
      EXPECT_EQ(r->exit_code, 0) << r->out << r->err;
      EXPECT_NE(r->out.find("cudnnup 0"), std::string::npos) << "the child writes to our stdout: " << r->out;
    } else {
      EXPECT_EQ(r->exit_code, 2) << "the child's exit code comes back: " << r->out << r->err;
    }
  }
}

TEST(Win32Process, DescribesCrashExceptionCodes) {
  ProcessResult crashed;
  crashed.exit_code = static_cast<int>(0xC0000005u);
  EXPECT_EQ(crashed.describe_failure(), "crashed (exception 0xC0000005, access violation)");
}

TEST(Win32Process, SelfPathIsAbsoluteWithSlashes) {
  std::string self = self_executable_path();
  EXPECT_EQ(self.find('\\'), std::string::npos);
  EXPECT_EQ(self.substr(self.size() - 4), ".exe");
}

TEST(Win32DynamicLibrary, LoadsStubAndCallsIt) {
  auto dll = testing::windows_fixture_dll("v9.19.0.56", "cudnn64_9.dll");
  if (!dll) GTEST_SKIP() << testing::kNoWindowsFixtures;
  auto lib = DynamicLibrary::open(*dll);
  ASSERT_TRUE(lib) << lib.error().message;
  using Fn = size_t (*)();
  auto get_version = lib->function<Fn>("cudnnGetVersion");
  ASSERT_NE(get_version, nullptr);
  EXPECT_EQ(get_version(), 91900u);
  EXPECT_EQ(lib->symbol("noSuchFunction"), nullptr);
}

TEST(Win32DynamicLibrary, FailuresAreExplained) {
  auto dll = testing::windows_fixture_dll("v9.19.0.56", "cudnn64_9.dll");
  if (!dll) GTEST_SKIP() << testing::kNoWindowsFixtures;
  TempDir tmp;
  auto fs = make_real_filesystem();
  // The shim without its graph library next to it: error 126.
  testing::copy_file(*dll, tmp / "alone/cudnn64_9.dll");
  auto alone = DynamicLibrary::open(tmp / "alone/cudnn64_9.dll");
  ASSERT_FALSE(alone);
  EXPECT_NE(alone.error().message.find("error 126"), std::string::npos) << alone.error().message;
  // A 0-byte file.
  ASSERT_TRUE(fs->write_file(tmp / "empty.dll", "", false));
  auto empty = DynamicLibrary::open(tmp / "empty.dll");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("empty.dll"), std::string::npos);
  // The x64 stub with its COFF machine field patched to x86 (no i686 mingw needed).
  auto bytes = fs->read_file(*testing::windows_fixture_dll("v9.19.0.56", "cudnn_ops64_9.dll"));
  ASSERT_TRUE(bytes);
  std::string patched = *bytes;
  uint32_t pe_offset = 0;
  std::memcpy(&pe_offset, patched.data() + 0x3c, 4);
  patched[pe_offset + 4] = char(0x4c);
  patched[pe_offset + 5] = char(0x01);
  testing::make_dirs(tmp / "x86");
  ASSERT_TRUE(fs->write_file(tmp / "x86/cudnn_ops64_9.dll", patched, false));
  auto x86 = DynamicLibrary::open(tmp / "x86/cudnn_ops64_9.dll");
  ASSERT_FALSE(x86);
  EXPECT_NE(x86.error().message.find("error 193"), std::string::npos) << x86.error().message;
}

TEST(Win32FileLock, SecondHolderGetsConflict) {
  TempDir tmp;
  auto first = FileLock::acquire(tmp / "lock", false);
  ASSERT_TRUE(first) << first.error().message;
  auto second = FileLock::acquire(tmp / "lock", false);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, ErrorCode::kConflict);
}

TEST(Win32FileLock, ReleasedWhenDropped) {
  TempDir tmp;
  { auto first = FileLock::acquire(tmp / "lock", false); ASSERT_TRUE(first); }
  auto again = FileLock::acquire(tmp / "lock", false);
  EXPECT_TRUE(again);
}

TEST(Win32Registry, ReadsStringsAndSubkeys) {
  auto root = read_registry_string(RegistryHive::kLocalMachine, "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion",
                                   "SystemRoot");
  ASSERT_TRUE(root) << root.error().message;
  EXPECT_NE(root->value.find(':'), std::string::npos) << root->value;
  auto keys = list_registry_subkeys(RegistryHive::kLocalMachine, "SOFTWARE\\Microsoft");
  ASSERT_TRUE(keys) << keys.error().message;
  bool has_windows = false;
  for (const auto& k : *keys) has_windows = has_windows || k == "Windows";
  EXPECT_TRUE(has_windows);
  auto missing = read_registry_string(RegistryHive::kLocalMachine,
                                      "SOFTWARE\\NVIDIA Corporation\\GPU Computing Toolkit\\CUDA\\v99.9", "InstallDir");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
}

TEST(Win32Registry, WritesExpandableStringsLongerThanSetxCanAndDeletesThem) {
  // A scratch key, not HKCU\Environment: the CLI check in scripts/test-windows.sh edits the real
  // user PATH of the throw-away prefix.
  const std::string key = "Software\\cudnnup-test-" + std::to_string(GetCurrentProcessId());
  std::string value = "%CUDA_PATH%\\bin";
  while (value.size() < 3000) value += ";C:\\Program Files\\Vendor\\Tool " + std::to_string(value.size()) + "\\bin";
  ASSERT_TRUE(write_registry_string(RegistryHive::kCurrentUser, key, "Path", value, true));
  auto back = read_registry_string(RegistryHive::kCurrentUser, key, "Path");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(back->expandable) << "written as REG_EXPAND_SZ";
  EXPECT_EQ(back->value, value) << "the whole value, %VAR% unexpanded, past 1024 characters";
  ASSERT_TRUE(write_registry_string(RegistryHive::kCurrentUser, key, "Plain", "x", false));
  auto plain = read_registry_string(RegistryHive::kCurrentUser, key, "Plain");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->expandable);
  ASSERT_TRUE(delete_registry_value(RegistryHive::kCurrentUser, key, "Path"));
  auto gone = read_registry_string(RegistryHive::kCurrentUser, key, "Path");
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code, ErrorCode::kNotFound);
  EXPECT_TRUE(delete_registry_value(RegistryHive::kCurrentUser, key, "Path")) << "deleting twice is fine";
  RegDeleteTreeW(HKEY_CURRENT_USER, std::wstring(key.begin(), key.end()).c_str());
}

TEST(Win32System, EnvironmentCarriesThePersistentPathFromTheRegistry) {
  Environment env = current_environment();
  ASSERT_TRUE(env.persistent_machine_path);
  EXPECT_NE(lower_copy(*env.persistent_machine_path).find("system32"), std::string::npos)
      << *env.persistent_machine_path;
  EXPECT_EQ(env.persistent_machine_path->find('%'), std::string::npos) << "expanded: " << *env.persistent_machine_path;
  EXPECT_TRUE(env.registry_cuda_dirs.empty()) << "no CUDA installer has run in a fresh Wine prefix";
}

TEST(Win32Binary, CudnnupExeIsStandaloneX64) {
  // Statically linked: a fresh Windows has no libstdc++-6.dll / libgcc_s_seh-1.dll / libwinpthread-1.dll.
  auto fs = make_real_filesystem();
  std::string exe = cudnnup_exe();
  auto size = fs->stat(exe);
  ASSERT_TRUE(size);
  RangeReader reader = [&](uint64_t o, size_t n) { return fs->read_range(exe, o, n); };
  auto pe = parse_pe(reader, size->size);
  ASSERT_TRUE(pe) << pe.error().message;
  EXPECT_EQ(pe->machine, kPeMachineX64);
  EXPECT_FALSE(pe->is_dll);
  for (const auto& dll : pe->imports) {
    EXPECT_EQ(dll.find("libstdc++"), std::string::npos) << dll;
    EXPECT_EQ(dll.find("libgcc"), std::string::npos) << dll;
    EXPECT_EQ(dll.find("winpthread"), std::string::npos) << dll;
  }
}

}  // namespace
}  // namespace cudnnup

#else  // !_WIN32

#include <gtest/gtest.h>

#include "platform/registry.h"

namespace cudnnup {
namespace {

TEST(Registry, IsUnsupportedOffWindows) {
  auto r = read_registry_string(RegistryHive::kLocalMachine, "SOFTWARE", "x");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kUnsupported);
  EXPECT_FALSE(list_registry_subkeys(RegistryHive::kCurrentUser, "Environment"));
  auto w = write_registry_string(RegistryHive::kCurrentUser, "Environment", "Path", "x", true);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(w.error().message.find("Windows only"), std::string::npos) << w.error().message;
  EXPECT_FALSE(delete_registry_value(RegistryHive::kCurrentUser, "Environment", "Path"));
}

}  // namespace
}  // namespace cudnnup

#endif
