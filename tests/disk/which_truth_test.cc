// Prediction against truth: small programs built with chosen RPATH/RUNPATH (and one linked with
// -lcudnn against the real toolkit copy, when present) really run under ld.so and print the cuDNN
// files in their /proc/self/maps; `cudnnup which --for` that program must name the same files.
// Linux loader fixtures (tests/fixtures/loader.cmake) are built only off Windows.
#ifdef CUDNNUP_FIXTURE_DIR
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "base/paths.h"
#include "binfmt/proc_maps.h"
#include "platform/process.h"
#include "platform/real_filesystem.h"
#include "support/fixture_libs.h"
#include "support/loader_fixtures.h"
#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using testing::copy_file;
using testing::loader_fixture;
using testing::make_loading_copy;
using testing::TempDir;

std::map<std::string, std::string> child_env(const std::string& ld_library_path) {
  std::map<std::string, std::string> env = {{"PATH", "/usr/bin:/bin"}, {"HOME", "/tmp"}, {"NO_COLOR", "1"}};
  if (!ld_library_path.empty()) env["LD_LIBRARY_PATH"] = ld_library_path;
  return env;
}

// "libcudnn_graph.so.9" -> "graph"; the shim -> "cudnn".
std::string component_of(const std::string& path) {
  std::string base(paths::basename(path));
  if (base.rfind("libcudnn_", 0) == 0) return base.substr(9, base.find(".so") - 9);
  return "cudnn";
}

struct Truth {
  bool loaded = false;
  std::map<std::string, std::string> files;  // component -> canonical path
  std::string raw;
};

Truth run_probe(const std::string& probe, const std::vector<std::string>& args, const std::string& llp) {
  std::vector<std::string> argv = {probe};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions options;
  options.env = child_env(llp);
  auto result = run_process(argv, options);
  EXPECT_TRUE(result) << "cannot start " << probe;
  Truth truth;
  if (!result) return truth;
  truth.raw = result->out + result->err;
  truth.loaded = result->exit_code == 0;
  auto fs = make_real_filesystem();
  std::istringstream lines(result->out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("mapped ", 0) != 0) continue;
    std::string path = line.substr(7);
    if (std::string(paths::basename(path)).rfind("libcudnn", 0) != 0) continue;  // the temp dirs say "cudnn" too
    auto canon = fs->canonical(path);
    truth.files[component_of(path)] = canon ? *canon : path;
  }
  return truth;
}

nlohmann::json predict(const std::string& target, const std::string& llp) {
  ProcessOptions options;
  options.env = child_env(llp);
  auto result = run_process({CUDNNUP_BINARY, "--json", "which", "--for", target}, options);
  EXPECT_TRUE(result);
  if (!result) return {};
  auto parsed = nlohmann::json::parse(result->out, nullptr, false);
  EXPECT_FALSE(parsed.is_discarded()) << result->out << result->err;
  return parsed;
}

// Every file the process really mapped must be the one predicted for its component.
void expect_agreement(const std::string& label, const Truth& truth, const nlohmann::json& prediction) {
  ASSERT_TRUE(prediction.contains("resolution")) << label << ": " << prediction.dump(2);
  const auto& res = prediction["resolution"];
  ASSERT_EQ(res["found"].get<bool>(), truth.loaded) << label << "\ntruth:\n" << truth.raw << "\nprediction:\n" << prediction.dump(2);
  if (!truth.loaded) return;
  std::map<std::string, std::string> predicted = {{"cudnn", res["canonical"].get<std::string>()}};
  if (prediction["cudnn"].is_object()) {
    for (const auto& sub : prediction["cudnn"]["sub_libraries"]) {
      if (sub["resolution"]["found"].get<bool>()) {
        predicted[sub["component"].get<std::string>()] = sub["resolution"]["canonical"].get<std::string>();
      }
    }
  }
  ASSERT_TRUE(truth.files.count("cudnn")) << label << ": the shim was not mapped\n" << truth.raw;
  for (const auto& [component, path] : truth.files) {
    ASSERT_TRUE(predicted.count(component)) << label << ": " << path << " was loaded but not predicted";
    EXPECT_EQ(predicted[component], path) << label << " (" << component << ")\ntruth:\n" << truth.raw;
  }
  bool truth_mixed = false;
  for (const auto& [component, path] : truth.files) {
    truth_mixed |= paths::parent(path) != paths::parent(truth.files.at("cudnn"));
  }
  if (truth_mixed) {
    EXPECT_TRUE(prediction["cudnn"]["mixed_copies"].get<bool>()) << label;
  }
}

