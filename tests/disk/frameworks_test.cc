// Frameworks read from site-packages without importing them, on fixture trees.
// Linux loader fixtures (tests/fixtures/loader.cmake) are built only off Windows.
#ifdef CUDNNUP_FIXTURE_DIR
#include "loader/frameworks.h"

#include "loader/cudnn_load_model.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "platform/process.h"
#include "platform/real_filesystem.h"
#include "support/fixture_libs.h"
#include "support/loader_fixtures.h"

namespace cudnnup {
namespace {

using testing::copy_file;
using testing::loader_fixture;
using testing::make_loading_copy;
using testing::make_dirs;
using testing::make_symlink;
using testing::TempDir;
using testing::write_text;

void run_ok(const std::vector<std::string>& argv) {
  ProcessOptions o;
  o.env = std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin:/usr/sbin:/sbin"}};
  auto r = run_process(argv, o);
  ASSERT_TRUE(r && r->exited_normally() && r->exit_code == 0) << argv[0] << ": " << (r ? r->out + r->err : "");
}

// A library without cuDNN dependencies, with `patch` applied by patchelf (e.g. {"--set-rpath",
// "$ORIGIN/x"}): stands for a framework's own libraries.
void make_library(const std::string& path, std::vector<std::string> patch = {}) {
  copy_file(loader_fixture("chain/libleaf.so"), path);
  run_ok({"patchelf", "--remove-needed", "libcudnn.so.9", path});
  if (patch.empty()) return;
  std::vector<std::string> args = {"patchelf"};
  args.insert(args.end(), patch.begin(), patch.end());
  args.push_back(path);
  run_ok(args);
}

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
  // Every sub-library comes from the 9.14 copy, so cuDNN's own check passes among them, and
  // cudnnGetVersion() (answered by the graph library) says 9.14: torch's check refuses that.
  EXPECT_EQ(r.load->cudnn->check, CudnnCheck::kPasses);
  ASSERT_TRUE(r.loaded_cudnn);
  EXPECT_EQ(r.loaded_cudnn->str(), "9.14.0");
  ASSERT_TRUE(r.passes);
  EXPECT_FALSE(*r.passes) << r.verdict;
  EXPECT_NE(r.verdict.find("9.14.0"), std::string::npos);
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

// torch 2.10+ (PR #167046) preloads nvidia/cudnn/lib/libcudnn.so.*[0-9] from the FIRST sys.path
// entry that has it whenever libcudart is mapped; 2.9 does so only when libtorch_global_deps.so
// fails to load. A PYTHONPATH entry with another cuDNN wheel shows the difference.
TEST_F(Frameworks, TorchPreloadsThePipCudnnFromTheFirstSysPathEntryFrom210On) {
  for (const std::string version : {"2.9.1", "2.10.0"}) {
    TempDir t;
    std::string site = t / "venv/lib/python3.11/site-packages";
    PythonEnv pe;
    pe.prefix = t / "venv";
    pe.site_packages = {site};
    write_text(site + "/torch/version.py", "__version__ = '" + version + "+cu130'\ncuda = '13.0'\n");
    write_text(site + "/torch-" + version + ".dist-info/METADATA", "Requires-Dist: nvidia-cudnn-cu13==9.19.0.56\n");
    copy_file(loader_fixture("torch/libtorch_cuda.so"), site + "/torch/lib/libtorch_cuda.so");
    make_loading_copy("9.19.0", site + "/nvidia/cudnn/lib");
    // libtorch_global_deps.so needs libcudart.so.13 from the nvidia-cuda-runtime wheel.
    make_library(site + "/nvidia/cuda_runtime/lib/libcudart.so.13", {"--set-soname", "libcudart.so.13"});
    make_library(site + "/torch/lib/libtorch_global_deps.so",
                 {"--add-needed", "libcudart.so.13", "--force-rpath", "--set-rpath", "$ORIGIN/../../nvidia/cuda_runtime/lib"});
    make_loading_copy("9.14.0", t / "extra/nvidia/cudnn/lib");
    Environment env = env_;
    env.vars["PYTHONPATH"] = t / "extra";
    auto reports = inspect_frameworks(*fs_, env, {pe}, {"torch"});
    ASSERT_EQ(reports.size(), 1u);
    ASSERT_TRUE(reports[0].loaded_cudnn) << version;
    EXPECT_EQ(reports[0].loaded_cudnn->str(), version == "2.10.0" ? "9.14.0" : "9.19.0") << version;
  }
}

// JAX: the plugin's __init__.py preloads the pip cuDNN only from PR #29462 (_load_nvidia_libraries);
// before, the plugin library's own DT_RPATH (jaxlib >= 0.4.19) or DT_RUNPATH (<= 0.4.18) decides.
// What the era decides is which shim loads. With another copy on LD_LIBRARY_PATH, the wheel's
// shim (preloaded, or found through DT_RPATH) still dlopen()s its sub-libraries by bare name
// with its own DT_RUNPATH $ORIGIN, which comes after LD_LIBRARY_PATH: the graph library, and so
// cudnnGetVersion(), come from the 9.14 copy in every era (the real loader does the same with
// these fixtures: probe_dlopen WHEEL/libcudnn.so.9 maps the LD_LIBRARY_PATH copy's sub-libraries,
// and the forwarding shim prints 91400). The test first expected 9.19 for the first two eras,
// which is the version of the shim, not what cudnnGetVersion() reports.
TEST_F(Frameworks, JaxPerPluginEra) {
  struct Era {
    std::string init, tag;
    bool wheel_shim;  // the shim loaded is the wheel's (else the LD_LIBRARY_PATH copy's)
  };
  for (const Era& era : {Era{"def _load_nvidia_libraries():\n  pass\n", "runpath", true},
                         Era{"def initialize():\n  pass\n", "rpath", true},
                         Era{"def initialize():\n  pass\n", "runpath", false}}) {
    TempDir t;
    std::string site = t / "venv/lib/python3.11/site-packages";
    PythonEnv pe;
    pe.prefix = t / "venv";
    pe.site_packages = {site};
    std::string plugin = site + "/jax_plugins/xla_cuda12";
    write_text(plugin + "/__init__.py", era.init);
    std::vector<std::string> patch = {"--set-rpath", "$ORIGIN/../../nvidia/cudnn/lib"};
    if (era.tag == "rpath") patch.insert(patch.begin(), "--force-rpath");
    make_library(plugin + "/xla_cuda_plugin.so", patch);
    make_loading_copy("9.19.0", site + "/nvidia/cudnn/lib");
    make_loading_copy("9.14.0", t / "system/lib");
    Environment env = env_;
    env.vars["LD_LIBRARY_PATH"] = t / "system/lib";
    auto reports = inspect_frameworks(*fs_, env, {pe}, {"jax"});
    ASSERT_EQ(reports.size(), 1u);
    ASSERT_TRUE(reports[0].load && reports[0].load->cudnn) << era.init << " " << era.tag;
    EXPECT_EQ(reports[0].load->resolution.canonical,
              (era.wheel_shim ? site + "/nvidia/cudnn/lib" : t / "system/lib") + "/libcudnn.so.9")
        << era.init << " " << era.tag;
    EXPECT_EQ(reports[0].load->cudnn->mixed, era.wheel_shim) << era.init << " " << era.tag;
    ASSERT_TRUE(reports[0].loaded_cudnn) << era.init;
    EXPECT_EQ(reports[0].loaded_cudnn->str(), "9.14.0") << era.init << " " << era.tag;
  }
}

// ONNX Runtime: both answers when preload_dlls() exists; an old capi/_ld_preload.py loads cuDNN
// by name (RTLD_GLOBAL) at import. On Linux preload_dlls() loads only the wheel's shim ("Do not
// load cudnn sub DLLs ... to be consistent with PyTorch in Linux"), whose own dlopen of its
// sub-libraries takes LD_LIBRARY_PATH first: cudnnGetVersion() (the graph library's) then says
// 9.14 although the shim is the wheel's 9.19 (the test first expected 9.19, the shim's version).
TEST_F(Frameworks, OnnxRuntimePreloadsPerVersion) {
  copy_file(loader_fixture("chain/libleaf.so"), site_ + "/onnxruntime/capi/libonnxruntime_providers_cuda.so");
  make_loading_copy("9.19.0", site_ + "/nvidia/cudnn/lib");
  make_loading_copy("9.14.0", tmp_ / "system/lib");
  env_.vars["LD_LIBRARY_PATH"] = tmp_ / "system/lib";
  auto plain = inspect_frameworks(*fs_, env_, {pe_}, {"onnxruntime"});
  ASSERT_EQ(plain.size(), 1u) << "no preload_dlls() before 1.21: one answer";
  EXPECT_EQ(plain[0].loaded_cudnn->str(), "9.14.0");
  write_text(site_ + "/onnxruntime/__init__.py", "def preload_dlls(cuda=True, cudnn=True, msvc=True, directory=None):\n");
  auto both = inspect_frameworks(*fs_, env_, {pe_}, {"onnxruntime"});
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].loaded_cudnn->str(), "9.14.0");
  EXPECT_EQ(both[1].variant, "after onnxruntime.preload_dlls()");
  ASSERT_TRUE(both[1].load && both[1].load->cudnn);
  EXPECT_EQ(both[1].load->resolution.canonical, site_ + "/nvidia/cudnn/lib/libcudnn.so.9");
  EXPECT_TRUE(both[1].load->cudnn->mixed);
  EXPECT_EQ(both[1].loaded_cudnn->str(), "9.14.0");
  EXPECT_FALSE(both[1].applies_when.empty());
}

