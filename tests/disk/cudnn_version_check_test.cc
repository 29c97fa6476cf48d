// What cuDNN 9 compares between its sub-libraries, asked of the REAL libraries of this machine
// (/usr/local/cuda-13.0/lib, cuDNN 9.19.0): a small library interposes the version data symbol
// one sub-library reads from another (cudnn_graph_version, cudnn_ops_infer_version) with
// another value, and each sub-library's own version check answers. The model's rule
// (loader/cudnn_load_model.h: ops checks graph, cnn and adv check ops, exact major.minor.patch,
// nothing else compared) must give the same answers for the same bound versions. The loader
// differential test then checks the model's bindings against stubs that follow this rule.
#ifdef CUDNNUP_FIXTURE_DIR
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "facts/cudnn_components.h"
#include "loader/cudnn_load_model.h"
#include "platform/process.h"
#include "support/loader_fixtures.h"

namespace cudnnup {
namespace {

constexpr const char* kRealShim = "/usr/local/cuda-13.0/lib/libcudnn.so.9";
const Version kReal{9, 19, 0};

std::map<std::string, int> real_checks(const std::string& preload) {
  ProcessOptions o;
  o.env = std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}};
  if (!preload.empty()) (*o.env)["LD_PRELOAD"] = preload;
  o.timeout_ms = 60000;
  auto r = run_process({testing::loader_fixture("bin/check_real_cudnn"), kRealShim}, o);
  EXPECT_TRUE(r && r->exited_normally()) << (r ? r->out + r->err : r.error().message);
  std::map<std::string, int> out;
  if (!r) return out;
  std::istringstream lines(r->out);
  std::string name;
  int status = 0;
  while (lines >> name >> status) out[name] = status;
  return out;
}

// The model's verdict for the real 9.19 set whose `dependency` library binds version `bound`.
// The cuDNN libraries each one needs, from its DT_NEEDED (readelf -d on 9.19).
std::map<std::string, int> predicted_checks(const std::string& dependency, const Version& bound) {
  static const std::map<std::string, std::vector<std::string>> needs = {
      {"graph", {}}, {"ops", {"graph"}}, {"cnn", {"ops", "graph"}}, {"adv", {"ops", "graph"}}};
  std::map<std::string, int> out;
  for (const auto& [component, deps] : needs) {
    CudnnLoad load;
    CudnnSubLibrary s;
    s.component = component;
    s.version = kReal;
    s.resolution.canonical = "/real/libcudnn_" + component + ".so.9";
    for (const std::string& dep : deps) {
      CudnnBinding b;
      b.dependency = dep;
      b.file = "/bound/libcudnn_" + dep + ".so.9";
      b.version = dep == dependency ? bound : kReal;
      b.checked = cudnn_checks_version_of(9, component, dep);
      s.bindings.push_back(b);
    }
    load.sub_libraries.push_back(s);
    judge_cudnn_versions(load);
    out[component] = load.check == CudnnCheck::kFails ? 1002 : 0;
  }
  return out;
}

class RealCudnnVersionCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kRealShim)) GTEST_SKIP() << "no cuDNN 9.19 in /usr/local/cuda-13.0 on this machine";
  }
};

TEST_F(RealCudnnVersionCheck, EveryCheckPassesOnTheWholeSet) {
  auto checks = real_checks("");
  EXPECT_EQ(checks, (std::map<std::string, int>{{"graph", 0}, {"ops", 0}, {"cnn", 0}, {"adv", 0}}));
}

TEST_F(RealCudnnVersionCheck, OpsComparesTheBoundGraphVersionExactlyAndTheModelAgrees) {
  for (const std::string v : {"9.19.0", "9.19.1", "9.18.0", "9.14.0", "10.19.0"}) {
    auto real = real_checks(testing::loader_fixture("interpose/libgraph-version-" + v + ".so"));
    auto model = predicted_checks("graph", *Version::parse(v));
    EXPECT_EQ(real, model) << "graph bound at " << v;
    EXPECT_EQ(real["ops"], v == "9.19.0" ? 0 : 1002) << v;
  }
}

TEST_F(RealCudnnVersionCheck, CnnAndAdvCompareTheBoundOpsVersionAndTheModelAgrees) {
  for (const std::string v : {"9.19.0", "9.19.1", "9.14.0"}) {
    auto real = real_checks(testing::loader_fixture("interpose/libops-version-" + v + ".so"));
    auto model = predicted_checks("ops", *Version::parse(v));
    EXPECT_EQ(real, model) << "ops bound at " << v;
    EXPECT_EQ(real["cnn"], v == "9.19.0" ? 0 : 1002) << v;
    EXPECT_EQ(real["ops"], 0) << "ops itself checks graph only";
  }
}

}  // namespace
}  // namespace cudnnup
#endif  // CUDNNUP_FIXTURE_DIR