class WhichTruth : public ::testing::Test {
 protected:
  void SetUp() override {
    make_loading_copy("9.19.0", tmp_ / "app/rp");
    make_loading_copy("9.14.0", tmp_ / "old/lib");
    make_loading_copy("9.19.0", tmp_ / "new/lib");
  }
  TempDir tmp_;
};

TEST_F(WhichTruth, RpathProgramWithAnotherCopyOnLdLibraryPathMixesCopies) {
  copy_file(loader_fixture("bin/probe_rpath"), tmp_ / "app/bin/probe");
  std::string llp = tmp_ / "old/lib";
  Truth truth = run_probe(tmp_ / "app/bin/probe", {}, llp);
  // The real ld.so: shim from the RPATH dir, sub-libraries from LD_LIBRARY_PATH.
  ASSERT_TRUE(truth.loaded) << truth.raw;
  EXPECT_EQ(paths::parent(truth.files["cudnn"]), tmp_ / "app/rp");
  EXPECT_EQ(paths::parent(truth.files["graph"]), tmp_ / "old/lib");
  expect_agreement("probe_rpath", truth, predict(tmp_ / "app/bin/probe", llp));
}

TEST_F(WhichTruth, RunpathProgramLosesToLdLibraryPath) {
  copy_file(loader_fixture("bin/probe_runpath"), tmp_ / "app/bin/probe");
  std::string llp = tmp_ / "old/lib";
  Truth truth = run_probe(tmp_ / "app/bin/probe", {}, llp);
  EXPECT_EQ(paths::parent(truth.files["cudnn"]), tmp_ / "old/lib");
  expect_agreement("probe_runpath", truth, predict(tmp_ / "app/bin/probe", llp));
  Truth clean = run_probe(tmp_ / "app/bin/probe", {}, "");
  expect_agreement("probe_runpath without LD_LIBRARY_PATH", clean, predict(tmp_ / "app/bin/probe", ""));
}

TEST_F(WhichTruth, ProgramThatDlopensTheShim) {
  copy_file(loader_fixture("bin/probe_dlopen"), tmp_ / "bin/probe");
  std::string llp = tmp_ / "new/lib" + ":" + tmp_ / "old/lib";
  Truth truth = run_probe(tmp_ / "bin/probe", {"libcudnn.so.9"}, llp);
  EXPECT_EQ(paths::parent(truth.files["cudnn"]), tmp_ / "new/lib");
  expect_agreement("probe_dlopen", truth, predict(tmp_ / "bin/probe", llp));
  // With no LD_LIBRARY_PATH this machine's cache decides (or nothing loads): still agree.
  Truth system = run_probe(tmp_ / "bin/probe", {"libcudnn.so.9"}, "");
  expect_agreement("probe_dlopen, system", system, predict(tmp_ / "bin/probe", ""));
}

TEST_F(WhichTruth, RpathOfALoaderAppliesToItsDependenciesRunpathDoesNot) {
  for (std::string kind : {"rpath", "runpath"}) {
    TempDir t;
    copy_file(loader_fixture("bin/probe_chain_" + kind), t / "bin/probe");
    copy_file(loader_fixture("chain/libmid_" + kind + ".so"), t / "bin/libmid_" + kind + ".so");
    copy_file(loader_fixture("chain/libleaf.so"), t / "rp/libleaf.so");
    make_loading_copy("9.19.0", t / "rp");
    std::string llp = tmp_ / "old/lib";
    Truth truth = run_probe(t / "bin/probe", {}, llp);
    EXPECT_EQ(paths::parent(truth.files["cudnn"]), kind == "rpath" ? t / "rp" : tmp_ / "old/lib") << truth.raw;
    expect_agreement("probe_chain_" + kind, truth, predict(t / "bin/probe", llp));
  }
}

