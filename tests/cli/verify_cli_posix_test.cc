// POSIX-only: these run the binary on the Linux stub fixture libraries (tests/fixtures).
// End-to-end: `cudnnup verify` and `cudnnup bench` as processes, on copies built from the stub
// cuDNN fixtures (tests/fixtures). No GPU is needed: with the driver pointed at a missing file
// verify must end at the driver stage with exit code 3, and broken copies must fail at the
// library stage with the right finding.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <unistd.h>

#include "platform/process.h"
#include "support/fixture_libs.h"

namespace cudnnup {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct CliRun {
  int code = -1;
  json out;
  std::string text;
};

// `env`: extra variables for cudnnup (on top of ours).
CliRun run_cli(std::vector<std::string> args, const std::map<std::string, std::string>& env = {}) {
  args.insert(args.begin(), CUDNNUP_BINARY);
  ProcessOptions po;
  po.timeout_ms = 60000;
  if (!env.empty()) {
    std::map<std::string, std::string> all;
    for (char** e = environ; *e; ++e) {
      std::string kv = *e;
      if (auto eq = kv.find('='); eq != std::string::npos) all[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    for (const auto& [k, v] : env) all[k] = v;
    po.env = all;
  }
  auto r = run_process(args, po);
  CliRun run;
  if (!r) return run;
  run.code = r->exit_code;
  run.text = r->out;
  run.out = json::parse(r->out, nullptr, false);
  return run;
}

extern "C" char** environ;

json stage(const json& report, const std::string& id) {
  for (const auto& s : report["runs"][0]["stages"]) {
    if (s["id"] == id) return s;
  }
  return json();
}

TEST(VerifyCli, StubCopyEndsAtTheDriverStageWithoutAGpu) {
  testing::TempDir dir;
  testing::install_stub_set("v9.19.0", dir / "lib");
  testing::make_dirs(dir / "include");
  testing::write_text(dir / "include/cudnn_version.h", testing::cudnn_version_header(9, 19, 0));
  CliRun r = run_cli({"--json", "verify", "--copy", dir.path(), "--libcuda", dir / "no/libcuda.so.1"});
  ASSERT_EQ(r.code, 3) << r.text;
  EXPECT_EQ(r.out["exit_code"], 3);
  EXPECT_EQ(stage(r.out, "headers")["status"], "pass");
  EXPECT_EQ(stage(r.out, "library")["status"], "pass") << stage(r.out, "library").dump();
  EXPECT_EQ(stage(r.out, "versions")["status"], "pass") << stage(r.out, "versions").dump();
  json driver = stage(r.out, "driver");
  EXPECT_EQ(driver["status"], "fail");
  EXPECT_EQ(driver["no_gpu"], true);
  EXPECT_NE(driver["summary"].get<std::string>().find("no NVIDIA driver/GPU"), std::string::npos);
  EXPECT_EQ(stage(r.out, "conv.fwd.fp16.nhwc")["status"], "skipped");

  CliRun text = run_cli({"verify", "--copy", dir / "lib", "--libcuda", dir / "no/libcuda.so.1"});
  EXPECT_EQ(text.code, 3);
  EXPECT_NE(text.text.find("no NVIDIA driver/GPU (exit 3)"), std::string::npos) << text.text;
}

TEST(VerifyCli, TruncatedEngineLibraryFailsAtTheLibraryStage) {
  testing::TempDir dir;
  testing::install_stub_set("v9.19.0", dir / "lib");
  std::string victim = dir / "lib/libcudnn_engines_precompiled.so.9";
  fs::resize_file(victim, fs::file_size(victim) / 2);
  CliRun r = run_cli({"--json", "verify", "--copy", dir / "lib", "--libcuda", dir / "no/libcuda.so.1"});
  ASSERT_EQ(r.code, 1) << r.text;
  json lib = stage(r.out, "library");
  EXPECT_EQ(lib["status"], "fail");
  EXPECT_EQ(lib["finding"]["id"], "verify.library.sublibrary_broken");
  EXPECT_NE(lib["summary"].get<std::string>().find("libcudnn_engines_precompiled.so.9 (the file is truncated or corrupt)"),
            std::string::npos)
      << lib.dump();
  EXPECT_EQ(stage(r.out, "versions")["status"], "skipped");
  EXPECT_EQ(stage(r.out, "driver")["status"], "fail");  // still checked: it does not need cuDNN
}

TEST(VerifyCli, ATruncatedGraphLibraryIsNotReachedThroughTheOthers) {
  // Every other sub-library needs libcudnn_graph.so.9: loading any of them would map the cut file.
  testing::TempDir dir;
  testing::install_stub_set("linked9.19.0", dir / "lib");
  std::string victim = dir / "lib/libcudnn_graph.so.9";
  fs::resize_file(victim, fs::file_size(victim) / 2);
  CliRun r = run_cli({"--json", "verify", "--copy", dir / "lib", "--libcuda", dir / "no/libcuda.so.1"});
  ASSERT_EQ(r.code, 1) << r.text;
  json lib = stage(r.out, "library");
  EXPECT_EQ(lib["finding"]["id"], "verify.library.sublibrary_broken") << lib.dump();
  EXPECT_NE(lib["summary"].get<std::string>().find("libcudnn_graph.so.9 (the file is truncated or corrupt)"),
            std::string::npos)
      << lib.dump();
  EXPECT_NE(lib["finding"]["evidence"].dump().find("it needs libcudnn_graph.so.9, which is damaged"), std::string::npos);
}

TEST(VerifyCli, SubLibraryFromAnotherVersionFailsAtTheLibraryStage) {
  testing::TempDir dir;
  testing::install_stub_set("v9.19.0", dir / "lib", /*versioned_names=*/true);
  fs::remove(dir / "lib/libcudnn_cnn.so.9");
  fs::remove(dir / "lib/libcudnn_cnn.so.9.19.0");
  testing::copy_file(testing::fixture_lib("v9.14.0", "libcudnn_cnn.so.9"), dir / "lib/libcudnn_cnn.so.9.14.0");
  testing::make_symlink("libcudnn_cnn.so.9.14.0", dir / "lib/libcudnn_cnn.so.9");
  CliRun r = run_cli({"--json", "verify", "--copy", dir / "lib", "--libcuda", dir / "no/libcuda.so.1"});
  ASSERT_EQ(r.code, 1) << r.text;
  json lib = stage(r.out, "library");
  EXPECT_EQ(lib["finding"]["id"], "verify.library.sublibrary_version_mismatch") << lib.dump();
  EXPECT_NE(lib["summary"].get<std::string>().find("9.14.0"), std::string::npos);
}

TEST(VerifyCli, BadArgumentsChangeNothingAndExit2) {
  testing::TempDir dir;
  EXPECT_EQ(run_cli({"verify", "--copy", dir / "nothing-here"}).code, 2);
  EXPECT_EQ(run_cli({"verify", "--copy", dir.path()}).code, 2);  // a directory with no cuDNN
  testing::install_stub_set("v9.19.0", dir / "lib");
  EXPECT_EQ(run_cli({"verify", "--copy", dir / "lib", "--gpu", "first"}).code, 2);
  EXPECT_EQ(run_cli({"bench", "--shapes", dir / "missing.txt", "--list-cases"}).code, 2);
}

TEST(BenchCli, ListsTheCasesForThePyTorchSide) {
  CliRun r = run_cli({"bench", "--list-cases"});
  ASSERT_EQ(r.code, 0) << r.text;
  ASSERT_TRUE(r.out.is_object());
  EXPECT_EQ(r.out["cases"].size(), 15u);
  EXPECT_EQ(r.out["cases"][0]["key"], "N8 C3 64x64 K16 3x3 pad1|bf16|NHWC");
}

TEST(BenchCli, WithoutAGpuExits3) {
  testing::TempDir dir;
  testing::install_stub_set("v9.19.0", dir / "lib");
  CliRun r = run_cli({"--json", "bench", "--copy", dir / "lib", "--libcuda", dir / "no/libcuda.so.1"});
  EXPECT_EQ(r.code, 3) << r.text;
  ASSERT_TRUE(r.out.is_object()) << r.text;
  EXPECT_EQ(r.out.value("schema", ""), "cudnnup.error/1") << r.text;
  EXPECT_NE(r.out["error"].value("message", "").find("no NVIDIA driver/GPU"), std::string::npos) << r.text;
}

// A GPU number that cannot be one is the user's mistake (exit 2), never a broken copy.
TEST(BenchCli, ANegativeGpuNumberIsAUsageError) {
  testing::TempDir dir;
  testing::install_stub_set("v9.19.0", dir / "lib");
  CliRun r = run_cli({"--json", "bench", "--copy", dir / "lib", "--gpu", "-1"});
  EXPECT_EQ(r.code, 2) << r.text;
  ASSERT_TRUE(r.out.is_object()) << r.text;
  EXPECT_EQ(r.out["error"].value("code", ""), "usage") << r.text;
  EXPECT_NE(r.out["error"].value("message", "").find("--gpu"), std::string::npos) << r.text;
}

TEST(BenchCli, ACopyMissingApiIsRefusedBeforeTheDriver) {
  testing::TempDir dir;
  testing::install_stub_set("v9.19.0", dir / "lib");
  testing::copy_file(testing::fixture_lib("minimal", "libcudnn.so.9"), dir / "lib/libcudnn.so.9");
  CliRun r = run_cli({"--json", "bench", "--copy", dir / "lib", "--libcuda", dir / "no/libcuda.so.1"});
  EXPECT_EQ(r.code, 1) << r.text;
  EXPECT_EQ(r.out.value("schema", ""), "cudnnup.error/1") << r.text;
  EXPECT_NE(r.out["error"].value("message", "").find("cudnnBackendExecute"), std::string::npos) << r.text;
}

// --- the ways verify was fooled (issue: verify cannot be fooled) -----------------------------

// Every stage verify runs after the parent's two must have reported a result.
void expect_every_stage_reported(const json& report) {
  // toolkit, headers | library, versions | driver, handle | 18 conv | 3 graph | teardown, modules
  EXPECT_EQ(report["runs"][0]["stages"].size(), 2u + 2u + 2u + 18u + 3u + 2u) << report.dump(1);
  EXPECT_EQ(stage(report, "modules")["status"], "pass") << stage(report, "modules").dump();
}

TEST(VerifyCli, ASubLibraryThatExitsWithStatusZeroFailsTheRun) {
  testing::TempDir dir;
  testing::install_stub_set("v9.19.0", dir / "lib");
  testing::copy_file(testing::fixture_lib("exit0", "libcudnn_ops.so.9"), dir / "lib/libcudnn_ops.so.9");
  CliRun r = run_cli({"--json", "verify", "--copy", dir / "lib", "--libcuda", dir / "no/libcuda.so.1"});
  ASSERT_EQ(r.code, 1) << r.text;  // was 0: "all stages passed"
  json lib = stage(r.out, "library");
  EXPECT_EQ(lib["status"], "fail") << lib.dump();
  EXPECT_EQ(lib["finding"]["id"], "verify.child.incomplete") << lib.dump();
  EXPECT_NE(lib["summary"].get<std::string>().find("exited with code 0 while stage library was still running"),
            std::string::npos)
      << lib.dump();
  // What it was doing when the process ended: the shim loading ops for its version check.
  EXPECT_NE(lib["summary"].get<std::string>().find("cudnnOpsVersionCheck"), std::string::npos) << lib.dump();
  EXPECT_EQ(stage(r.out, "versions")["status"], "skipped");
}

TEST(VerifyCli, ALibraryFloodingStdoutCannotHideTheStages) {
  testing::TempDir dir;
  testing::install_stub_set("v9.19.0", dir / "lib");
  testing::copy_file(testing::fixture_lib("flood", "libcudnn_ops.so.9"), dir / "lib/libcudnn_ops.so.9");
  CliRun r = run_cli({"--json", "verify", "--copy", dir / "lib", "--libcuda", dir / "no/libcuda.so.1"});
  ASSERT_EQ(r.code, 3) << r.text.substr(0, 2000);
  EXPECT_EQ(stage(r.out, "library")["status"], "pass") << stage(r.out, "library").dump();
  EXPECT_EQ(stage(r.out, "versions")["status"], "pass");
  EXPECT_EQ(stage(r.out, "driver")["no_gpu"], true);
  expect_every_stage_reported(r.out);
}

TEST(VerifyCli, AShimWithoutTheApiFailsTheLibraryStageNotExit3) {
  testing::TempDir dir;
  testing::install_stub_set("v9.19.0", dir / "lib");
  testing::copy_file(testing::fixture_lib("minimal", "libcudnn.so.9"), dir / "lib/libcudnn.so.9");
  CliRun r = run_cli({"--json", "verify", "--copy", dir / "lib", "--libcuda", dir / "no/libcuda.so.1"});
  ASSERT_EQ(r.code, 1) << r.text;  // was 3, read by CI as "everything before the driver passed"
  json lib = stage(r.out, "library");
  EXPECT_EQ(lib["finding"]["id"], "verify.library.symbols_missing") << lib.dump();
  for (const char* name : {"cudnnBackendExecute", "cudnnConvolutionForward", "cudnnGetMaxDeviceVersion",
                           "cudnnGraphVersionCheck", "cudnnRNNForward"}) {
    EXPECT_NE(lib["summary"].get<std::string>().find(name), std::string::npos) << name;
  }
  EXPECT_EQ(stage(r.out, "versions")["status"], "skipped");
}

// A healthy 9.19 copy laid out like the real files (sub-libraries need libcudnn_graph.so.9, found
// through $ORIGIN) with another 9.x copy reachable through the user's loader environment.
TEST(VerifyCli, AnotherCopyOnLdLibraryPathOrLdPreloadDoesNotReachTheChild) {
  testing::TempDir dir;
  testing::install_stub_set("linked9.19.0", dir / "copy");
  testing::install_stub_set("linked9.14.0", dir / "other");
  const std::map<std::string, std::map<std::string, std::string>> environments = {
      {"LD_LIBRARY_PATH", {{"LD_LIBRARY_PATH", dir / "other"}}},
      {"LD_PRELOAD", {{"LD_PRELOAD", dir / "other/libcudnn_graph.so.9"}}}};
  for (const auto& [name, env] : environments) {
    CliRun r = run_cli({"--json", "verify", "--copy", dir / "copy", "--libcuda", dir / "no/libcuda.so.1"}, env);
    ASSERT_EQ(r.code, 3) << name << ": " << r.text;
    json lib = stage(r.out, "library");
    EXPECT_EQ(lib["status"], "pass") << name << ": " << lib.dump();
    EXPECT_EQ(stage(r.out, "versions")["status"], "pass") << name;
    EXPECT_EQ(r.text.find(dir / "other"), std::string::npos) << name << ": the other copy was mapped";
  }
}

// The case as reported: the real cuDNN 9.19 of the CUDA 13.0 toolkit, another 9.x copy first on
// LD_LIBRARY_PATH. Loading the sub-libraries with the user's environment bound four intact files to
// the other copy's libcudnn_graph.so.9 ("sub-library from another cuDNN release ... replace").
TEST(VerifyCli, TheRealToolkitCopyPassesWithAnotherCopyOnLdLibraryPath) {
  const std::string real = "/usr/local/cuda-13.0/lib";
  if (!fs::exists(real + "/libcudnn.so.9")) GTEST_SKIP() << "no cuDNN in " << real;
  testing::TempDir dir;
  testing::install_stub_set("linked9.14.0", dir / "other");
  CliRun r = run_cli({"--json", "verify", "--copy", real, "--libcuda", dir / "no/libcuda.so.1"},
                     {{"LD_LIBRARY_PATH", dir / "other"}});
  ASSERT_EQ(r.code, 3) << r.text;
  json lib = stage(r.out, "library");
  EXPECT_EQ(lib["status"], "pass") << lib.dump();
  EXPECT_NE(lib["evidence"].dump().find("cudnnAdvVersionCheck() = 0"), std::string::npos) << lib.dump();
  EXPECT_EQ(stage(r.out, "modules")["status"], "pass") << stage(r.out, "modules").dump();
}

TEST(VerifyCli, AModuleFromAnotherCopyIsItsOwnFindingNamingBothCopies) {
  // The shim has a DT_RPATH into the 9.14 stub set: even with verify's own library path, the
  // loader takes that copy's libcudnn_graph.so.9 when the shim asks for it by name.
  testing::TempDir dir;
  testing::install_stub_set("v9.19.0", dir / "lib");
  testing::copy_file(testing::fixture_lib("rpath_to_9.14", "libcudnn.so.9"), dir / "lib/libcudnn.so.9");
  CliRun r = run_cli({"--json", "verify", "--copy", dir / "lib", "--libcuda", dir / "no/libcuda.so.1"});
  ASSERT_EQ(r.code, 1) << r.text;
  json lib = stage(r.out, "library");
  EXPECT_EQ(lib["finding"]["id"], "verify.library.mixed_copies") << lib.dump();
  std::string title = lib["finding"]["title"];
  std::string other = fs::canonical(testing::fixture_lib("v9.14.0", "libcudnn_graph.so.9")).parent_path().string();
  EXPECT_NE(title.find(other), std::string::npos) << title;
  EXPECT_NE(title.find(fs::canonical(dir / "lib").string()), std::string::npos) << title;
  for (const auto& fix : lib["finding"]["fix"]) EXPECT_EQ(fix.get<std::string>().find("Replace"), std::string::npos);
}

TEST(VerifyCli, ACudnn8CopyCallsItsVersionChecks) {
  testing::TempDir dir;
  testing::install_stub_set("v8.9.7", dir / "lib");
  CliRun ok = run_cli({"--json", "verify", "--copy", dir / "lib", "--libcuda", dir / "no/libcuda.so.1"});
  ASSERT_EQ(ok.code, 3) << ok.text;
  std::string evidence = stage(ok.out, "library")["evidence"].dump();
  for (const char* f : {"cudnnOpsInferVersionCheck() = 0", "cudnnCnnTrainVersionCheck() = 0", "cudnnAdvTrainVersionCheck() = 0"}) {
    EXPECT_NE(evidence.find(f), std::string::npos) << f << " in " << evidence;
  }
  // cnn_infer of 8.9.0 among 8.9.7's files: no version in the file names, only the check tells.
  testing::copy_file(testing::fixture_lib("v8.9.0", "libcudnn_cnn_infer.so.8"), dir / "lib/libcudnn_cnn_infer.so.8");
  CliRun mixed = run_cli({"--json", "verify", "--copy", dir / "lib", "--libcuda", dir / "no/libcuda.so.1"});
  ASSERT_EQ(mixed.code, 1) << mixed.text;
  json lib = stage(mixed.out, "library");
  EXPECT_EQ(lib["finding"]["id"], "verify.library.sublibrary_version_mismatch") << lib.dump();
  EXPECT_NE(lib["summary"].get<std::string>().find("cudnnCnnInferVersionCheck"), std::string::npos) << lib.dump();
}

}  // namespace
}  // namespace cudnnup
