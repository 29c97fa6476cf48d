// Discovery logic on the in-memory filesystem: toolkit versions, Python envs, copy grouping.
#include <gtest/gtest.h>

#include <map>

#include "discover/discovery.h"
#include "discover/python_envs.h"
#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;

Environment discovery_linux_env(std::map<std::string, std::string> vars) {
  Environment env;
  env.vars = std::move(vars);
  env.home = "/home/u";
  return env;
}

TEST(FindToolkits, VersionFromEachSourceAndAliasesDeduplicated) {
  MemoryFileSystem fs;
  fs.add_file("/usr/local/cuda-12.4/version.json", R"({"cuda": {"name": "CUDA SDK", "version": "12.4.1"}})");
  fs.add_file("/usr/local/cuda-12.4/bin/nvcc", "");
  fs.add_symlink("/usr/local/cuda", "/usr/local/cuda-12.4");
  fs.add_file("/usr/local/cuda-11.2/version.txt", "CUDA Version 11.2.152\n");
  fs.add_file("/opt/cuda-x/targets/x86_64-linux/include/cuda.h", "#define CUDA_VERSION 13000\n");
  fs.add_dir("/opt/cuda-x/nvvm");
  fs.add_file("/usr/local/bin/nvcc", "#!/bin/sh\nexec /usr/local/cuda-12.4/bin/nvcc \"$@\"\n");
  std::vector<ScanIssue> issues;
  auto tks = find_toolkits(fs, discovery_linux_env({{"PATH", "/usr/local/bin:/usr/bin"}, {"CUDA_HOME", "/nope"}}), &issues);
  ASSERT_EQ(tks.size(), 3u);
  EXPECT_EQ(tks[0].root, "/usr/local/cuda-12.4");  // via nvcc wrapper on PATH, first
  EXPECT_EQ(tks[0].version.str(), "12.4.1");
  EXPECT_EQ(tks[0].version_source, "version.json");
  EXPECT_EQ(tks[0].aliases, std::vector<std::string>{"/usr/local/cuda"});
  EXPECT_EQ(tks[1].version.str(), "11.2.152");
  EXPECT_EQ(tks[2].version.str(), "13.0");
  EXPECT_EQ(tks[2].version_source, "cuda.h");
  ASSERT_EQ(issues.size(), 1u);  // CUDA_HOME points nowhere: said, not fatal
  EXPECT_NE(issues[0].message.find("CUDA_HOME"), std::string::npos);
}

TEST(FindPythonEnvs, FromPathVirtualEnvCondaListAndEnvsDirs) {
  MemoryFileSystem fs;
  fs.add_file("/home/u/venv/pyvenv.cfg", "home = /usr/bin\n");
  fs.add_file("/home/u/venv/bin/python3", "");
  fs.add_dir("/home/u/venv/lib/python3.12/site-packages");
  fs.add_dir("/home/u/miniconda3/conda-meta");
  fs.add_dir("/home/u/miniconda3/lib/python3.11/site-packages");
  fs.add_dir("/home/u/miniconda3/envs/a/conda-meta");
  fs.add_dir("/home/u/miniconda3/envs/a/lib/python3.10/site-packages");
  fs.add_dir("/data/envs/b/conda-meta");
  fs.add_dir("/data/envs/b/lib/python3.9/site-packages");
  fs.add_file("/home/u/.conda/environments.txt", "/data/envs/b\r\n/gone\n");
  fs.add_dir("/home/u/empty-env/bin");  // no site-packages: not an env
  std::vector<ScanIssue> issues;
  auto envs = find_python_envs(fs, discovery_linux_env({{"PATH", "/home/u/venv/bin:/home/u/empty-env/bin"},
                                              {"VIRTUAL_ENV", "/home/u/venv"}}),
                               &issues);
  std::vector<std::string> prefixes;
  for (const auto& e : envs) prefixes.push_back(e.prefix);
  EXPECT_EQ(prefixes, (std::vector<std::string>{"/home/u/venv", "/data/envs/b", "/home/u/miniconda3",
                                                "/home/u/miniconda3/envs/a"}));
  EXPECT_EQ(envs[0].kind, "venv");
  EXPECT_EQ(envs[0].found_via, (std::vector<std::string>{"VIRTUAL_ENV", "PATH"}));
  EXPECT_EQ(envs[0].interpreter, "/home/u/venv/bin/python3");
  EXPECT_EQ(envs[1].kind, "conda");
}

