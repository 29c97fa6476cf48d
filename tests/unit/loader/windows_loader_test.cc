// Which DLL Windows loads, modelled over the in-memory filesystem with Windows paths. Runs on
// every OS: the logic is pure. The "DLLs" are small valid PE images from support/pe_builder.h.
#include "loader/windows/windows_loader.h"

#include <gtest/gtest.h>

#include "support/memory_fs.h"
#include "support/pe_builder.h"

namespace cudnnup {
namespace {

using testing::build_pe_dll;
using testing::MemoryFileSystem;

const std::string kShim = "cudnn64_9.dll";
const std::string kGraph = "cudnn_graph64_9.dll";

class WindowsLoader : public ::testing::Test {
 protected:
  // A cuDNN 9 set in `dir`: the shim imports the graph library (and KERNEL32, which is always there).
  void add_cudnn(const std::string& dir, bool with_graph = true) {
    fs.add_file(dir + "/" + kShim, build_pe_dll(kPeMachineX64, {"KERNEL32.dll", kGraph}));
    if (with_graph) fs.add_file(dir + "/" + kGraph, build_pe_dll(kPeMachineX64, {"KERNEL32.dll"}));
  }

  DllSearchContext standard() {
    DllSearchContext ctx;
    ctx.application_dir = "C:/Apps/train";
    ctx.current_dir = "C:/Users/me/work";
    ctx.path = {"C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin", "C:/tools/cudnn/bin"};
    return ctx;
  }