// PaddlePaddle's name choice: pip-CUDA builds ask for libcudnn.so.9 (CUDA >= 12.3) or
// libcudnn.so.8 by path in FLAGS_cudnn_dir; other builds ask for the unversioned libcudnn.so.
// The wheel's shim loaded by path still takes its sub-libraries from LD_LIBRARY_PATH first (its
// DT_RUNPATH $ORIGIN comes after it), so cudnnGetVersion() reports the 9.19 copy's graph library
// (the test first expected 9.14, the version of the shim it loads by path).
TEST_F(Frameworks, PaddleNameChoicePerBuild) {
  make_library(site_ + "/paddle/base/libpaddle.so", {"--set-rpath", "$ORIGIN/../libs"});
  make_loading_copy("9.14.0", site_ + "/nvidia/cudnn/lib");
  make_loading_copy("9.19.0", tmp_ / "system/lib");
  env_.vars["LD_LIBRARY_PATH"] = tmp_ / "system/lib";
  auto paddle = [&](const std::string& cuda, const std::string& pip) {
    write_text(site_ + "/paddle/version/__init__.py", "full_version = '3.0.0'\ncuda_version = '" + cuda +
                                                          "'\ncudnn_version = '9.14.0'\nwith_pip_cuda_libraries = '" + pip + "'\n");
    auto reports = inspect_frameworks(*fs_, env_, {pe_}, {"paddle"});
    EXPECT_EQ(reports.size(), 1u);
    return reports.empty() ? FrameworkReport{} : reports[0];
  };
  FrameworkReport pip12 = paddle("12.6", "ON");
  ASSERT_TRUE(pip12.load && pip12.load->resolution.found) << pip12.verdict;
  EXPECT_EQ(pip12.load->resolution.rule, SearchRule::kPath) << "FLAGS_cudnn_dir/libcudnn.so.9 by path";
  EXPECT_EQ(pip12.load->resolution.canonical, site_ + "/nvidia/cudnn/lib/libcudnn.so.9");
  ASSERT_TRUE(pip12.load->cudnn);
  EXPECT_TRUE(pip12.load->cudnn->mixed);
  ASSERT_TRUE(pip12.loaded_cudnn);
  EXPECT_EQ(pip12.loaded_cudnn->str(), "9.19.0");
  FrameworkReport pip11 = paddle("11.8", "ON");
  ASSERT_TRUE(pip11.load);
  EXPECT_EQ(pip11.load->library, "libcudnn.so.8") << "CUDA < 12.3 asks for cuDNN 8";
  FrameworkReport local = paddle("12.6", "OFF");
  ASSERT_TRUE(local.load);
  EXPECT_EQ(local.load->library, "libcudnn.so") << "a non-pip build asks for the unversioned name";
  if (local.load->resolution.found) {
    EXPECT_NE(local.load->resolution.canonical, site_ + "/nvidia/cudnn/lib/libcudnn.so.9") << "FLAGS_cudnn_dir is not set";
  }
  make_symlink("libcudnn.so.9", tmp_ / "system/lib/libcudnn.so");
  FrameworkReport dev = paddle("12.6", "OFF");
  ASSERT_TRUE(dev.load && dev.load->resolution.found) << dev.verdict;
  EXPECT_EQ(dev.loaded_cudnn->str(), "9.19.0") << "the -dev link on LD_LIBRARY_PATH";
}