TEST(ScanCopies, GroupsByDirectoryAndMajorAndSurvivesUnreadableDirs) {
  MemoryFileSystem fs;
  fs.add_file("/x/lib/libcudnn.so.9", "\x7f" "ELF");
  fs.add_file("/x/lib/libcudnn.so.8.9.7", "");
  fs.add_symlink("/x/lib/libcudnn.so.8", "libcudnn.so.8.9.7");
  fs.add_file("/x/lib/libcudnn_static_v9.a", "");
  fs.add_dir("/locked");
  fs.set_unreadable("/locked");
  std::vector<Toolkit> toolkits;
  std::vector<PythonEnv> envs;
  Environment env = discovery_linux_env({{"LD_LIBRARY_PATH", "/locked:/x/lib:/missing"}});
  DiscoveryInputs in{fs, env, toolkits, envs, {}, ""};
  std::vector<std::string> searched;
  std::vector<ScanIssue> issues;
  auto copies = scan_cudnn_copies(in, candidate_library_dirs(in), &searched, &issues);
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(copies[0].libraries.front().major, 9);
  EXPECT_EQ(copies[1].library_version.str(), "8.9.7");
  EXPECT_EQ(copies[1].libraries.size(), 2u);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "/locked");
  // Every library's problems were read, not loaded: the 4-byte "ELF" is cut short.
  EXPECT_FALSE(copies[0].libraries.front().problems.empty());
  EXPECT_EQ(copies[1].libraries.front().problems.front().substr(0, 10), "empty file");
}

// A conda env's copy is named by its conda-meta record: libcudnn (conda-forge's package with
// the libraries from 9.x) before the cudnn meta-package; from the records read with the
// environment, or from conda-meta itself for an env that is not in the list.
TEST(ScanCopies, ACondaCopyIsNamedByItsCondaMetaRecord) {
  MemoryFileSystem fs;
  fs.add_file("/opt/conda/envs/tf/lib/libcudnn.so.9", "");
  fs.add_dir("/opt/conda/envs/tf/conda-meta");
  fs.add_file("/data/old/lib/libcudnn.so.8", "");
  fs.add_file("/data/old/conda-meta/cudnn-8.9.7.29-hbc23b4c_3.json", R"({"name": "cudnn", "version": "8.9.7.29"})");
  fs.add_file("/data/old/conda-meta/python-3.10.14-h955ad1f_1.json", "{}");
  std::vector<Toolkit> toolkits;
  std::vector<PythonEnv> envs(1);
  envs[0].prefix = "/opt/conda/envs/tf";
  envs[0].kind = "conda";
  envs[0].conda_packages = {{"cudnn", "9.3.0.75", "h93bb076_0", ""}, {"libcudnn", "9.3.0.75", "hf36481c_2", ""}};
  Environment env = discovery_linux_env({{"LD_LIBRARY_PATH", "/data/old/lib"}});
  DiscoveryInputs in{fs, env, toolkits, envs, {}, ""};
  std::vector<std::string> searched;
  std::vector<ScanIssue> issues;
  auto copies = scan_cudnn_copies(in, candidate_library_dirs(in), &searched, &issues);
  std::map<std::string, const CudnnCopy*> by_dir;
  for (const auto& c : copies) by_dir[c.lib_dir] = &c;
  ASSERT_TRUE(by_dir.count("/opt/conda/envs/tf/lib") && by_dir.count("/data/old/lib")) << copies.size();
  EXPECT_EQ(by_dir["/opt/conda/envs/tf/lib"]->form, PackageForm::kConda);
  EXPECT_EQ(by_dir["/opt/conda/envs/tf/lib"]->package, "libcudnn 9.3.0.75");
  EXPECT_EQ(by_dir["/data/old/lib"]->form, PackageForm::kConda);
  EXPECT_EQ(by_dir["/data/old/lib"]->package, "cudnn 8.9.7.29");
}

}  // namespace
}  // namespace cudnnup

