#include "shell/shell_env.h"

#include <gtest/gtest.h>

#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;

std::string env_value_of(const EnvPlan& plan, const std::string& name) {
  for (const auto& c : plan.changes) {
    if (c.name == name) return c.value.value_or("<unset>");
  }
  return "<absent>";
}

TEST(ShellEnv, SelectedFirstOtherCopiesGoneMixedDirsKept) {
  MemoryFileSystem fs;
  fs.add_file("/s/versions/A/lib/libcudnn.so.9");
  fs.add_file("/s/versions/B/lib/libcudnn.so.9");
  fs.add_symlink("/s/current", "/s/versions/B");
  fs.add_file("/opt/cudnn8/lib/libcudnn.so.8");         // only cuDNN: another copy
  fs.add_file("/opt/cudnn8/lib/libcudnn_ops_infer.so.8");
  fs.add_file("/usr/local/cuda/lib64/libcudnn.so.9");   // cuDNN merged into a toolkit
  fs.add_file("/usr/local/cuda/lib64/libcudart.so.13");
  fs.add_file("/opt/other/lib/libfoo.so.1");
  Environment env;
  env.vars["LD_LIBRARY_PATH"] =
      "/opt/other/lib:/s/versions/B/lib:/usr/local/cuda/lib64::/opt/cudnn8/lib:/s/current/lib:/s/versions/A/lib";
  env.vars["CPATH"] = "/s/versions/B/include";
  EnvInputs in{"/s/versions/A", {"/s/versions/B", "/s/current"}, {}};
  EnvPlan plan = plan_environment(fs, env, in);
  EXPECT_EQ(env_value_of(plan, "LD_LIBRARY_PATH"), "/s/versions/A/lib:/opt/other/lib:/usr/local/cuda/lib64:");
  EXPECT_EQ(env_value_of(plan, "CPATH"), "/s/versions/A/include");
  EXPECT_EQ(env_value_of(plan, "LIBRARY_PATH"), "/s/versions/A/lib");
  EXPECT_EQ(env_value_of(plan, "CUDNN_PATH"), "/s/versions/A");
  EXPECT_EQ(env_value_of(plan, "CUDNN_HOME"), "/s/versions/A");
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("/usr/local/cuda/lib64"), std::string::npos);
  EXPECT_EQ(plan.removed.size(), 4u);  // B/lib, /opt/cudnn8/lib, current/lib (LD) and B/include (CPATH)
}

TEST(ShellEnv, CurrentAliasOfTheSelectedVersionIsNotRemovedTwice) {
  MemoryFileSystem fs;
  fs.add_file("/s/versions/A/lib/libcudnn.so.9");
  fs.add_symlink("/s/current", "/s/versions/A");
  Environment env;
  env.vars["LD_LIBRARY_PATH"] = "/s/current/lib:/x";
  EnvPlan plan = plan_environment(fs, env, EnvInputs{"/s/versions/A", {"/s/current"}, {}});
  EXPECT_EQ(env_value_of(plan, "LD_LIBRARY_PATH"), "/s/versions/A/lib:/x");
  EXPECT_TRUE(plan.removed.empty());
}

TEST(ShellEnv, WindowsUsesPathAndBin) {
  MemoryFileSystem fs;
  fs.add_file("C:/s/versions/A/bin/cudnn64_9.dll");
  fs.add_file("C:/s/versions/B/bin/cudnn64_9.dll");
  fs.add_file("C:/Windows/System32/kernel32.dll");
  Environment env;
  env.os = OsKind::kWindows;
  env.vars["PATH"] = "C:/Windows/System32;C:/s/versions/B/bin";
  EnvPlan plan = plan_environment(fs, env, EnvInputs{"C:/s/versions/A", {"C:/s/versions/B"}, {}});
  EXPECT_EQ(env_value_of(plan, "PATH"), "C:/s/versions/A/bin;C:/Windows/System32");
  EXPECT_EQ(env_value_of(plan, "LIB"), "C:/s/versions/A/lib/x64") << "MSVC's link reads LIB";
  EXPECT_EQ(env_value_of(plan, "INCLUDE"), "C:/s/versions/A/include") << "MSVC's cl reads INCLUDE";
  EXPECT_EQ(env_value_of(plan, "LIBRARY_PATH"), "<absent>") << "what MSVC ignores is not set";
  EXPECT_EQ(env_value_of(plan, "CPATH"), "<absent>");
  EXPECT_EQ(env_value_of(plan, "LD_LIBRARY_PATH"), "<absent>");
}