// PaddlePaddle's check as paddle/phi/backends/gpu/gpu_resources.cc applies it: a newer cuDNN major
// passes; the same major at an older version (patch included) only logs a warning. A non-pip
// build (8.9.7 for CUDA 11.8) asks for the unversioned libcudnn.so, here the -dev link of a 9.19
// copy on LD_LIBRARY_PATH. Before the fix the model applied "same major" to Paddle: the 8.9 build
// "fails its check" against 9.19 (it asked for libcudnn.so.8 and found nothing), and the older
// patch passed without Paddle's warning.
TEST_F(Frameworks, PaddleVersionRuleAsItsCodeChecksIt) {
  make_library(site_ + "/paddle/base/libpaddle.so", {"--set-rpath", "$ORIGIN/../libs"});
  make_loading_copy("9.19.0", tmp_ / "system/lib");
  make_symlink("libcudnn.so.9", tmp_ / "system/lib/libcudnn.so");
  env_.vars["LD_LIBRARY_PATH"] = tmp_ / "system/lib";
  auto paddle = [&](const std::string& cuda, const std::string& cudnn) {
    write_text(site_ + "/paddle/version/__init__.py", "full_version = '2.6.2'\ncuda_version = '" + cuda +
                                                          "'\ncudnn_version = '" + cudnn + "'\nwith_pip_cuda_libraries = 'OFF'\n");
    auto reports = inspect_frameworks(*fs_, env_, {pe_}, {"paddle"});
    EXPECT_EQ(reports.size(), 1u);
    return reports.empty() ? FrameworkReport{} : reports[0];
  };
  auto warns = [](const FrameworkReport& r) {
    return std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) { return n.rfind("Paddle warns", 0) == 0; });
  };
  FrameworkReport newer = paddle("11.8", "8.9.7");
  EXPECT_EQ(newer.rule_source, "paddle/phi/backends/gpu/gpu_resources.cc InitGpuProperties / InitDnnHandle (Paddle 2.5+)");
  ASSERT_TRUE(newer.load && newer.load->resolution.found) << newer.verdict;
  EXPECT_EQ(newer.load->library, "libcudnn.so");
  EXPECT_EQ(newer.load->resolution.canonical, tmp_ / "system/lib/libcudnn.so.9");
  ASSERT_TRUE(newer.loaded_cudnn);
  EXPECT_EQ(newer.loaded_cudnn->str(), "9.19.0");
  ASSERT_TRUE(newer.passes) << newer.verdict;
  EXPECT_TRUE(*newer.passes) << newer.verdict;
  EXPECT_NE(newer.verdict.find("a newer major than its build's 8.9.7"), std::string::npos) << newer.verdict;
  EXPECT_FALSE(warns(newer));

  FrameworkReport patch = paddle("12.6", "9.19.1");
  ASSERT_TRUE(patch.passes) << patch.verdict;
  EXPECT_TRUE(*patch.passes) << patch.verdict;
  EXPECT_NE(std::find(patch.notes.begin(), patch.notes.end(),
                      "Paddle warns: the loaded 9.19.0 is older than CUDNN_VERSION 9.19.1 (its check compares the full version)"),
            patch.notes.end())
      << ::testing::PrintToString(patch.notes);

  FrameworkReport same = paddle("12.6", "9.19.0");
  ASSERT_TRUE(same.passes);
  EXPECT_TRUE(*same.passes) << same.verdict;
  EXPECT_FALSE(warns(same)) << ::testing::PrintToString(same.notes);
}

