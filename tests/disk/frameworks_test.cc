// Frameworks read from site-packages without importing them, on fixture trees.
// Linux loader fixtures (tests/fixtures/loader.cmake) are built only off Windows.
#ifdef CUDNNUP_FIXTURE_DIR
#include "loader/frameworks.h"

#include <gtest/gtest.h>

#include "platform/real_filesystem.h"
#include "support/fixture_libs.h"
#include "support/loader_fixtures.h"

namespace cudnnup {
namespace {

using testing::copy_file;
using testing::loader_fixture;
using testing::make_loading_copy;
using testing::make_dirs;
using testing::TempDir;
using testing::write_text;

class Frameworks : public ::testing::Test {
 protected:
  void SetUp() override {
    fs_ = make_real_filesystem();
    site_ = tmp_ / "venv/lib/python3.11/site-packages";
    pe_.prefix = tmp_ / "venv";
    pe_.kind = "venv";
    pe_.site_packages = {site_};
    env_.cwd = tmp_.path();
  }

  // torch 2.9.0+cu130 pinned to `pin`, with the pip cuDNN wheel at `wheel_version`.
  void make_torch(const std::string& pin, const std::string& wheel_version) {
    write_text(site_ + "/torch/version.py",
               "from typing import Optional\n__version__ = '2.9.0+cu130'\ncuda: Optional[str] = '13.0'\n");
    write_text(site_ + "/torch-2.9.0+cu130.dist-info/METADATA",
               "Metadata-Version: 2.1\nName: torch\nVersion: 2.9.0+cu130\n"
               "Requires-Dist: nvidia-cudnn-cu13==" + pin + "; platform_system == \"Linux\"\n");
    copy_file(loader_fixture("torch/libtorch_cuda.so"), site_ + "/torch/lib/libtorch_cuda.so");
    make_loading_copy(wheel_version, site_ + "/nvidia/cudnn/lib");
    make_dirs(site_ + "/nvidia_cudnn_cu13-" + wheel_version + ".56.dist-info");
  }