TEST(ShellEnv, WindowsKeepsMsvcsOwnIncludeAndLibFoldersAfterTheSelectedOnes) {
  MemoryFileSystem fs;
  fs.add_file("C:/s/versions/A/bin/cudnn64_9.dll");
  fs.add_file("C:/s/versions/B/lib/x64/cudnn.lib");
  fs.add_file("C:/VS/VC/lib/x64/msvcrt.lib");
  Environment env;
  env.os = OsKind::kWindows;
  env.vars["LIB"] = "C:/s/versions/B/lib/x64;C:/VS/VC/lib/x64";
  env.vars["INCLUDE"] = "C:/VS/VC/include";
  EnvPlan plan = plan_environment(fs, env, EnvInputs{"C:/s/versions/A", {"C:/s/versions/B"}, {}});
  EXPECT_EQ(env_value_of(plan, "LIB"), "C:/s/versions/A/lib/x64;C:/VS/VC/lib/x64") << "another version's folder goes, MSVC's stays";
  EXPECT_EQ(env_value_of(plan, "INCLUDE"), "C:/s/versions/A/include;C:/VS/VC/include");
  EXPECT_EQ(environment_variable_names(true)[1], "LIB");
  EXPECT_EQ(environment_variable_names(true)[2], "INCLUDE");
  EXPECT_EQ(environment_variable_names(false)[2], "CPATH");
}

// Under `system` only the store's own directories go, and CUDNN_PATH/CUDNN_HOME when they name a
// store version; the machine's copies stay, and a variable without store entries is not touched.
TEST(ShellEnv, SystemTakesOutOnlyTheStore) {
  MemoryFileSystem fs;
  fs.add_file("/s/versions/A/lib/libcudnn.so.9");
  fs.add_file("/s/versions/B/lib/libcudnn.so.9");
  fs.add_symlink("/s/current", "/s/versions/B");
  fs.add_file("/opt/cudnn8/lib/libcudnn.so.8");  // the machine's own copy
  Environment env;
  env.vars["LD_LIBRARY_PATH"] = "/s/versions/A/lib:/opt/cudnn8/lib::/s/current/lib:/x y";
  env.vars["CPATH"] = "/usr/include";
  env.vars["CUDNN_PATH"] = "/s/versions/A";
  env.vars["CUDNN_HOME"] = "/opt/cudnn8";
  EnvInputs in{"", {"/s/versions/A", "/s/versions/B", "/s/current"}, {}};
  EnvPlan plan = plan_system_environment(fs, env, in);
  EXPECT_EQ(env_value_of(plan, "LD_LIBRARY_PATH"), "/opt/cudnn8/lib::/x y");
  EXPECT_EQ(env_value_of(plan, "CPATH"), "<absent>") << "nothing of the store in it: left alone";
  EXPECT_EQ(env_value_of(plan, "LIBRARY_PATH"), "<absent>") << "unset stays unset";
  EXPECT_EQ(env_value_of(plan, "CUDNN_PATH"), "<unset>");
  EXPECT_EQ(env_value_of(plan, "CUDNN_HOME"), "<absent>");
  EXPECT_EQ(plan.removed.size(), 3u);  // A/lib, current/lib, CUDNN_PATH
}

// The hooks save and restore exactly the variables the plans set.
TEST(ShellEnv, TheVariableNamesAreThoseThePlanSets) {
  MemoryFileSystem fs;
  for (bool windows : {false, true}) {
    Environment env;
    if (windows) env.os = OsKind::kWindows;
    EnvPlan plan = plan_environment(fs, env, EnvInputs{"/s/versions/A", {}, {}});
    std::vector<std::string> names;
    for (const auto& c : plan.changes) names.push_back(c.name);
    EXPECT_EQ(names, environment_variable_names(windows));
  }
}

TEST(ShellEnv, RendersQuotedForEachShell) {
  EnvPlan plan;
  plan.changes.push_back({"CUDNN_PATH", std::string("/a b/it's")});
  plan.changes.push_back({"GONE", std::nullopt});
  EXPECT_EQ(*render_environment(plan, Shell::kBash), "export CUDNN_PATH='/a b/it'\\''s';\nunset GONE;\n");
  EXPECT_EQ(*render_environment(plan, Shell::kFish), "set -gx CUDNN_PATH '/a b/it\\'s';\nset -e GONE;\n");
  EXPECT_EQ(*render_environment(plan, Shell::kPwsh),
            "$env:CUDNN_PATH = '/a b/it''s'\nRemove-Item Env:GONE -ErrorAction SilentlyContinue\n");
  EXPECT_EQ(*render_environment(plan, Shell::kCmd), "set \"CUDNN_PATH=/a b/it's\"\nset GONE=\n");
  EXPECT_FALSE(parse_shell("tcsh"));
  EXPECT_EQ(parse_shell("powershell"), Shell::kPwsh);
}

}  // namespace
}  // namespace cudnnup
