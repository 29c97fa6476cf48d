// `cudnnup which` and doctor's Windows checks over the in-memory filesystem (pure; every OS).
#include "loader/windows/which_windows.h"

#include <gtest/gtest.h>

#include "diagnose/windows_dll_checks.h"
#include "facts/rules.h"
#include "support/memory_fs.h"
#include "support/pe_builder.h"

namespace cudnnup {
namespace {

using testing::build_pe_dll;
using testing::MemoryFileSystem;

class WhichWindows : public ::testing::Test {
 protected:
  void add_cudnn9(const std::string& dir, bool with_graph = true, uint16_t machine = kPeMachineX64) {
    fs.add_file(dir + "/cudnn64_9.dll", build_pe_dll(machine, {"KERNEL32.dll", "cudnn_graph64_9.dll"}));
    if (with_graph) fs.add_file(dir + "/cudnn_graph64_9.dll", build_pe_dll(machine, {"KERNEL32.dll"}));
    fs.add_file(dir + "/cudnn_ops64_9.dll", build_pe_dll(machine, {"KERNEL32.dll"}));
  }
  Environment env(const std::string& path) {
    Environment e;
    e.os = OsKind::kWindows;
    e.vars["PATH"] = path;
    e.vars["SYSTEMROOT"] = "C:\\Windows";
    e.cwd = "C:/Users/me/work";
    return e;
  }
  MemoryFileSystem fs;
};

TEST_F(WhichWindows, NamesForMajors) {
  EXPECT_EQ(normalize_dll_name(""), "cudnn64_9.dll");
  EXPECT_EQ(normalize_dll_name("8"), "cudnn64_8.dll");
  EXPECT_EQ(normalize_dll_name("cudnn8"), "cudnn64_8.dll");
  EXPECT_EQ(normalize_dll_name("zlibwapi"), "zlibwapi.dll");
  EXPECT_EQ(normalize_dll_name("cudnn_graph64_9.dll"), "cudnn_graph64_9.dll");
}

TEST_F(WhichWindows, PlainProgramFollowsPathOrderAndListsTheLosers) {
  add_cudnn9("C:/cudnn/9.19/bin");
  add_cudnn9("C:/cudnn/9.1/bin");
  auto r = which_windows(fs, env("C:\\cudnn\\9.19\\bin;C:\\cudnn\\9.1\\bin"), {}, "");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->library, "cudnn64_9.dll");
  ASSERT_TRUE(r->resolution.found);
  EXPECT_EQ(r->resolution.path, "C:/cudnn/9.19/bin/cudnn64_9.dll");
  EXPECT_EQ(r->resolution.rule, SearchRule::kPathVariable);
  ASSERT_EQ(r->resolution.candidates.size(), 2u);
  EXPECT_EQ(r->resolution.candidates[0].source, "PATH entry 1");
  EXPECT_EQ(r->resolution.candidates[0].entry_index, 0);
  EXPECT_EQ(r->resolution.candidates[1].source, "PATH entry 2");
  EXPECT_NE(r->resolution.candidates[1].outcome.find("loses"), std::string::npos);
  ASSERT_TRUE(r->cudnn);
  EXPECT_FALSE(r->cudnn->mixed);
  ASSERT_EQ(r->cudnn->sub_libraries.size(), 2u) << "graph and ops exist; the others exist nowhere and are noted";
  EXPECT_EQ(r->cudnn->sub_libraries[0].component, "graph");
  EXPECT_EQ(r->cudnn->sub_libraries[0].resolution.path, "C:/cudnn/9.19/bin/cudnn_graph64_9.dll");
  EXPECT_TRUE(r->problems.empty());
}

TEST_F(WhichWindows, AppDirBeatsPathForAProgram) {
  add_cudnn9("C:/cudnn/bin");
  add_cudnn9("C:/apps/train");
  fs.add_file("C:/apps/train/train.exe", build_pe_dll(kPeMachineX64, {"KERNEL32.dll", "cudnn64_9.dll"}));
  WindowsWhichTarget t;
  t.kind = "executable";
  t.program = "C:\\apps\\train\\train.exe";
  auto r = which_windows(fs, env("C:\\cudnn\\bin"), t, "9");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->resolution.path, "C:/apps/train/cudnn64_9.dll");
  EXPECT_EQ(r->resolution.rule, SearchRule::kApplicationDir);
  EXPECT_EQ(r->how_requested, "import table of C:/apps/train/train.exe");
  ASSERT_EQ(r->resolution.candidates.size(), 2u);
  EXPECT_NE(r->resolution.candidates[1].outcome.find("an earlier directory"), std::string::npos);
}

