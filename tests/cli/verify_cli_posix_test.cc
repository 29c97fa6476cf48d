// POSIX-only: these run the binary on the Linux stub fixture libraries (tests/fixtures).
// End-to-end: `cudnnup verify` and `cudnnup bench` as processes, on copies built from the stub
// cuDNN fixtures (tests/fixtures). No GPU is needed: with the driver pointed at a missing file
// verify must end at the driver stage with exit code 3, and broken copies must fail at the
// library stage with the right finding.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

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

CliRun run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), CUDNNUP_BINARY);
  ProcessOptions po;
  po.timeout_ms = 60000;
  auto r = run_process(args, po);
  CliRun run;
  if (!r) return run;
  run.code = r->exit_code;
  run.text = r->out;
  run.out = json::parse(r->out, nullptr, false);
  return run;
}

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
  // The stubs have no backend API, so bench stops before it looks for the driver; either way
  // it must say why, as JSON, with a non-zero code.
  EXPECT_NE(r.code, 0);
  ASSERT_TRUE(r.out.is_object()) << r.text;
  EXPECT_TRUE(r.out.contains("error"));
}

}  // namespace
}  // namespace cudnnup
