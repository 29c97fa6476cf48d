#include "core/windows_discovery.h"

#include <gtest/gtest.h>

#include "support/memory_fs.h"
#include "support/pe_builder.h"

namespace cudnnup {
namespace {

using testing::build_pe_dll;
using testing::MemoryFileSystem;

Environment windows_env(const std::string& path) {
  Environment env;
  env.os = OsKind::kWindows;
  env.vars["PATH"] = path;
  env.vars["SYSTEMROOT"] = "C:\\Windows";
  env.vars["USERPROFILE"] = "C:\\Users\\me";
  return env;
}

TEST(WindowsDiscovery, ToolkitRootsFromRegistryAndProgramFiles) {
  MemoryFileSystem fs;
  fs.add_dir("D:/Apps/NVIDIA GPU Computing Toolkit/CUDA/v12.4");
  fs.add_dir("D:/Apps/NVIDIA GPU Computing Toolkit/CUDA/v13.0");
  Environment env = windows_env("");
  env.vars["PROGRAMFILES"] = "D:\\Apps";
  WindowsRegistrySnapshot reg;
  reg.cuda_install_dirs = {{"v12.4", "D:\\Apps\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4"}};
  auto roots = windows_toolkit_roots(fs, env, reg);
  ASSERT_EQ(roots.size(), 3u);
  EXPECT_EQ(roots[0].path, "D:/Apps/NVIDIA GPU Computing Toolkit/CUDA/v12.4");
  EXPECT_EQ(roots[0].reason, "registry HKLM\\SOFTWARE\\NVIDIA Corporation\\GPU Computing Toolkit\\CUDA\\v12.4");
  EXPECT_EQ(roots[2].path, "D:/Apps/NVIDIA GPU Computing Toolkit/CUDA/v13.0");
}

TEST(WindowsDiscovery, CudnnInstallerLayoutWithPerCudaFolders) {
  MemoryFileSystem fs;
  fs.add_file("C:/Program Files/NVIDIA/CUDNN/v9.19/bin/12.9/cudnn64_9.dll", "x");
  fs.add_file("C:/Program Files/NVIDIA/CUDNN/v9.19/bin/13.0/x64/cudnn64_9.dll", "x");
  fs.add_dir("C:/Program Files/NVIDIA/CUDNN/v9.19/bin/empty");
  auto dirs = windows_cudnn_installer_dirs(fs, windows_env(""));
  std::vector<std::string> paths;
  for (const auto& d : dirs) paths.push_back(d.path);
  std::vector<std::string> expected = {"C:/Program Files/NVIDIA/CUDNN/v9.19/bin",
                                       "C:/Program Files/NVIDIA/CUDNN/v9.19/bin/12.9",
                                       "C:/Program Files/NVIDIA/CUDNN/v9.19/bin/13.0/x64"};
  EXPECT_EQ(paths, expected);
}

TEST(WindowsDiscovery, InspectDllNamesEachProblem) {
  MemoryFileSystem fs;
  fs.add_file("C:/a/empty.dll", "");
  fs.add_file("C:/a/x86.dll", build_pe_dll(kPeMachineX86, {}));
  fs.add_file("C:/a/good.dll", build_pe_dll(kPeMachineX64, {"cudnn_graph64_9.dll"}));
  fs.add_file("C:/a/lfs.dll", "version https://git-lfs.github.com/spec/v1\n");
  EXPECT_EQ(inspect_dll(fs, "C:/a/empty.dll").problems.at(0).rfind("empty file (0 bytes)", 0), 0u);
  EXPECT_NE(inspect_dll(fs, "C:/a/x86.dll").problems.at(0).find("built for x86, not x64"), std::string::npos);
  EXPECT_EQ(inspect_dll(fs, "C:/a/lfs.dll").problems.at(0), "not a PE file (no MZ header)");
  auto good = inspect_dll(fs, "C:/a/good.dll");
  EXPECT_TRUE(good.problems.empty());
  EXPECT_EQ(good.imports, std::vector<std::string>{"cudnn_graph64_9.dll"});
  std::string cut = build_pe_dll(kPeMachineX64, {"a.dll"});
  fs.add_file("C:/a/cut.dll", cut.substr(0, cut.size() - 100));
  EXPECT_EQ(inspect_dll(fs, "C:/a/cut.dll").problems.at(0).rfind("truncated: section .idata", 0), 0u);
}

TEST(WindowsDiscovery, ExpandsVariablesLikeExpandEnvironmentStrings) {
  Environment env = windows_env("");
  env.vars["CUDA_PATH"] = "C:\\CUDA\\v12.4";
  EXPECT_EQ(expand_windows_variables("%SystemRoot%\\system32;%CUDA_PATH%\\bin", env),
            "C:\\Windows\\system32;C:\\CUDA\\v12.4\\bin");
  EXPECT_EQ(expand_windows_variables("100%;%NOPE%\\x;50%", env), "100%;%NOPE%\\x;50%");
}

TEST(WindowsDiscovery, SessionPathOlderThanRegistryMeansRestart) {
  Environment env = windows_env("C:\\Windows\\system32;C:\\Users\\me\\conda\\envs\\dl\\Library\\bin");
  WindowsRegistrySnapshot reg;
  reg.system_path = "%SystemRoot%\\system32;C:\\Program Files\\NVIDIA\\CUDNN\\v9.19\\bin\\13.0";
  reg.user_path = "C:\\Users\\me\\bin";
  auto drift = compare_session_path(env, reg);
  std::vector<std::string> missing = {"C:\\Program Files\\NVIDIA\\CUDNN\\v9.19\\bin\\13.0", "C:\\Users\\me\\bin"};
  EXPECT_EQ(drift.missing_from_session, missing);
  EXPECT_EQ(drift.only_in_session, std::vector<std::string>{"C:\\Users\\me\\conda\\envs\\dl\\Library\\bin"});
  EXPECT_TRUE(drift.problems.empty());
}

TEST(WindowsDiscovery, PathCutBySetxIsFlagged) {
  WindowsRegistrySnapshot reg;
  reg.user_path = std::string(1024, 'x');
  auto drift = compare_session_path(windows_env(""), reg);
  ASSERT_EQ(drift.problems.size(), 1u);
  EXPECT_NE(drift.problems[0].find("setx"), std::string::npos);
}

TEST(WindowsDiscovery, ComparisonIgnoresCaseAndTrailingSlash) {
  Environment env = windows_env("c:\\windows\\System32\\");
  WindowsRegistrySnapshot reg;
  reg.system_path = "C:\\Windows\\system32";
  auto drift = compare_session_path(env, reg);
  EXPECT_TRUE(drift.missing_from_session.empty());
  EXPECT_TRUE(drift.only_in_session.empty());
}

}  // namespace
}  // namespace cudnnup