TEST_F(WhichWindows, PythonExtensionIgnoresPathButSeesAddDllDirectory) {
  add_cudnn9("C:/cudnn/bin");
  fs.add_dir("C:/py311");
  WindowsWhichTarget t;
  t.kind = "python";
  t.python_prefix = "C:/py311";
  auto r = which_windows(fs, env("C:\\cudnn\\bin"), t, "");
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->resolution.found) << "PATH is not searched";
  EXPECT_TRUE(r->resolution.failed_at.empty());
  EXPECT_EQ(r->resolution.win32_error, 126);
  ASSERT_EQ(r->resolution.candidates.size(), 1u);
  EXPECT_EQ(r->resolution.candidates[0].search_position, -1);
  EXPECT_NE(r->resolution.candidates[0].outcome.find("never searches PATH"), std::string::npos);
  EXPECT_FALSE(r->problems.empty());
  t.dll_dirs = {"C:\\cudnn\\bin"};
  auto added = which_windows(fs, env("C:\\cudnn\\bin"), t, "");
  ASSERT_TRUE(added);
  ASSERT_TRUE(added->resolution.found);
  EXPECT_EQ(added->resolution.rule, SearchRule::kAddDllDirectory);
  EXPECT_NE(added->resolution.candidates[0].source.find("os.add_dll_directory"), std::string::npos);
}

TEST_F(WhichWindows, CondaPythonFindsLibraryBin) {
  add_cudnn9("C:/conda/envs/dl/Library/bin");
  fs.add_dir("C:/conda/envs/dl/conda-meta");
  WindowsWhichTarget t;
  t.kind = "python";
  t.python_prefix = "C:/conda/envs/dl";
  auto r = which_windows(fs, env(""), t, "");
  ASSERT_TRUE(r);
  ASSERT_TRUE(r->resolution.found);
  EXPECT_EQ(r->resolution.path, "C:/conda/envs/dl/Library/bin/cudnn64_9.dll");
}

TEST_F(WhichWindows, TorchUsesItsLibAndItsPreloads) {
  std::string sp = "C:/venv/Lib/site-packages";
  add_cudnn9(sp + "/torch/lib");
  fs.add_file(sp + "/torch/version.py", "__version__ = '2.5.1+cu124'\ncuda: Optional[str] = '12.4'\n");
  add_cudnn9("C:/cudnn/bin");
  WindowsWhichTarget t;
  t.kind = "torch";
  t.python_prefix = "C:/venv";
  auto r = which_windows(fs, env("C:\\cudnn\\bin"), t, "");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->resolution.found);
  EXPECT_EQ(r->resolution.path, sp + "/torch/lib/cudnn64_9.dll");
  EXPECT_EQ(r->resolution.rule, SearchRule::kAlreadyLoaded) << "torch preloads torch\\lib\\*.dll";
  WindowsWhichTarget none = t;
  none.python_prefix = "C:/other";
  auto missing = which_windows(fs, env(""), none, "");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("no torch"), std::string::npos);
}

