// Windows PATH problems, judged from data (runs on every OS).
#include <gtest/gtest.h>

#include <algorithm>

#include "diagnose/checks.h"
#include "diagnose/windows_checks.h"

namespace cudnnup {
namespace {

Environment win(const std::string& path) {
  Environment env;
  env.os = OsKind::kWindows;
  env.vars["PATH"] = path;
  return env;
}

std::vector<std::string> windows_ids(const std::vector<Finding>& fs) {
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(f.id);
  return out;
}

TEST(WindowsChecks, StaleSessionPathNamesTheMissingCudaDirs) {
  Environment env = win("C:\\Windows\\System32;C:\\Tools");
  env.persistent_machine_path = "C:\\Windows\\System32;C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bin";
  env.persistent_user_path = "C:\\tools\\;D:\\cudnn\\bin";
  Report r;
  CudnnCopy c;
  c.lib_dir = "D:/cudnn/bin";
  c.found_via = {"toolkit"};
  r.copies.push_back(c);
  auto f = check_windows_paths(r, env);
  ASSERT_EQ(windows_ids(f), std::vector<std::string>{"windows.stale_session_path"});
  EXPECT_EQ(f[0].evidence.size(), 2u) << "C:\\tools\\ matches C:\\Tools: case and trailing slash ignored";
  EXPECT_EQ(f[0].evidence[0], "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bin");
  // A session that already has them: nothing to say.
  Environment fresh = win(*env.persistent_machine_path + ";" + *env.persistent_user_path);
  fresh.persistent_machine_path = env.persistent_machine_path;
  fresh.persistent_user_path = env.persistent_user_path;
  EXPECT_TRUE(check_windows_paths(r, fresh).empty());
}

TEST(WindowsChecks, PathOnlyCopyAndTruncatedOrLongPath) {
  Report r;
  CudnnCopy only_path;
  only_path.lib_dir = "D:/old";
  only_path.found_via = {"PATH"};
  CudnnCopy wheel;
  wheel.lib_dir = "C:/py/Lib/site-packages/nvidia/cudnn/bin";
  wheel.found_via = {"PATH", "system env C:/py"};
  r.copies = {only_path, wheel};
  Environment env = win(std::string(9000, 'x'));
  env.persistent_user_path = std::string(1024, 'y');
  auto f = windows_ids(check_windows_paths(r, env));
  EXPECT_EQ(f, (std::vector<std::string>{"windows.path_truncated", "windows.path_too_long", "windows.path_only_copy"}));
  Environment linux_env;
  EXPECT_TRUE(check_windows_paths(r, linux_env).empty());
}

// A stray cudnn64_9.dll in System32 (a hand copy): searched before PATH and by Python 3.8+, so the
// fix is to move that file aside, never a PATH change, and it is not a "PATH only" copy.
TEST(WindowsChecks, AStrayCudnnInSystem32IsMovedAsideNotFixedThroughPath) {
  Report r;
  CudnnCopy stray;
  stray.lib_dir = "C:/Windows/System32";
  stray.found_via = {"PATH"};
  stray.library_version = Version{9, 1, 0};
  CudnnLibrary dll;
  dll.path = "C:/Windows/System32/cudnn64_9.dll";
  stray.libraries = {dll};
  CudnnCopy toolkit;
  toolkit.lib_dir = "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin";
  toolkit.found_via = {"PATH"};
  toolkit.library_version = Version{9, 19, 0};
  r.copies = {stray, toolkit};
  Environment env = win("C:\\Windows\\System32;C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bin");
  env.vars["SYSTEMROOT"] = "C:\\WINDOWS";
  EXPECT_TRUE(is_windows_system_dir(env, "c:/windows/system32"));
  EXPECT_TRUE(is_windows_system_dir(env, "C:\\Windows\\SysWOW64"));
  EXPECT_FALSE(is_windows_system_dir(env, "C:/Windows/System32/drivers"));
  auto path_checks = check_windows_paths(r, env);
  for (const auto& f : path_checks) EXPECT_NE(f.subject, "C:/Windows/System32") << f.id << ": Python 3.8+ searches System32";

  auto together = check_copies_together(r, env);
  auto shadowed = std::find_if(together.begin(), together.end(), [](const Finding& f) { return f.id == "cudnn.shadowed"; });
  ASSERT_NE(shadowed, together.end());
  std::string fixes;
  for (const auto& step : shadowed->fix) {
    fixes += step.text + " |";
    for (const auto& a : step.argv) fixes += " " + a;
    fixes += "\n";
  }
  EXPECT_EQ(fixes.find("from PATH"), std::string::npos) << fixes;
  EXPECT_NE(fixes.find("administrator"), std::string::npos) << fixes;
  EXPECT_NE(fixes.find("move C:\\Windows\\System32\\cudnn64_9.dll C:\\cudnn-aside\\System32"), std::string::npos) << fixes;
}

std::string fix_lines(const Finding& f) {
  std::string fixes;
  for (const auto& step : f.fix) {
    fixes += step.text + " |";
    for (const auto& a : step.argv) fixes += " " + a;
    fixes += "\n";
  }
  return fixes;
}

// The same stray copy with nothing to shadow: still a finding of its own, "move this file aside"
// with the commands, never a PATH change; found through the system folder alone (PATH need not
// name System32) and in SysWOW64 too, which 64-bit programs never search.
TEST(WindowsChecks, AStrayCudnnInASystemFolderIsMovedAsideAlsoWhenItShadowsNothing) {
  Report r;
  CudnnCopy stray;
  stray.lib_dir = "C:/Windows/System32";
  stray.found_via = {"Windows system folder"};
  stray.library_version = Version{9, 1, 0};
  CudnnLibrary dll;
  dll.path = "C:/Windows/System32/cudnn64_9.dll";
  stray.libraries = {dll};
  r.copies = {stray};
  Environment env = win("D:\\tools");
  env.vars["SYSTEMROOT"] = "C:\\Windows";
  auto found = check_copies_together(r, env);
  ASSERT_EQ(windows_ids(found), std::vector<std::string>{"windows.stray_system_dll"});
  EXPECT_EQ(found[0].severity, Severity::kWarning);
  EXPECT_EQ(found[0].subject, "C:/Windows/System32");
  std::string fixes = fix_lines(found[0]);
  EXPECT_EQ(fixes.find("from PATH"), std::string::npos) << fixes;
  EXPECT_EQ(fixes.find("--persist"), std::string::npos) << fixes;
  EXPECT_NE(fixes.find("administrator"), std::string::npos) << fixes;
  EXPECT_NE(fixes.find("mkdir C:\\cudnn-aside\\System32"), std::string::npos) << fixes;
  EXPECT_NE(fixes.find("move C:\\Windows\\System32\\cudnn64_9.dll C:\\cudnn-aside\\System32"), std::string::npos) << fixes;
  EXPECT_TRUE(check_windows_paths(r, env).empty()) << "not a PATH matter";

  // SysWOW64 beside a proper copy: no contest (64-bit programs never search it), still a stray.
  CudnnCopy wow = stray;
  wow.lib_dir = "C:/Windows/SysWOW64";
  wow.found_via = {"Windows 32-bit system folder"};
  wow.libraries[0].path = "C:/Windows/SysWOW64/cudnn64_9.dll";
  CudnnCopy toolkit;
  toolkit.lib_dir = "C:/cuda/bin";
  toolkit.found_via = {"PATH"};
  toolkit.library_version = Version{9, 19, 0};
  r.copies = {wow, toolkit};
  auto two = check_copies_together(r, env);
  ASSERT_EQ(windows_ids(two), std::vector<std::string>{"windows.stray_system_dll"});
  EXPECT_NE(fix_lines(two[0]).find("move C:\\Windows\\SysWOW64\\cudnn64_9.dll"), std::string::npos);
}

// When the stray copy shadows another, cudnn.shadowed carries the move (above); it is not said twice.
TEST(WindowsChecks, AShadowingStrayIsReportedOnce) {
  Report r;
  CudnnCopy stray;
  stray.lib_dir = "C:/Windows/System32";
  stray.found_via = {"Windows system folder", "PATH"};
  stray.library_version = Version{9, 1, 0};
  CudnnCopy toolkit;
  toolkit.lib_dir = "C:/cuda/bin";
  toolkit.found_via = {"PATH"};
  toolkit.library_version = Version{9, 19, 0};
  r.copies = {stray, toolkit};
  Environment env = win("C:\\cuda\\bin");
  auto found = check_copies_together(r, env);
  EXPECT_EQ(windows_ids(found), std::vector<std::string>{"cudnn.shadowed"});
}

}  // namespace
}  // namespace cudnnup
