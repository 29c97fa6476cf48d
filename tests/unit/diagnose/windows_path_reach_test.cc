// "Is cuDNN's bin on PATH?" on Windows (diagnose/windows_path_reach.h), on the in-memory
// filesystem with PE images: never on PATH (an error, fixed through the user PATH in the
// registry), on the registry's PATH but not this terminal's (restart it), and on the user PATH
// behind another copy on the machine PATH (a warning that env --persist cannot fix).
#include "diagnose/windows_path_reach.h"

#include <gtest/gtest.h>

#include "diagnose/windows_checks.h"
#include "diagnose/windows_dll_checks.h"
#include "support/memory_fs.h"
#include "support/pe_builder.h"

namespace cudnnup {
namespace {

using testing::build_pe_dll;
using testing::MemoryFileSystem;

const std::string kToolkitBin = "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin";
const std::string kToolkitBinNative = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bin";

class WindowsPathReach : public ::testing::Test {
 protected:
  CudnnCopy add_copy(const std::string& dir, Version v, PackageForm form) {
    CudnnCopy c;
    c.lib_dir = dir;
    c.form = form;
    c.library_version = v;
    c.found_via = {"discovered"};  // not "PATH only" (windows.path_only_copy is not this test's subject)
    for (const std::string name : {"cudnn64_9.dll", "cudnn_graph64_9.dll"}) {
      fs.add_file(dir + "/" + name, build_pe_dll(kPeMachineX64, name == "cudnn64_9.dll"
                                                                     ? std::vector<std::string>{"cudnn_graph64_9.dll"}
                                                                     : std::vector<std::string>{"KERNEL32.dll"}));
      CudnnLibrary lib;
      lib.path = dir + "/" + name;
      c.libraries.push_back(lib);
    }
    report.copies.push_back(c);
    return c;
  }
  Environment env(const std::string& path) {
    Environment e;
    e.os = OsKind::kWindows;
    e.vars["PATH"] = path;
    e.vars["SYSTEMROOT"] = "C:\\Windows";
    e.cwd = "C:/Users/me";
    return e;
  }
  std::vector<Finding> check(const Environment& e) {
    return check_windows_path_reach(fs, e, report, model_windows_loads(fs, e, report));
  }
  MemoryFileSystem fs;
  Report report;
};

std::vector<std::string> reach_ids(const std::vector<Finding>& fs) {
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(f.id);
  return out;
}

// The procedure's step 4 skipped: cuDNN merged into the toolkit, its bin never put on PATH. An
// error (doctor exits 1), fixed through the user PATH in the registry, never setx.
TEST_F(WindowsPathReach, ABinNeverPutOnPathIsAnErrorFixedThroughTheUserPath) {
  add_copy(kToolkitBin, Version{9, 1, 0, 70}, PackageForm::kToolkitMerged);
  Environment e = env("C:\\Windows\\System32;C:\\Windows");
  e.persistent_machine_path = "C:\\Windows\\System32;C:\\Windows";
  e.persistent_user_path = "C:\\Users\\me\\bin";
  auto found = check(e);
  ASSERT_EQ(reach_ids(found), std::vector<std::string>{"windows.cudnn_not_on_path"});
  const Finding& f = found[0];
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_EQ(f.subject, kToolkitBin);
  EXPECT_NE(f.title.find("No program finds cudnn64_9.dll"), std::string::npos) << f.title;
  EXPECT_NE(f.detail.find("error 126"), std::string::npos);
  ASSERT_GE(f.fix.size(), 2u);
  EXPECT_EQ(f.fix[0].argv, (std::vector<std::string>{"cudnnup", "env", "--persist", "--dir", kToolkitBinNative}));
  for (const auto& step : f.fix) {
    for (const auto& word : step.argv) EXPECT_NE(word, "setx");
  }
  EXPECT_EQ(f.evidence.back(), "the registry's machine and user PATH do not reach it either");

  // Put on PATH, it is found: nothing to say.
  EXPECT_TRUE(check(env("C:\\Windows\\System32;" + kToolkitBinNative)).empty());
}

// A folder whose name holds ';' or '%' cannot be one entry of the (REG_EXPAND_SZ) PATH, and
// `env --persist --dir` refuses it: the fix says so in words instead of printing that command.
TEST_F(WindowsPathReach, AFolderThatCannotBeOnePathEntryGetsAMoveSentence) {
  for (const std::string dir : {"D:/x;bin/cudnn", "D:/cudnn %TEMP%/bin", "D:/a\"b/bin"}) {
    report = Report{};
    add_copy(dir, Version{9, 1, 0, 70}, PackageForm::kArchiveTree);
    auto found = check(env("C:\\Windows\\System32;C:\\Windows"));
    ASSERT_EQ(reach_ids(found), std::vector<std::string>{"windows.cudnn_not_on_path"}) << dir;
    ASSERT_EQ(found[0].fix.size(), 1u) << dir;
    EXPECT_TRUE(found[0].fix[0].argv.empty()) << dir;
    EXPECT_NE(found[0].fix[0].text.find("Move this copy to a folder whose name has no ';'"), std::string::npos);
  }
}

// Copies that frameworks find without PATH (a pip wheel, conda) or that cudnnup puts on PATH
// (the store) are not "missing from PATH".
TEST_F(WindowsPathReach, PythonAndStoreCopiesNeedNoPath) {
  add_copy("C:/py/Lib/site-packages/nvidia/cudnn/bin", Version{9, 1, 0}, PackageForm::kPipWheel);
  add_copy("C:/conda/envs/dl/Library/bin", Version{9, 1, 0}, PackageForm::kConda);
  add_copy("C:/Users/me/AppData/Local/cudnnup/versions/9.1.0.70+cuda12/bin", Version{9, 1, 0}, PackageForm::kStore);
  EXPECT_TRUE(check(env("C:\\Windows\\System32")).empty());
}

// A terminal started before the bin was added: the registry's PATH has it, this PATH does not
// (windows.stale_session_path says so too). Still an error here, with "restart" as the fix.
TEST_F(WindowsPathReach, ATerminalOlderThanThePathChangeIsToldToRestart) {
  CudnnCopy copy = add_copy(kToolkitBin, Version{9, 1, 0, 70}, PackageForm::kToolkitMerged);
  Environment e = env("C:\\Windows\\System32");
  e.persistent_machine_path = "C:\\Windows\\System32;" + kToolkitBinNative;
  e.persistent_user_path = "";
  auto found = check(e);
  ASSERT_EQ(reach_ids(found), std::vector<std::string>{"windows.cudnn_not_on_path"});
  EXPECT_NE(found[0].title.find("older than the registry's"), std::string::npos) << found[0].title;
  EXPECT_NE(found[0].fix[0].text.find("Close and reopen the terminal"), std::string::npos);
  for (const auto& step : found[0].fix) {
    for (const auto& word : step.argv) EXPECT_NE(word, "--persist") << "the registry already has it";
  }
  EXPECT_EQ(reach_ids(check_windows_paths(report, e)), std::vector<std::string>{"windows.stale_session_path"});
}

// The user PATH comes after the machine PATH: a copy added there (by hand or by env --persist)
// loses to an older one on the machine PATH, for every new program.
TEST_F(WindowsPathReach, AUserPathCopyBehindTheMachinePathIsAWarningWithTheMachineSideFix) {
  add_copy("C:/old/bin", Version{9, 0, 0}, PackageForm::kUnknown);
  add_copy("D:/cudnn-9.19/bin", Version{9, 19, 0}, PackageForm::kArchiveTree);
  Environment e = env("C:\\Windows\\System32;C:\\old\\bin;D:\\cudnn-9.19\\bin");
  e.persistent_machine_path = "C:\\Windows\\System32;C:\\old\\bin";
  e.persistent_user_path = "D:\\cudnn-9.19\\bin";
  auto found = check(e);
  ASSERT_EQ(reach_ids(found), std::vector<std::string>{"windows.user_path_shadowed"});
  const Finding& f = found[0];
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.subject, "D:/cudnn-9.19/bin");
  EXPECT_EQ(f.evidence[0], "wins: C:\\old\\bin\\cudnn64_9.dll (machine PATH entry 2)");
  EXPECT_EQ(f.evidence[1], "loses: D:\\cudnn-9.19\\bin\\cudnn64_9.dll (user PATH entry 1)");
  std::string words;
  for (const auto& step : f.fix) {
    for (const auto& w : step.argv) words += w + " ";
    words += "\n";
  }
  EXPECT_NE(words.find("move C:\\old\\bin\\cudnn64_9.dll C:\\old\\bin.cudnn-moved-aside"), std::string::npos) << words;
  EXPECT_EQ(words.find("--persist"), std::string::npos) << "the user PATH cannot win: " << words;

  // The other way round (the newer copy on the machine PATH) is the user's choice to make there.
  e.persistent_machine_path = "C:\\Windows\\System32";
  e.persistent_user_path = "D:\\cudnn-9.19\\bin;C:\\old\\bin";
  EXPECT_TRUE(check(e).empty());
}

}  // namespace
}  // namespace cudnnup