// torch/backends/cudnn/__init__.py _init() returns True before raising when
// PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK is "1": the 9.19 build loading its 9.14 wheel runs.
// Before the fix the model only added a note and still said the pair fails torch's check.
TEST_F(Frameworks, TorchsCheckIsSkippedByPytorchSkipCudnnCompatibilityCheck) {
  make_torch("9.19.0.56", "9.14.0");
  for (const std::string value : {"1", "0"}) {
    env_.vars["PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK"] = value;
    auto reports = inspect_frameworks(*fs_, env_, {pe_}, {"torch"});
    ASSERT_EQ(reports.size(), 1u);
    const FrameworkReport& r = reports[0];
    ASSERT_TRUE(r.passes) << value;
    bool noted = std::find(r.notes.begin(), r.notes.end(),
                           "PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1 is set: PyTorch skips its own version check") != r.notes.end();
    if (value == "1") {
      EXPECT_TRUE(*r.passes) << r.verdict;
      EXPECT_TRUE(noted) << ::testing::PrintToString(r.notes);
      EXPECT_NE(r.verdict.find("PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1 skips its check"), std::string::npos) << r.verdict;
      EXPECT_NE(r.verdict.find("would load 9.14.0"), std::string::npos) << r.verdict;
    } else {
      EXPECT_FALSE(*r.passes) << "only \"1\" skips: " << r.verdict;
      EXPECT_FALSE(noted);
    }
  }
}

}  // namespace
}  // namespace cudnnup
#endif  // CUDNNUP_FIXTURE_DIR
