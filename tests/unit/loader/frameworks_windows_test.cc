// Frameworks on native Windows (loader/windows/frameworks_windows.h), inspected from their files on
// the in-memory filesystem: Windows-shaped site-packages with dist-info, build_info.py and the stub
// DLLs of tests/fixtures/windows (their VERSIONINFO gives the versions), loaded by Windows' rules.
#include "loader/frameworks.h"

#include <gtest/gtest.h>

#include "platform/real_filesystem.h"
#include "support/memory_fs.h"
#include "support/pe_builder.h"
#include "support/windows_fixtures.h"

namespace cudnnup {
namespace {

using testing::build_pe_dll;
using testing::MemoryFileSystem;

const std::string kVenv = "C:/venv";
const std::string kSite = "C:/venv/Lib/site-packages";

class WindowsFrameworks : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::windows_fixture_dll("v9.1.0.70", "cudnn64_9.dll")) GTEST_SKIP() << testing::kNoWindowsFixtures;
    fs.add_file(kVenv + "/Scripts/python.exe", build_pe_dll(kPeMachineX64, {"KERNEL32.dll"}));
    pe.prefix = kVenv;
    pe.kind = "venv";
    pe.interpreter = kVenv + "/Scripts/python.exe";
    pe.site_packages = {kSite};
  }
  // A stub DLL of tests/fixtures/windows copied into the in-memory filesystem.
  void put_stub(const std::string& variant, const std::string& name, const std::string& dir) {
    auto path = testing::windows_fixture_dll(variant, name);
    auto real = make_real_filesystem();
    auto size = real->stat(*path);
    ASSERT_TRUE(size) << *path;
    auto bytes = real->read_file(*path, size_t(size->size));
    ASSERT_TRUE(bytes) << *path;
    fs.add_file(dir + "/" + name, *bytes);
  }
  void put_cudnn9(const std::string& variant, const std::string& dir) {
    for (const char* n : {"cudnn64_9.dll", "cudnn_graph64_9.dll", "cudnn_ops64_9.dll"}) put_stub(variant, n, dir);
  }
  void put_cudnn8(const std::string& dir) {
    for (const char* n : {"cudnn64_8.dll", "cudnn_ops_infer64_8.dll", "cudnn_cnn_infer64_8.dll"}) put_stub("v8.9.7.29", n, dir);
  }
  Environment env(const std::string& path) {
    Environment e;
    e.os = OsKind::kWindows;
    e.vars["PATH"] = path;
    e.vars["SYSTEMROOT"] = "C:\\Windows";
    e.cwd = "C:/Users/me";
    return e;
  }
  std::vector<FrameworkReport> inspect(const Environment& e, const std::string& only) {
    return inspect_frameworks(fs, e, {pe}, {only});
  }
  MemoryFileSystem fs;
  PythonEnv pe;
};