TEST_F(WhichWindows, EmptyWrongMachineAndMissingSubDllFailWithTheirCodes) {
  fs.add_file("C:/a/cudnn64_9.dll", "");
  add_cudnn9("C:/b");
  auto empty = which_windows(fs, env("C:\\a;C:\\b"), {}, "");
  ASSERT_TRUE(empty);
  EXPECT_FALSE(empty->resolution.found);
  EXPECT_EQ(empty->resolution.failed_at, "C:/a/cudnn64_9.dll");
  EXPECT_EQ(empty->resolution.win32_error, 193);
  auto findings = check_windows_loads({*empty});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].id, "windows.dll_load_fails");
  EXPECT_NE(findings[0].title.find("error 193 (ERROR_BAD_EXE_FORMAT)"), std::string::npos) << findings[0].title;
  EXPECT_NE(findings[0].evidence.back().find("would load instead: C:\\b\\cudnn64_9.dll"), std::string::npos);

  add_cudnn9("C:/x86", true, kPeMachineX86);
  auto x86 = which_windows(fs, env("C:\\x86"), {}, "");
  ASSERT_TRUE(x86);
  EXPECT_EQ(x86->resolution.win32_error, 193);
  EXPECT_EQ(x86->resolution.candidates[0].problem, LoadProblem::kWrongMachine);
  EXPECT_NE(x86->resolution.candidates[0].problem_detail.find("x86"), std::string::npos);

  add_cudnn9("C:/lonely", false);
  auto lonely = which_windows(fs, env("C:\\lonely"), {}, "");
  ASSERT_TRUE(lonely);
  EXPECT_EQ(lonely->resolution.win32_error, 126);
  auto f126 = check_windows_loads({*lonely});
  ASSERT_EQ(f126.size(), 1u);
  EXPECT_NE(f126[0].title.find("error 126 (ERROR_MOD_NOT_FOUND)"), std::string::npos) << f126[0].title;
}

TEST_F(WhichWindows, SubLibrariesFromAnotherFolderAreAMix) {
  fs.add_file("C:/shim/cudnn64_9.dll", build_pe_dll(kPeMachineX64, {"KERNEL32.dll"}));
  add_cudnn9("C:/full");
  auto r = which_windows(fs, env("C:\\shim;C:\\full"), {}, "");
  ASSERT_TRUE(r);
  ASSERT_TRUE(r->cudnn);
  EXPECT_TRUE(r->cudnn->mixed);
  EXPECT_TRUE(r->cudnn->sub_libraries[0].from_other_copy);
  auto f = check_windows_loads({*r});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "windows.mixed_cudnn_dlls");
}

// A copy with the given DLLs (file name -> import table) in `dir`, as discovery records it.
CudnnCopy copy_with(MemoryFileSystem& fs, const std::string& dir, Version v,
                    const std::vector<std::pair<std::string, std::vector<std::string>>>& dlls) {
  CudnnCopy c;
  c.lib_dir = dir;
  c.library_version = v;
  for (const auto& [name, imports] : dlls) {
    fs.add_file(dir + "/" + name, build_pe_dll(kPeMachineX64, imports));
    CudnnLibrary lib;
    lib.path = dir + "/" + name;
    c.libraries.push_back(lib);
  }
  return c;
}

std::string fix_text(const Finding& f) {
  std::string s;
  for (const auto& step : f.fix) s += step.text + "\n";
  return s;
}

TEST_F(WhichWindows, ZlibwapiReleasesComeFromTheRules) {
  const ZlibwapiReleases& z = builtin_rules().windows_zlibwapi;
  EXPECT_FALSE(z.covers(Version{8, 2, 4}));
  EXPECT_TRUE(z.covers(Version{8, 3, 0}));
  EXPECT_TRUE(z.covers(Version{9, 1, 0, 70}));
  EXPECT_FALSE(z.covers(Version{9, 2, 0}));
  EXPECT_FALSE(z.covers(Version{}));
  EXPECT_EQ(z.describe(), "cuDNN 8.3.0 up to (not including) 9.2.0");
  EXPECT_NE(z.source.find("https://github.com/cupy/cupy/issues/6226"), std::string::npos);
}

