#include "facts/cudnn_status.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "facts/cuda_errors.h"
#include "explain/error_catalogue.h"

namespace cudnnup {
namespace {

TEST(CudnnStatus, SameNumberMeansDifferentThingsIn8And9) {
  EXPECT_EQ(decode_cudnn_status(3, 8).name, "CUDNN_STATUS_BAD_PARAM");
  EXPECT_FALSE(decode_cudnn_status(3, 9).known);
  EXPECT_EQ(decode_cudnn_status(2000, 9).name, "CUDNN_STATUS_BAD_PARAM");
  EXPECT_FALSE(decode_cudnn_status(2000, 8).known);
  EXPECT_EQ(decode_cudnn_status(14, 8).name, "CUDNN_STATUS_VERSION_MISMATCH");
  EXPECT_EQ(decode_cudnn_status(1002, 9).name, "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH");
  EXPECT_EQ(decode_cudnn_status(7, 7).name, "CUDNN_STATUS_MAPPING_ERROR");  // 7.x shares 8.x's numbers
}

TEST(CudnnStatus, NineXCategoriesAndFixes) {
  auto arch = decode_cudnn_status(3007, 9);
  EXPECT_EQ(arch.name, "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH");
  EXPECT_EQ(arch.category, "not supported");
  EXPECT_NE(arch.fix.find("newer cuDNN"), std::string::npos);
  auto driver = decode_cudnn_status(3005, 9);
  EXPECT_NE(driver.fix.find("driver"), std::string::npos);
  auto mismatch = decode_cudnn_status(1002, 9);
  EXPECT_NE(mismatch.fix.find("Reinstall"), std::string::npos);
  auto unknown = decode_cudnn_status(5999, 9);
  EXPECT_FALSE(unknown.known);
  EXPECT_EQ(unknown.category, "execution");
  EXPECT_NE(unknown.name.find("5999"), std::string::npos);
  EXPECT_EQ(decode_cudnn_status(0, 9).name, "CUDNN_STATUS_SUCCESS");
}

TEST(CudaErrors, NamesAndNoGpuCodes) {
  EXPECT_EQ(decode_cuda_error(100).name, "CUDA_ERROR_NO_DEVICE");
  EXPECT_TRUE(decode_cuda_error(100).means_no_gpu);
  EXPECT_TRUE(decode_cuda_error(34).means_no_gpu);  // the toolkit's stub libcuda
  EXPECT_FALSE(decode_cuda_error(803).means_no_gpu);
  EXPECT_NE(decode_cuda_error(803).fix.find("reboot"), std::string::npos);
  EXPECT_EQ(decode_cuda_error(700).name, "CUDA_ERROR_ILLEGAL_ADDRESS");
  EXPECT_EQ(decode_cuda_error(12345).name, "CUDA error 12345");
}

}  // namespace
}  // namespace cudnnup

namespace cudnnup {
namespace {

// verify/bench decode statuses from code (they run in a child that must not depend on data
// files); explain reads them from data/error_catalogue.json. The two must never disagree.
TEST(CudnnStatus, AgreesWithTheErrorCatalogue) {
  const auto& catalogue = builtin_error_catalogue();
  ASSERT_TRUE(catalogue) << catalogue.error().message;
  int compared = 0;
  for (const auto& s : catalogue->statuses) {
    if (s.code8) {
      auto d = decode_cudnn_status(*s.code8, 8);
      if (d.known) {
        EXPECT_EQ(d.name, s.name) << "8.x code " << *s.code8;
        ++compared;
      }
    }
    if (s.code9) {
      auto d = decode_cudnn_status(*s.code9, 9);
      if (!d.known) continue;
      // 9.x keeps deprecated aliases that share a number with the new name (cudnn_graph.h).
      static const std::vector<std::string> aliases = {
          "CUDNN_STATUS_ALLOC_FAILED", "CUDNN_STATUS_ARCH_MISMATCH", "CUDNN_STATUS_MAPPING_ERROR",
          "CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING", "CUDNN_STATUS_VERSION_MISMATCH"};
      bool alias = std::find(aliases.begin(), aliases.end(), s.name) != aliases.end();
      if (!alias) {
        EXPECT_EQ(d.name, s.name) << "9.x code " << *s.code9;
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 40);
}

}  // namespace
}  // namespace cudnnup