namespace cudnnup {
namespace {

// Fuzz finds (discovery, on the code before the checked numbers): a folder number too long for an
// int made std::stoi throw in classify_copy. Such a folder is still a copy, of no known CUDA major.
TEST(ScanCopies, FolderNumbersThatDoNotFitGiveNoCudaMajor) {
  MemoryFileSystem fs;
  const std::string inst = "C:/Program Files/NVIDIA/CUDNN/v9.4/bin/18446744073709551616.6";
  fs.add_file(inst + "/cudnn64_9.dll", "MZ");
  Environment win;
  win.os = OsKind::kWindows;
  win.home = "C:/Users/u";
  win.vars = {{"PATH", inst}};
  std::vector<Toolkit> toolkits;
  std::vector<PythonEnv> envs;
  std::vector<std::string> searched;
  std::vector<ScanIssue> issues;
  DiscoveryInputs in{fs, win, toolkits, envs, {}, ""};
  auto copies = scan_cudnn_copies(in, candidate_library_dirs(in), &searched, &issues);
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(copies[0].form, PackageForm::kInstaller);
  EXPECT_EQ(copies[0].cuda_major, 0);

  MemoryFileSystem lfs;
  const std::string tree = "/opt/cudnn-linux-x86_64-9.1.0.70_cuda99999999999-archive";
  lfs.add_file(tree + "/lib/libcudnn.so.9", "");
  Environment env = discovery_linux_env({{"LD_LIBRARY_PATH", tree + "/lib"}});
  DiscoveryInputs lin{lfs, env, toolkits, envs, {}, ""};
  copies = scan_cudnn_copies(lin, candidate_library_dirs(lin), &searched, &issues);
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(copies[0].form, PackageForm::kArchiveTree);
  EXPECT_EQ(copies[0].cuda_major, 0);
}

// Windows layouts, described on the in-memory filesystem (runs on every OS).
TEST(WindowsDiscovery, ToolkitInstallerPipAndPathCopies) {
  MemoryFileSystem fs;
  const std::string tk = "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4";
  fs.add_file(tk + "/include/cuda.h", "#define CUDA_VERSION 12040\n");
  fs.add_file(tk + "/bin/nvcc.exe", "");
  fs.add_file(tk + "/bin/cudnn64_9.dll", "MZ");
  fs.add_file(tk + "/bin/cudnn_ops64_9.dll", "MZ");
  fs.add_file(tk + "/include/cudnn_version.h", "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n");
  const std::string inst = "C:/Program Files/NVIDIA/CUDNN/v9.19";
  fs.add_file(inst + "/bin/12.9/x64/cudnn64_9.dll", "MZ");
  fs.add_file(inst + "/include/12.9/cudnn_version.h", "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n");
  const std::string py = "C:/Users/u/AppData/Local/Programs/Python/Python312";
  fs.add_file(py + "/python.exe", "");
  fs.add_file(py + "/Lib/site-packages/nvidia/cudnn/bin/cudnn64_9.dll", "MZ");
  fs.add_dir(py + "/Lib/site-packages/nvidia_cudnn_cu12-9.1.0.70.dist-info");
  fs.add_file("D:/old/cudnn64_8.dll", "MZ");

  Environment env;
  env.os = OsKind::kWindows;
  env.home = "C:/Users/u";
  env.vars = {{"PATH", "D:\\old;" + py + ";C:\\Windows\\System32"},
              {"CUDA_PATH", "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4"},
              {"LOCALAPPDATA", "C:/Users/u/AppData/Local"}};
  std::vector<ScanIssue> issues;
  auto toolkits = find_toolkits(fs, env, &issues);
  ASSERT_EQ(toolkits.size(), 1u);
  EXPECT_EQ(toolkits[0].version.str(), "12.4");
  EXPECT_EQ(toolkits[0].nvcc, tk + "/bin/nvcc.exe");
  auto envs = find_python_envs(fs, env, &issues);
  ASSERT_EQ(envs.size(), 1u);
  DiscoveryInputs in{fs, env, toolkits, envs, {}, "C:/Users/u/AppData/Local/cudnnup"};
  std::vector<std::string> searched;
  auto copies = scan_cudnn_copies(in, candidate_library_dirs(in), &searched, &issues);
  std::map<std::string, const CudnnCopy*> by_dir;
  for (const auto& c : copies) by_dir[c.lib_dir] = &c;
  ASSERT_EQ(copies.size(), 4u);
  EXPECT_EQ(copies[0].lib_dir, "D:/old") << "PATH order comes first";
  EXPECT_EQ(copies[0].libraries[0].major, 8);
  ASSERT_TRUE(by_dir.count(tk + "/bin"));
  EXPECT_EQ(by_dir[tk + "/bin"]->form, PackageForm::kToolkitMerged);
  EXPECT_EQ(by_dir[tk + "/bin"]->header_version.str(), "9.1.0");
  ASSERT_TRUE(by_dir.count(inst + "/bin/12.9/x64"));
  EXPECT_EQ(by_dir[inst + "/bin/12.9/x64"]->form, PackageForm::kInstaller);
  EXPECT_EQ(by_dir[inst + "/bin/12.9/x64"]->cuda_major, 12);
  EXPECT_EQ(by_dir[inst + "/bin/12.9/x64"]->header_version.str(), "9.19.0");
  const std::string wheel = py + "/Lib/site-packages/nvidia/cudnn/bin";
  ASSERT_TRUE(by_dir.count(wheel));
  EXPECT_EQ(by_dir[wheel]->form, PackageForm::kPipWheel);
  EXPECT_EQ(by_dir[wheel]->package, "nvidia-cudnn-cu12 9.1.0.70");
}

// System32, the Windows folder and SysWOW64 are looked in whether PATH names them or not: every
// 64-bit program searches the first two before PATH; a cuDNN DLL in any of them is a stray copy.
TEST(WindowsDiscovery, SystemFoldersAreLookedInWithoutPath) {
  MemoryFileSystem fs;
  fs.add_file("C:/WINDOWS/System32/cudnn64_9.dll", "MZ");
  fs.add_file("C:/WINDOWS/SysWOW64/cudnn64_8.dll", "MZ");
  Environment env;
  env.os = OsKind::kWindows;
  env.vars = {{"PATH", "D:\\tools"}, {"SYSTEMROOT", "C:\\WINDOWS"}};
  std::vector<ScanIssue> issues;
  std::vector<Toolkit> toolkits;
  std::vector<PythonEnv> envs;
  DiscoveryInputs in{fs, env, toolkits, envs, {}, ""};
  auto candidates = candidate_library_dirs(in);
  ASSERT_GE(candidates.size(), 3u);
  EXPECT_EQ(candidates[0].path, "C:/WINDOWS/System32") << "searched before PATH, so listed first";
  EXPECT_EQ(candidates[0].reason, kWindowsSystemFolderReason);
  std::vector<std::string> searched;
  auto copies = scan_cudnn_copies(in, candidates, &searched, &issues);
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(copies[0].lib_dir, "C:/WINDOWS/System32");
  EXPECT_EQ(copies[0].found_via, std::vector<std::string>{kWindowsSystemFolderReason});
  EXPECT_EQ(copies[1].lib_dir, "C:/WINDOWS/SysWOW64");
  EXPECT_EQ(copies[1].found_via, std::vector<std::string>{kWindows32BitSystemFolderReason});
}

}  // namespace
}  // namespace cudnnup