// torch's Windows wheels bundle cuDNN in torch\lib; `import torch` preloads it, so that copy wins
// over one earlier on PATH, and its DLL version is what torch was built with. A Linux-only pin in
// METADATA says nothing about Windows.
TEST_F(WindowsFrameworks, TorchLoadsTheCudnnItBundlesInTorchLib) {
  put_cudnn9("v9.1.0.70", kSite + "/torch/lib");
  fs.add_file(kSite + "/torch/lib/torch_cuda.dll", build_pe_dll(kPeMachineX64, {"cudnn64_9.dll"}));
  fs.add_file(kSite + "/torch/version.py", "__version__ = '2.5.1+cu124'\ncuda: Optional[str] = '12.4'\n");
  fs.add_file(kSite + "/torch-2.5.1+cu124.dist-info/METADATA",
              "Name: torch\nRequires-Dist: nvidia-cudnn-cu12==9.19.0.56; platform_system == \"Linux\" and platform_machine == \"x86_64\"\n");
  put_cudnn9("v9.19.0.56", "C:/cudnn/bin");
  auto reports = inspect(env("C:\\cudnn\\bin"), "torch");
  ASSERT_EQ(reports.size(), 1u);
  const FrameworkReport& r = reports[0];
  EXPECT_EQ(r.version, "2.5.1+cu124");
  EXPECT_EQ(r.cuda_version, "12.4");
  ASSERT_TRUE(r.built_cudnn);
  EXPECT_EQ(r.built_cudnn->str(), "9.1.0") << "the bundled DLL's file version, not the Linux pin";
  EXPECT_NE(r.built_cudnn_source.find("bundled"), std::string::npos) << r.built_cudnn_source;
  ASSERT_TRUE(r.load);
  ASSERT_TRUE(r.load->resolution.found);
  EXPECT_EQ(r.load->resolution.path, kSite + "/torch/lib/cudnn64_9.dll");
  EXPECT_EQ(r.load->resolution.rule, SearchRule::kAlreadyLoaded);
  ASSERT_TRUE(r.loaded_cudnn);
  EXPECT_EQ(r.loaded_cudnn->str(), "9.1.0.70");
  ASSERT_TRUE(r.passes.has_value());
  EXPECT_TRUE(*r.passes) << r.verdict;
  EXPECT_EQ(r.env_prefix, kVenv);
  EXPECT_EQ(r.site_packages, kSite);
}

TEST_F(WindowsFrameworks, ACpuTorchLoadsNoCudnn) {
  fs.add_file(kSite + "/torch/version.py", "__version__ = '2.5.1+cpu'\ncuda: Optional[str] = None\n");
  auto reports = inspect(env(""), "torch");
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_FALSE(reports[0].load);
  EXPECT_FALSE(reports[0].passes.has_value());
  EXPECT_NE(reports[0].verdict.find("CPU-only"), std::string::npos) << reports[0].verdict;
}

// TensorFlow 2.10, the last native-Windows GPU release: cudnn64_8.dll by name through the
// standard search (PATH counts), built with cuDNN 8.1 by its tested-build table.
TEST_F(WindowsFrameworks, TensorFlow210FindsCudnn8ThroughPathOrFailsWithoutIt) {
  fs.add_dir(kSite + "/tensorflow");
  fs.add_dir(kSite + "/tensorflow_gpu-2.10.0.dist-info");
  fs.add_file(kSite + "/tensorflow/python/platform/build_info.py",
              "build_info = collections.OrderedDict([('cuda_version', '64_112'), ('cudart_dll_name', 'cudart64_112.dll'), "
              "('cudnn_dll_name', 'cudnn64_8.dll'), ('cudnn_version', '64_8'), ('is_cuda_build', True)])\n");
  put_cudnn8("C:/tools/cuda/bin");
  auto found = inspect(env("C:\\tools\\cuda\\bin"), "tensorflow");
  ASSERT_EQ(found.size(), 1u);
  const FrameworkReport& r = found[0];
  EXPECT_EQ(r.version, "2.10.0");
  EXPECT_EQ(r.cuda_version, "11.2");
  ASSERT_TRUE(r.built_cudnn);
  EXPECT_EQ(r.built_cudnn->str(), "8.1") << r.built_cudnn_source;
  EXPECT_NE(r.built_cudnn_source.find("source_windows"), std::string::npos) << r.built_cudnn_source;
  ASSERT_TRUE(r.load && r.load->resolution.found);
  EXPECT_EQ(r.load->library, "cudnn64_8.dll");
  EXPECT_EQ(r.load->resolution.rule, SearchRule::kPathVariable);
  EXPECT_NE(r.load->how_requested.find("LOAD_WITH_ALTERED_SEARCH_PATH"), std::string::npos);
  ASSERT_TRUE(r.passes.has_value());
  EXPECT_TRUE(*r.passes) << r.verdict;

  auto missing = inspect(env("C:\\Windows\\System32"), "tensorflow");
  ASSERT_EQ(missing.size(), 1u);
  ASSERT_TRUE(missing[0].passes.has_value());
  EXPECT_FALSE(*missing[0].passes);
  EXPECT_NE(missing[0].verdict.find("no cuDNN would load"), std::string::npos) << missing[0].verdict;
}

