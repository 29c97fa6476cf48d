// The --probe-frameworks comparison, with a stand-in interpreter that prints what a real one
// would (the Python side needs the framework and a GPU; docs/which-gpu-machine.md has that run).
// The stand-in interpreters are /bin/sh scripts.
#ifndef _WIN32
#include "app/child/framework_probe.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/fixture_libs.h"

namespace cudnnup {
namespace {

using testing::TempDir;
using testing::write_text;

FrameworkReport predicted(const std::string& shim, const std::string& graph) {
  FrameworkReport f;
  f.framework = "torch";
  f.loaded_cudnn = Version{9, 19, 0};
  WhichReport w;
  w.resolution.found = true;
  w.resolution.canonical = shim;
  CudnnLoad load;
  CudnnSubLibrary sub;
  sub.component = "graph";
  sub.resolution.found = true;
  sub.resolution.canonical = graph;
  load.sub_libraries.push_back(sub);
  w.cudnn = load;
  f.load = w;
  return f;
}

std::string fake_interpreter(const TempDir& tmp, const std::string& json) {
  std::string path = tmp / "python3";
  write_text(path, "#!/bin/sh\necho 'noise from the framework'\necho 'CUDNNUP_PROBE=" + json + "'\n");
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

TEST(FrameworkProbe, AgreesWhenTheProcessMappedThePredictedFiles) {
  TempDir tmp;
  FrameworkReport f = predicted("/venv/nvidia/cudnn/lib/libcudnn.so.9", "/venv/nvidia/cudnn/lib/libcudnn_graph.so.9");
  f.interpreter = fake_interpreter(tmp, R"J({"version": 91900, "source": "torch.backends.cudnn.version()", "mapped": )J"
                                        R"J(["/venv/nvidia/cudnn/lib/libcudnn.so.9", "/venv/nvidia/cudnn/lib/libcudnn_graph.so.9"], )J"
                                        R"J("op_ran": true, "op_error": ""})J");
  auto probes = probe_frameworks({f}, 10000);
  ASSERT_EQ(probes.size(), 1u);
  EXPECT_TRUE(probes[0].ran) << probes[0].failure;
  ASSERT_TRUE(probes[0].runtime_cudnn);
  EXPECT_EQ(probes[0].runtime_cudnn->str(), "9.19.0");
  EXPECT_TRUE(probes[0].agrees);
}

TEST(FrameworkProbe, ReportsEachDisagreement) {
  TempDir tmp;
  FrameworkReport f = predicted("/venv/nvidia/cudnn/lib/libcudnn.so.9", "/venv/nvidia/cudnn/lib/libcudnn_graph.so.9");
  f.interpreter = fake_interpreter(tmp, R"J({"version": 91400, "source": "x", "mapped": )J"
                                        R"J(["/usr/lib/x86_64-linux-gnu/libcudnn.so.9.14.0", "/usr/lib/x86_64-linux-gnu/libcudnn_graph.so.9.14.0"], )J"
                                        R"J("op_ran": true, "op_error": ""})J");
  auto probes = probe_frameworks({f}, 10000);
  ASSERT_EQ(probes.size(), 1u);
  EXPECT_FALSE(probes[0].agrees);
  EXPECT_EQ(probes[0].disagreements.size(), 3u);  // shim, graph, version
}

TEST(FrameworkProbe, AFailingInterpreterIsAFindingNotACrash) {
  TempDir tmp;
  FrameworkReport f = predicted("/a/libcudnn.so.9", "/a/libcudnn_graph.so.9");
  std::string path = tmp / "python3";
  write_text(path, "#!/bin/sh\necho 'ModuleNotFoundError: No module named torch' >&2\nexit 1\n");
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  f.interpreter = path;
  auto probes = probe_frameworks({f}, 10000);
  ASSERT_EQ(probes.size(), 1u);
  EXPECT_FALSE(probes[0].ran);
  EXPECT_NE(probes[0].failure.find("No module named torch"), std::string::npos);
}

}  // namespace
}  // namespace cudnnup

namespace cudnnup {
namespace {

TEST(FrameworkProbe, AMixedPredictionExpectsTheSubLibraryCopysVersion) {
  TempDir tmp;
  // The system copy's graph library carries its version in its file name.
  write_text(tmp / "sys/libcudnn_graph.so.9.14.0", "x");
  FrameworkReport f = predicted(tmp / "venv/libcudnn.so.9", tmp / "sys/libcudnn_graph.so.9.14.0");
  f.load->cudnn->mixed = true;
  f.load->cudnn->sub_libraries[0].from_other_copy = true;
  f.load->cudnn->sub_libraries[0].resolution.path = tmp / "sys/libcudnn_graph.so.9.14.0";
  f.interpreter = fake_interpreter(tmp, R"J({"version": 91400, "source": "cudnnGetVersion() of the mapped shim", "mapped": [")J" +
                                            tmp / "venv/libcudnn.so.9" + "\", \"" + tmp / "sys/libcudnn_graph.so.9.14.0" +
                                            R"J("], "op_ran": false, "op_error": "mismatch"})J");
  auto probes = probe_frameworks({f}, 10000);
  ASSERT_EQ(probes.size(), 1u);
  EXPECT_TRUE(probes[0].agrees) << (probes[0].disagreements.empty() ? probes[0].failure : probes[0].disagreements[0]);
}

}  // namespace
}  // namespace cudnnup
#endif  // _WIN32
