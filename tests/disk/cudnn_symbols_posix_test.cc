// The API verify requires of a cuDNN copy (gpu/cudnn_symbols.h) against the real cuDNN 9.19 of the
// CUDA 13.0 toolkit on this machine: every required symbol must be exported by the real shim, or
// verify would fail healthy copies. Skips where the toolkit copy is absent.
#include <gtest/gtest.h>

#include <filesystem>

#include "adapters/cudnn_api.h"
#include "gpu/cudnn_symbols.h"

namespace cudnnup {
namespace {

constexpr const char* kImageShim = "/usr/local/cuda-13.0/lib/libcudnn.so.9";

TEST(CudnnSymbols, TheRealCudnn9ShimExportsEveryRequiredSymbol) {
  if (!std::filesystem::exists(kImageShim)) GTEST_SKIP() << "no " << kImageShim << " on this machine";
  auto api = CudnnApi::load(kImageShim, 9);
  ASSERT_TRUE(api) << api.error().message;
  api->leak();
  EXPECT_TRUE(api->missing().empty()) << "the real shim lacks: " << ::testing::PrintToString(api->missing());
  EXPECT_EQ(api->version_checks().size(), cudnn_version_check_functions(9).size());
}

TEST(CudnnSymbols, GroupsPerMajor) {
  size_t v9 = 0, v8 = 0;
  for (const auto& g : required_cudnn_symbols(9)) v9 += g.symbols.size();
  for (const auto& g : required_cudnn_symbols(8)) v8 += g.symbols.size();
  EXPECT_GT(v9, 80u);
  EXPECT_EQ(v9, v8 + 2 + 4 - 6);  // 9.x: + GetMaxDeviceVersion, GetLastErrorString; 4 checks, not 6
  EXPECT_EQ(cudnn_version_check_functions(8).front(), "cudnnOpsInferVersionCheck");
}

}  // namespace
}  // namespace cudnnup