  MemoryFileSystem fs;
};

TEST_F(WindowsLoader, FirstPathEntryWinsAndLaterOnesAreShadowed) {
  add_cudnn("C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin");
  add_cudnn("C:/tools/cudnn/bin");
  auto r = resolve_dll(fs, kShim, standard());
  ASSERT_TRUE(r.winner);
  EXPECT_EQ(r.winner->path, "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin/cudnn64_9.dll");
  EXPECT_EQ(r.winner->rule, "PATH entry 1");
  EXPECT_TRUE(r.loads);
  EXPECT_EQ(r.win32_error, 0);
  ASSERT_EQ(r.losers.size(), 1u);
  EXPECT_EQ(r.losers[0].path, "C:/tools/cudnn/bin/cudnn64_9.dll");
  EXPECT_EQ(r.losers[0].rule, "PATH entry 2");
  EXPECT_NE(r.losers[0].why_not.find("an earlier directory in the search order"), std::string::npos);
}

TEST_F(WindowsLoader, StandardOrderIsAppDirSystemWindowsCwdPath) {
  auto r = resolve_dll(fs, kShim, standard());
  std::vector<std::string> rules;
  for (const auto& d : r.search_dirs) rules.push_back(d.rule);
  std::vector<std::string> expected = {"application directory", "system directory (System32)",
                                       "16-bit system directory", "Windows directory", "current directory",
                                       "PATH entry 1", "PATH entry 2"};
  EXPECT_EQ(rules, expected);
  EXPECT_EQ(r.search_dirs[0].dir, "C:/Apps/train");
  EXPECT_EQ(r.search_dirs[1].dir, "C:/Windows/System32");
}

TEST_F(WindowsLoader, ApplicationDirBeatsPath) {
  add_cudnn("C:/tools/cudnn/bin");
  add_cudnn("C:/Apps/train");
  auto r = resolve_dll(fs, kShim, standard());
  ASSERT_TRUE(r.winner);
  EXPECT_EQ(r.winner->path, "C:/Apps/train/cudnn64_9.dll");
  EXPECT_EQ(r.winner->rule, "application directory");
  ASSERT_EQ(r.losers.size(), 1u);
  EXPECT_EQ(r.losers[0].rule, "PATH entry 2");
}

TEST_F(WindowsLoader, CurrentDirectoryComesBeforePathButAfterSystemDirs) {
  add_cudnn("C:/tools/cudnn/bin");
  add_cudnn("C:/Users/me/work");
  auto r = resolve_dll(fs, kShim, standard());
  ASSERT_TRUE(r.winner);
  EXPECT_EQ(r.winner->rule, "current directory");
  // SafeDllSearchMode off moves it right after the application directory.
  auto ctx = standard();
  ctx.safe_dll_search_mode = false;
  auto unsafe = resolve_dll(fs, kShim, ctx);
  EXPECT_EQ(unsafe.search_dirs[1].rule, "current directory (SafeDllSearchMode off)");
}

TEST_F(WindowsLoader, NamesCompareCaseInsensitively) {
  fs.add_file("C:/tools/cudnn/bin/CUDNN64_9.DLL", build_pe_dll(kPeMachineX64, {}));
  auto r = resolve_dll(fs, kShim, standard());
  ASSERT_TRUE(r.winner);
  EXPECT_EQ(r.winner->path, "C:/tools/cudnn/bin/CUDNN64_9.DLL");
  EXPECT_TRUE(r.loads);
}

TEST_F(WindowsLoader, ZeroByteDllFirstInOrderFailsWith193) {
  fs.add_file("C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin/cudnn64_9.dll", "");
  add_cudnn("C:/tools/cudnn/bin");
  auto r = resolve_dll(fs, kShim, standard());
  ASSERT_TRUE(r.winner);
  EXPECT_EQ(r.winner->rule, "PATH entry 1");
  EXPECT_EQ(r.winner->problem, DllLoadProblem::kEmpty);
  EXPECT_FALSE(r.loads);
  EXPECT_EQ(r.win32_error, 193);
  EXPECT_NE(r.explanation.find("0 bytes"), std::string::npos) << r.explanation;
  EXPECT_NE(r.explanation.find("although C:/tools/cudnn/bin/cudnn64_9.dll (PATH entry 2) would load"),
            std::string::npos)
      << r.explanation;
}

TEST_F(WindowsLoader, WrongMachineDllFailsWith193) {
  fs.add_file("C:/tools/cudnn/bin/cudnn64_9.dll", build_pe_dll(kPeMachineX86, {}));
  auto r = resolve_dll(fs, kShim, standard());
  ASSERT_TRUE(r.winner);
  EXPECT_EQ(r.winner->problem, DllLoadProblem::kWrongMachine);
  EXPECT_EQ(r.winner->problem_detail, "built for x86, the process is x64");
  EXPECT_EQ(r.win32_error, 193);
}

TEST_F(WindowsLoader, NotAPeFileFailsWith193) {
  fs.add_file("C:/tools/cudnn/bin/cudnn64_9.dll", "version https://git-lfs.github.com/spec/v1\n");
  auto r = resolve_dll(fs, kShim, standard());
  ASSERT_TRUE(r.winner);
  EXPECT_EQ(r.winner->problem, DllLoadProblem::kNotPe);
  EXPECT_EQ(r.win32_error, 193);
}

TEST_F(WindowsLoader, MissingSubDllFailsWith126) {
  add_cudnn("C:/tools/cudnn/bin", /*with_graph=*/false);
  auto r = resolve_dll(fs, kShim, standard());
  ASSERT_TRUE(r.winner);
  EXPECT_EQ(r.winner->problem, DllLoadProblem::kMissingDependency);
  EXPECT_NE(r.winner->problem_detail.find("imports cudnn_graph64_9.dll"), std::string::npos);
  EXPECT_EQ(r.win32_error, 126);
  EXPECT_FALSE(r.loads);
}

TEST_F(WindowsLoader, DependencyIsSearchedByNameNotNextToTheDll) {
  // The graph library sits in another PATH directory: the standard search still finds it.
  add_cudnn("C:/tools/cudnn/bin", /*with_graph=*/false);
  fs.add_file("C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin/" + kGraph,
              build_pe_dll(kPeMachineX64, {}));
  auto r = resolve_dll(fs, kShim, standard());
  ASSERT_TRUE(r.winner);
  EXPECT_TRUE(r.loads) << r.winner->problem_detail;
}

TEST_F(WindowsLoader, BrokenDependencyIsExplained) {
  add_cudnn("C:/tools/cudnn/bin", /*with_graph=*/false);
  fs.add_file("C:/Apps/train/" + kGraph, "");  // the app dir's 0-byte graph library is found first
  auto r = resolve_dll(fs, kShim, standard());
  ASSERT_TRUE(r.winner);
  EXPECT_EQ(r.winner->problem, DllLoadProblem::kBrokenDependency);
  EXPECT_NE(r.winner->problem_detail.find("C:/Apps/train/cudnn_graph64_9.dll"), std::string::npos);
  EXPECT_EQ(r.win32_error, 126);
}

TEST_F(WindowsLoader, PythonExtensionModeIgnoresPath) {
  add_cudnn("C:/tools/cudnn/bin");
  auto ctx = python_extension_context("C:/Python312", "C:/venv/Lib/site-packages/mypkg", {});
  ctx.path = {"C:/tools/cudnn/bin"};
  ctx.current_dir = "C:/Users/me/work";
  auto r = resolve_dll(fs, kShim, ctx);
  EXPECT_FALSE(r.winner);
  EXPECT_EQ(r.win32_error, 126);
  ASSERT_EQ(r.losers.size(), 1u);
  EXPECT_EQ(r.losers[0].search_position, -1);
  EXPECT_NE(r.losers[0].why_not.find("never searches PATH"), std::string::npos);
  EXPECT_NE(r.explanation.find("never searches PATH"), std::string::npos);
  std::vector<std::string> rules;
  for (const auto& d : r.search_dirs) rules.push_back(d.rule);
  std::vector<std::string> expected = {"folder of the module being loaded (LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR)",
                                       "application directory", "system directory (System32)"};
  EXPECT_EQ(rules, expected);
}

TEST_F(WindowsLoader, PythonExtensionModeUsesAddDllDirectory) {
  add_cudnn("C:/tools/cudnn/bin");
  add_cudnn("C:/venv/Lib/site-packages/torch/lib");
  auto ctx = python_extension_context("C:/Python312", "C:/venv/Lib/site-packages/torch",
                                      {"C:/venv/Lib/site-packages/torch/lib"});
  ctx.path = {"C:/tools/cudnn/bin"};
  auto r = resolve_dll(fs, kShim, ctx);
  ASSERT_TRUE(r.winner);
  EXPECT_EQ(r.winner->path, "C:/venv/Lib/site-packages/torch/lib/cudnn64_9.dll");
  EXPECT_EQ(r.winner->rule, "added with AddDllDirectory/os.add_dll_directory (#1)");
  EXPECT_TRUE(r.loads);
}

TEST_F(WindowsLoader, PythonExtensionModeMissesSubDllThatIsOnlyOnPath) {
  add_cudnn("C:/mylibs", /*with_graph=*/false);
  fs.add_file("C:/tools/cudnn/bin/" + kGraph, build_pe_dll(kPeMachineX64, {}));
  auto ctx = python_extension_context("C:/Python312", "C:/venv/Lib/site-packages/mypkg", {"C:/mylibs"});
  ctx.path = {"C:/tools/cudnn/bin"};
  auto r = resolve_dll(fs, kShim, ctx);
  ASSERT_TRUE(r.winner);
  EXPECT_EQ(r.winner->problem, DllLoadProblem::kMissingDependency);
  EXPECT_EQ(r.win32_error, 126);
}

TEST_F(WindowsLoader, AlreadyLoadedModuleWinsOverEverySearch) {
  add_cudnn("C:/Apps/train");
  auto ctx = standard();
  ctx.already_loaded = {"C:/venv/Lib/site-packages/torch/lib/cudnn64_9.dll"};
  auto r = resolve_dll(fs, kShim, ctx);
  ASSERT_TRUE(r.winner);
  EXPECT_EQ(r.winner->path, "C:/venv/Lib/site-packages/torch/lib/cudnn64_9.dll");
  EXPECT_EQ(r.winner->rule, "already loaded in the process");
  ASSERT_EQ(r.losers.size(), 1u);
  EXPECT_NE(r.losers[0].why_not.find("already loaded"), std::string::npos);
}

TEST_F(WindowsLoader, KnownDllsAlwaysComeFromSystem32) {
  fs.add_file("C:/Apps/train/kernel32.dll", build_pe_dll(kPeMachineX64, {}));
  auto ctx = standard();
  ctx.known_dlls = {"KERNEL32.dll"};
  auto r = resolve_dll(fs, "kernel32.dll", ctx);
  ASSERT_TRUE(r.winner);
  EXPECT_EQ(r.winner->path, "C:/Windows/System32/kernel32.dll");
  EXPECT_EQ(r.winner->rule, "KnownDLLs");
}

TEST_F(WindowsLoader, SetDllDirectoryGoesAfterAppDirAndDropsTheCurrentDir) {
  auto ctx = standard();
  ctx.set_dll_directory = "C:/sdk/bin";
  auto r = resolve_dll(fs, kShim, ctx);
  ASSERT_GE(r.search_dirs.size(), 2u);
  EXPECT_EQ(r.search_dirs[1].rule, "SetDllDirectory");
  for (const auto& d : r.search_dirs) EXPECT_EQ(d.rule.find("current directory"), std::string::npos);
}

TEST_F(WindowsLoader, ExtraPlacesAreReportedAsOutsideTheSearch) {
  add_cudnn("C:/venv/Lib/site-packages/nvidia/cudnn/bin");
  auto r = resolve_dll(fs, kShim, standard(), {"C:/venv/Lib/site-packages/nvidia/cudnn/bin"});
  EXPECT_FALSE(r.winner);
  ASSERT_EQ(r.losers.size(), 1u);
  EXPECT_EQ(r.losers[0].why_not, "its folder is not in this process's DLL search");
}

TEST(WindowsProcessSetups, CondaPythonAddsItsLibraryDirs) {
  auto dirs = conda_python_dll_directories("C:/miniconda3/envs/dl");
  std::vector<std::string> expected = {"C:/miniconda3/envs/dl/Library/mingw-w64/bin",
                                       "C:/miniconda3/envs/dl/Library/usr/bin", "C:/miniconda3/envs/dl/Library/bin",
                                       "C:/miniconda3/envs/dl/Scripts", "C:/miniconda3/envs/dl/bin"};
  EXPECT_EQ(dirs, expected);
}

TEST(WindowsProcessSetups, TorchAddsItsLibAndTheToolkitOnlyWithoutBundledCudart) {
  MemoryFileSystem fs;
  fs.add_dir("C:/venv/Lib/site-packages/torch/lib");
  fs.add_dir("C:/venv/Library/bin");
  fs.add_dir("C:/CUDA/v12.4/bin");
  Environment env;
  env.os = OsKind::kWindows;
  env.vars["CUDA_PATH_V12_4"] = "C:\\CUDA\\v12.4";
  auto dirs = torch_dll_directories(fs, env, "C:/venv/Lib/site-packages/torch", "C:/venv", "", "12.4");
  std::vector<std::string> expected = {"C:/venv/Lib/site-packages/torch/lib", "C:/venv/Library/bin",
                                       "C:/CUDA/v12.4/bin"};
  EXPECT_EQ(dirs, expected);
  // A wheel that bundles the CUDA runtime does not add the toolkit.
  fs.add_file("C:/venv/Lib/site-packages/torch/lib/cudart64_12.dll", build_pe_dll(kPeMachineX64, {}));
  dirs = torch_dll_directories(fs, env, "C:/venv/Lib/site-packages/torch", "C:/venv", "", "12.4");
  EXPECT_EQ(dirs.size(), 2u);
}

TEST(WindowsProcessSetups, TorchPreloadsEveryDllInTorchLib) {
  MemoryFileSystem fs;
  fs.add_file("C:/t/torch/lib/cudnn64_9.dll", "x");
  fs.add_file("C:/t/torch/lib/c10.dll", "x");
  fs.add_file("C:/t/torch/lib/torch.lib", "x");
  auto dlls = torch_preloaded_dlls(fs, "C:/t/torch");
  std::vector<std::string> expected = {"C:/t/torch/lib/c10.dll", "C:/t/torch/lib/cudnn64_9.dll"};
  EXPECT_EQ(dlls, expected);
}

}  // namespace
}  // namespace cudnnup