// The import table decides, and the texts speak of the copy's own files: a 9.1 copy is told
// about its cudnn_cnn64_9.dll and cudnn64_9.dll, never cuDNN 8's names.
TEST_F(WhichWindows, ZlibwapiIsDecidedByTheImportTableInTheCopysOwnNames) {
  Report r;
  r.copies.push_back(copy_with(fs, "C:/cudnn91/bin", Version{9, 1, 0, 70},
                               {{"cudnn64_9.dll", {"KERNEL32.dll"}}, {"cudnn_cnn64_9.dll", {"KERNEL32.dll", "ZLIBWAPI.dll"}}}));
  Environment e = env("C:\\tools");
  auto missing = check_zlibwapi(fs, e, r, builtin_rules());
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].id, "windows.zlibwapi_missing");
  EXPECT_NE(missing[0].title.find("cudnn_cnn64_9.dll of cuDNN 9.1.0.70"), std::string::npos) << missing[0].title;
  std::string all = missing[0].title + missing[0].detail + fix_text(missing[0]);
  for (const auto& ev : missing[0].evidence) all += ev;
  EXPECT_EQ(all.find("_8"), std::string::npos) << "a cuDNN 9 copy is told nothing about cuDNN 8's files: " << all;
  EXPECT_NE(fix_text(missing[0]).find("next to cudnn64_9.dll in C:\\cudnn91\\bin"), std::string::npos) << fix_text(missing[0]);
  EXPECT_NE(fix_text(missing[0]).find("cuDNN 9.2.0 or newer"), std::string::npos);
  EXPECT_NE(missing[0].detail.find("cuDNN 8.3.0 up to (not including) 9.2.0"), std::string::npos) << missing[0].detail;
  EXPECT_NE(missing[0].detail.find("Could not load library cudnn_cnn64_9.dll. Error code 126"), std::string::npos);

  // In the range but importing nothing of the kind: nothing to say.
  Report clean;
  clean.copies.push_back(copy_with(fs, "C:/cudnn91b/bin", Version{9, 1, 0, 70}, {{"cudnn64_9.dll", {"KERNEL32.dll"}}}));
  EXPECT_TRUE(check_zlibwapi(fs, e, clean, builtin_rules()).empty());
  // Outside the range but importing it: the table wins; no "move to 9.2" for a 9.5.
  Report later;
  later.copies.push_back(copy_with(fs, "C:/cudnn95/bin", Version{9, 5, 0}, {{"cudnn_ops64_9.dll", {"zlibwapi.dll"}}}));
  auto f95 = check_zlibwapi(fs, e, later, builtin_rules());
  ASSERT_EQ(f95.size(), 1u);
  EXPECT_EQ(fix_text(f95[0]).find("or newer"), std::string::npos) << fix_text(f95[0]);
  // cuDNN 8 names for a cuDNN 8 copy.
  Report eight;
  eight.copies.push_back(copy_with(fs, "C:/cudnn8/bin", Version{8, 9, 7},
                                   {{"cudnn64_8.dll", {}}, {"cudnn_cnn_infer64_8.dll", {"zlibwapi.dll"}}}));
  auto f8 = check_zlibwapi(fs, e, eight, builtin_rules());
  ASSERT_EQ(f8.size(), 1u);
  EXPECT_NE(fix_text(f8[0]).find("next to cudnn64_8.dll"), std::string::npos);
  EXPECT_NE(f8[0].title.find("cudnn_cnn_infer64_8.dll"), std::string::npos);

  Environment linux_env;
  EXPECT_TRUE(check_zlibwapi(fs, linux_env, r, builtin_rules()).empty());
}

TEST_F(WhichWindows, ZlibwapiMustBeALoadableX64DllAndTheCopysFolderComesFirst) {
  Report r;
  r.copies.push_back(copy_with(fs, "C:/cudnn8/bin", Version{8, 9, 7}, {{"cudnn_cnn_infer64_8.dll", {"zlibwapi.dll"}}}));
  Environment e = env("C:\\tools");
  fs.add_file("C:/tools/zlibwapi.dll", build_pe_dll(kPeMachineX86, {"KERNEL32.dll"}));
  auto x86 = check_zlibwapi(fs, e, r, builtin_rules());
  ASSERT_EQ(x86.size(), 1u);
  EXPECT_EQ(x86[0].id, "windows.zlibwapi_wrong_machine");
  EXPECT_NE(x86[0].title.find("error 193"), std::string::npos) << x86[0].title;

  fs.add_file("C:/cudnn8/bin/zlibwapi.dll", build_pe_dll(kPeMachineX64, {"KERNEL32.dll"}));
  EXPECT_TRUE(check_zlibwapi(fs, e, r, builtin_rules()).empty()) << "the copy's own folder comes first";
}

}  // namespace
}  // namespace cudnnup
