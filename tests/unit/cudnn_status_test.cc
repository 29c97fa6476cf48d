#include "core/cudnn_status.h"

#include <gtest/gtest.h>

#include "core/cuda_errors.h"

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
