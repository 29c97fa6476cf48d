// Which CUDA build `install VERSION` takes without --cuda (core/install/cuda_choice.h): the first
// toolkit the environment points to, else what the driver runs, else nothing (then --cuda is asked).
#include "install/cuda_choice.h"

#include <gtest/gtest.h>

namespace cudnnup {
namespace {

Toolkit toolkit(const std::string& root, Version v, const std::string& via) {
  Toolkit tk;
  tk.root = root;
  tk.version = v;
  tk.found_via = {via};
  return tk;
}

TEST(CudaChoice, TheFirstToolkitOfKnownVersionDecidesAndIsNamed) {
  std::vector<Toolkit> toolkits = {toolkit("/opt/cuda-odd", Version{}, "/opt"), toolkit("/usr/local/cuda-12.4", Version{12, 4, 131}, "CUDA_HOME"),
                                   toolkit("/usr/local/cuda-13.0", Version{13, 0, 88}, "/usr/local")};
  auto c = default_cuda_major(toolkits, "580.65.06", false, builtin_rules());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->major, 12);
  EXPECT_EQ(c->why, "the CUDA 12.4 toolkit at /usr/local/cuda-12.4 (found through CUDA_HOME)");
}

// Minimums from data/rules.json (driver_minimums_minor_compat): 13 needs 580.65.06, 12 525.60.13.
TEST(CudaChoice, WithoutAToolkitTheDriverGivesTheHighestCudaMajorItRuns) {
  auto thirteen = default_cuda_major({}, "580.65.06", false, builtin_rules());
  ASSERT_TRUE(thirteen);
  EXPECT_EQ(thirteen->major, 13);
  EXPECT_EQ(thirteen->why, "the NVIDIA driver 580.65.06, which runs CUDA 13 builds (no CUDA toolkit found)");
  EXPECT_EQ(default_cuda_major({}, "570.124.06", false, builtin_rules())->major, 12);
  EXPECT_EQ(default_cuda_major({}, "470.256.02", false, builtin_rules())->major, 11);
  EXPECT_FALSE(default_cuda_major({}, "390.157", false, builtin_rules())) << "older than every minimum";
  EXPECT_FALSE(default_cuda_major({}, "", false, builtin_rules()));
  EXPECT_FALSE(default_cuda_major({}, "not a version", false, builtin_rules()));
  EXPECT_FALSE(default_cuda_major({toolkit("/opt/x", Version{}, "/opt")}, "", false, builtin_rules()));
}

}  // namespace
}  // namespace cudnnup