  std::unique_ptr<FileSystem> fs_;
  TempDir tmp_;
  std::string site_;
  PythonEnv pe_;
  Environment env_;
};

TEST_F(Frameworks, ReadsCudnnPinsFromMetadata) {
  auto pin = find_cudnn_pin("Name: torch\nRequires-Dist: nvidia-cudnn-cu12==9.10.2.21; platform_system == \"Linux\"\n");
  ASSERT_TRUE(pin);
  EXPECT_EQ(pin->package, "nvidia-cudnn-cu12");
  EXPECT_EQ(pin->op, "==");
  EXPECT_EQ(pin->version.str(), "9.10.2.21");
  auto jax = find_cudnn_pin("Requires-Dist: nvidia-cudnn-cu12<10.0,>=9.8; extra == \"with-cuda\"\n");
  ASSERT_TRUE(jax);  // pip may write the upper bound first
  EXPECT_EQ(jax->op, ">=");
  EXPECT_EQ(jax->version.str(), "9.8");
  EXPECT_FALSE(find_cudnn_pin("Requires-Dist: nvidia-cudnn-cu12<10.0\n"));
  auto jax2 = find_cudnn_pin("Requires-Dist: nvidia-cudnn-cu12>=9.8,<10.0; extra == \"with-cuda\"\n");
  ASSERT_TRUE(jax2);
  EXPECT_EQ(jax2->op, ">=");
  EXPECT_FALSE(find_cudnn_pin("Requires-Dist: numpy\n"));
}

TEST_F(Frameworks, TorchLoadsItsWheelCopyThroughRpathAndPassesItsCheck) {
  make_torch("9.19.0.56", "9.19.0");
  auto reports = inspect_frameworks(*fs_, env_, {pe_}, {"torch"});
  ASSERT_EQ(reports.size(), 1u);
  const FrameworkReport& r = reports[0];
  EXPECT_EQ(r.version, "2.9.0+cu130");
  EXPECT_EQ(r.cuda_version, "13.0");
  ASSERT_TRUE(r.built_cudnn);
  EXPECT_EQ(r.built_cudnn->str(), "9.19.0");
  ASSERT_TRUE(r.load);
  EXPECT_EQ(r.load->resolution.rule, SearchRule::kRpath);
  EXPECT_EQ(r.load->resolution.canonical, site_ + "/nvidia/cudnn/lib/libcudnn.so.9");
  ASSERT_TRUE(r.loaded_cudnn);
  EXPECT_EQ(r.loaded_cudnn->str(), "9.19.0");
  ASSERT_TRUE(r.passes);
  EXPECT_TRUE(*r.passes) << r.verdict;
}

TEST_F(Frameworks, TorchWithSystemCudnnOnLdLibraryPathMixesSubLibraries) {
  make_torch("9.19.0.56", "9.19.0");
  make_loading_copy("9.14.0", tmp_ / "system/lib");
  env_.vars["LD_LIBRARY_PATH"] = tmp_ / "system/lib";
  auto reports = inspect_frameworks(*fs_, env_, {pe_}, {"torch"});
  ASSERT_EQ(reports.size(), 1u);
  const FrameworkReport& r = reports[0];
  ASSERT_TRUE(r.load && r.load->cudnn);
  // DT_RPATH keeps the shim in the wheel, but the shim's own dlopen (DT_RUNPATH $ORIGIN) puts
  // LD_LIBRARY_PATH first for its sub-libraries.
  EXPECT_EQ(r.load->resolution.canonical, site_ + "/nvidia/cudnn/lib/libcudnn.so.9");
  EXPECT_TRUE(r.load->cudnn->mixed);
  ASSERT_TRUE(r.passes);
  EXPECT_FALSE(*r.passes);
  EXPECT_NE(r.verdict.find("SUBLIBRARY_VERSION_MISMATCH"), std::string::npos);
}

TEST_F(Frameworks, TorchWithAnOlderWheelFailsTheMinorRule) {
  make_torch("9.19.0.56", "9.14.0");
  auto reports = inspect_frameworks(*fs_, env_, {pe_}, {"torch"});
  ASSERT_EQ(reports.size(), 1u);
  ASSERT_TRUE(reports[0].passes);
  EXPECT_FALSE(*reports[0].passes);
  EXPECT_NE(reports[0].verdict.find("9.14.0"), std::string::npos);
}

TEST_F(Frameworks, TensorflowAndOnnxRuntime) {
  make_loading_copy("9.19.0", site_ + "/nvidia/cudnn/lib");
  make_dirs(site_ + "/nvidia_cudnn_cu12-9.19.0.56.dist-info");
  write_text(site_ + "/tensorflow/python/platform/build_info.py",
             "import collections\nbuild_info = collections.OrderedDict([('cuda_version', '12.5.1'), ('cudnn_version', '9'), "
             "('is_cuda_build', True)])\n");
  make_dirs(site_ + "/tensorflow-2.18.0.dist-info");
  copy_file(loader_fixture("torch/libtorch_cuda.so"), site_ + "/tensorflow/python/_pywrap_tensorflow_internal.so");
  write_text(site_ + "/onnxruntime/capi/version_info.py", "use_cuda = True\ncuda_version = \"12.2\"\ncudnn_version = \"8\"\n");
  make_dirs(site_ + "/onnxruntime_gpu-1.17.1.dist-info");
  copy_file(loader_fixture("torch/libtorch_cuda.so"), site_ + "/onnxruntime/capi/libonnxruntime_providers_cuda.so");
  auto reports = inspect_frameworks(*fs_, env_, {pe_});
  ASSERT_EQ(reports.size(), 2u);
  const FrameworkReport& tf = reports[0];
  EXPECT_EQ(tf.framework, "tensorflow");
  EXPECT_EQ(tf.version, "2.18.0");
  ASSERT_TRUE(tf.built_cudnn);
  EXPECT_EQ(tf.built_cudnn->str(), "9.3");  // major from build_info, minor from the tested-build table
  ASSERT_TRUE(tf.passes);
  EXPECT_TRUE(*tf.passes) << tf.verdict;
  const FrameworkReport& ort = reports[1];
  EXPECT_EQ(ort.framework, "onnxruntime");
  ASSERT_TRUE(ort.passes);
  EXPECT_FALSE(*ort.passes) << ort.verdict;  // built for cuDNN 8, loads 9
}

TEST_F(Frameworks, CpuOnlyTorchLoadsNothing) {
  write_text(site_ + "/torch/version.py", "__version__ = '2.9.0+cpu'\ncuda = None\n");
  auto reports = inspect_frameworks(*fs_, env_, {pe_});
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_FALSE(reports[0].load);
  EXPECT_NE(reports[0].verdict.find("CPU-only"), std::string::npos);
}

}  // namespace
}  // namespace cudnnup
#endif  // CUDNNUP_FIXTURE_DIR