TEST_F(WhichTruth, ProgramLinkedWithLcudnnAgainstTheToolkit) {
  auto fs = make_real_filesystem();
  std::string probe = loader_fixture("bin/probe_real_lcudnn");
  if (!fs->exists(probe)) GTEST_SKIP() << "no /usr/local/cuda-13.0 cuDNN on this machine";
  Truth truth = run_probe(probe, {}, "");
  expect_agreement("probe_real_lcudnn", truth, predict(probe, ""));
}

TEST(ProcMaps, GroupsCudnnFilesByCopyAndFlagsMixing) {
  testing::MemoryFileSystem fs;
  fs.add_file("/venv/nvidia/cudnn/lib/libcudnn.so.9");
  fs.add_file("/usr/lib/x86_64-linux-gnu/libcudnn_graph.so.9.14.0");
  fs.add_symlink("/usr/lib/x86_64-linux-gnu/libcudnn_graph.so.9", "libcudnn_graph.so.9.14.0");
  fs.add_file("/proc/42/maps",
              "7f00-7f01 r-xp 00000000 fe:00 1 /venv/nvidia/cudnn/lib/libcudnn.so.9\n"
              "7f01-7f02 r--p 00001000 fe:00 1 /venv/nvidia/cudnn/lib/libcudnn.so.9\n"
              "7f02-7f03 r-xp 00000000 fe:00 2 /usr/lib/x86_64-linux-gnu/libcudnn_graph.so.9\n"
              "7f03-7f04 rw-p 00000000 00:00 0 [heap]\n"
              "7f04-7f05 r-xp 00000000 fe:00 3 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
              "7f05-7f06 r-xp 00000000 fe:00 4 /old/libcudnn_ops.so.9 (deleted)\n");
  auto report = inspect_process_cudnn(fs, 42);
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->copies.size(), 3u);
  EXPECT_EQ(report->copies[0].directory, "/venv/nvidia/cudnn/lib");
  EXPECT_EQ(report->copies[0].files.size(), 1u);
  EXPECT_EQ(report->copies[1].directory, "/usr/lib/x86_64-linux-gnu");
  EXPECT_TRUE(report->mixed);
  EXPECT_EQ(report->deleted, std::vector<std::string>{"/old/libcudnn_ops.so.9"});
  auto missing = inspect_process_cudnn(fs, 7);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("/proc/7/maps"), std::string::npos);
}

}  // namespace
}  // namespace cudnnup

namespace cudnnup {
namespace {

TEST(WhichCli, ExitCodesAndErrorsNameTheFile) {
  ProcessOptions options;
  options.env = child_env("");
  auto missing = run_process({CUDNNUP_BINARY, "which", "--for", "/no/such/program"}, options);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->exit_code, 2);
  EXPECT_NE(missing->err.find("/no/such/program"), std::string::npos);
  auto not_elf = run_process({CUDNNUP_BINARY, "--json", "which", "--for", CUDNNUP_SOURCE_DIR "/README.md"}, options);
  ASSERT_TRUE(not_elf);
  EXPECT_EQ(not_elf->exit_code, 2);
  auto j = nlohmann::json::parse(not_elf->out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << not_elf->out;
  EXPECT_EQ(j["error"]["path"], CUDNNUP_SOURCE_DIR "/README.md");
  auto absent = run_process({CUDNNUP_BINARY, "--json", "which", "libcudnnup_absent.so.3"}, options);
  ASSERT_TRUE(absent);
  EXPECT_EQ(absent->exit_code, 1);
  auto aj = nlohmann::json::parse(absent->out, nullptr, false);
  ASSERT_FALSE(aj.is_discarded());
  EXPECT_EQ(aj["schema"], "cudnnup.which/1");
  EXPECT_FALSE(aj["resolution"]["found"].get<bool>());
}

}  // namespace
}  // namespace cudnnup
#endif  // CUDNNUP_FIXTURE_DIR