// TensorFlow 2.11 and newer have no GPU build on native Windows; JAX never had one there.
TEST_F(WindowsFrameworks, NewerTensorFlowAndJaxHaveNoGpuOnNativeWindows) {
  fs.add_dir(kSite + "/tensorflow");
  fs.add_dir(kSite + "/tensorflow-2.15.0.dist-info");
  fs.add_dir(kSite + "/jaxlib");
  fs.add_dir(kSite + "/jaxlib-0.4.30.dist-info");
  put_cudnn8("C:/tools/cuda/bin");
  auto reports = inspect_frameworks(fs, env("C:\\tools\\cuda\\bin"), {pe}, {});
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].framework, "tensorflow");
  EXPECT_FALSE(reports[0].load);
  EXPECT_FALSE(reports[0].passes.has_value());
  EXPECT_NE(reports[0].verdict.find("2.10 was the last release with GPU support on native Windows"), std::string::npos)
      << reports[0].verdict;
  EXPECT_EQ(reports[1].framework, "jax");
  EXPECT_EQ(reports[1].version, "0.4.30");
  EXPECT_FALSE(reports[1].load);
  EXPECT_NE(reports[1].verdict.find("no NVIDIA GPU support on native Windows"), std::string::npos) << reports[1].verdict;
}

// ONNX Runtime: the provider DLL's import of cudnn64_9.dll, searched from its folder then PATH;
// after preload_dlls(), the wheel's nvidia\cudnn\bin DLLs it loaded by path.
TEST_F(WindowsFrameworks, OnnxRuntimeAnswersWithAndWithoutPreloadDlls) {
  const std::string ort = kSite + "/onnxruntime";
  fs.add_file(ort + "/__init__.py", "def preload_dlls(cuda=True, cudnn=True, msvc=True, directory=None):\n    pass\n");
  fs.add_file(ort + "/capi/version_info.py", "cuda_version = '12.2'\ncudnn_version = '9.1'\n");
  fs.add_file(ort + "/capi/onnxruntime_providers_cuda.dll", build_pe_dll(kPeMachineX64, {"KERNEL32.dll", "cudnn64_9.dll"}));
  fs.add_dir(kSite + "/onnxruntime_gpu-1.21.0.dist-info");
  put_cudnn9("v9.1.0.70", kSite + "/nvidia/cudnn/bin");
  put_cudnn9("v9.19.0.56", "C:/cudnn/bin");
  auto reports = inspect(env("C:\\cudnn\\bin"), "onnxruntime");
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].variant, "");
  ASSERT_TRUE(reports[0].load && reports[0].load->resolution.found);
  EXPECT_EQ(reports[0].load->resolution.path, "C:/cudnn/bin/cudnn64_9.dll") << "PATH, not the wheel's folder";
  ASSERT_TRUE(reports[0].built_cudnn);
  EXPECT_EQ(reports[0].built_cudnn->str(), "9.1");
  EXPECT_TRUE(*reports[0].passes) << "same major passes ONNX Runtime's rule";
  EXPECT_EQ(reports[1].variant, "after onnxruntime.preload_dlls()");
  ASSERT_TRUE(reports[1].load && reports[1].load->resolution.found);
  EXPECT_EQ(reports[1].load->resolution.path, kSite + "/nvidia/cudnn/bin/cudnn64_9.dll");
  EXPECT_EQ(reports[1].load->resolution.rule, SearchRule::kAlreadyLoaded);
  ASSERT_TRUE(reports[1].loaded_cudnn) << "the preloaded DLLs' file version";
  EXPECT_EQ(reports[1].loaded_cudnn->str(), "9.1.0.70");
}

}  // namespace
}  // namespace cudnnup
