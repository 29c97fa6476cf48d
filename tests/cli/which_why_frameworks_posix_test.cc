// The loader mistakes about frameworks and Python environments, end to end through the
// cudnnup binary (CUDNNUP_TEST_BINARY points them at another build). The fixture site-packages
// hold only what each framework's loading code reads (its version files, the library that
// loads cuDNN with its real DT_RPATH/DT_RUNPATH, the nvidia-cudnn wheel's copy).
#ifdef CUDNNUP_FIXTURE_DIR
#include <gtest/gtest.h>

#include <filesystem>

#include "platform/process.h"
#include "support/fixture_libs.h"
#include "support/loader_fixtures.h"
#include "support/run_cli.h"

namespace cudnnup {
namespace {

namespace fs = std::filesystem;
using testing::copy_file;
using testing::loader_fixture;
using testing::make_dirs;
using testing::make_loading_copy;
using testing::make_symlink;
using testing::run_cli;
using testing::TempDir;
using testing::write_text;

std::string canonical(const std::string& p) {
  std::error_code ec;
  auto c = fs::canonical(p, ec);
  return ec ? p : c.generic_string();
}

void run_ok(const std::vector<std::string>& argv) {
  ProcessOptions o;
  o.env = std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin:/usr/sbin:/sbin"}};
  auto r = run_process(argv, o);
  ASSERT_TRUE(r && r->exited_normally() && r->exit_code == 0) << argv[0] << ": " << (r ? r->out + r->err : "");
}

// A library with no cuDNN dependency and the given DT_RUNPATH / DT_RPATH: a framework library
// that dlopen()s cuDNN at run time (libpaddle.so, xla_cuda_plugin.so).
void make_plain_library(const std::string& path, const std::string& tag, const std::string& paths) {
  copy_file(loader_fixture("chain/libleaf.so"), path);
  run_ok({"patchelf", "--remove-needed", "libcudnn.so.9", path});
  if (tag.empty()) return;
  std::vector<std::string> args = {"patchelf"};
  if (tag == "rpath") args.push_back("--force-rpath");
  args.insert(args.end(), {"--set-rpath", paths, path});
  run_ok(args);
}

class WhyFrameworks : public ::testing::Test {
 protected:
  void SetUp() override {
    site_ = tmp_ / "venv/lib/python3.11/site-packages";
    // A base Python (any ELF stands in for the interpreter) and a venv made from it.
    copy_file(loader_fixture("bin/probe_dlopen"), tmp_ / "base/bin/python3.11");
    make_symlink("python3.11", tmp_ / "base/bin/python3");
    make_dirs(tmp_ / "base/lib/python3.11/site-packages");
    write_text(tmp_ / "venv/pyvenv.cfg", "home = " + tmp_ / "base/bin" + "\ninclude-system-site-packages = false\n");
    make_symlink(tmp_ / "base/bin/python3.11", tmp_ / "venv/bin/python3");
    make_dirs(site_);
    make_dirs(tmp_ / "home");
    make_dirs(tmp_ / "work");
  }
  std::map<std::string, std::string> env(std::map<std::string, std::string> more = {}) {
    more.emplace("PATH", "/usr/bin:/bin");
    more.emplace("HOME", tmp_ / "home");
    more.emplace("NO_COLOR", "1");
    return more;
  }
  // torch 2.9 whose wheel pins `pin` and whose nvidia-cudnn wheel is `wheel`, in `site`.
  void make_torch(const std::string& site, const std::string& pin, const std::string& wheel) {
    write_text(site + "/torch/version.py", "__version__ = '2.9.0+cu130'\ncuda = '13.0'\n");
    write_text(site + "/torch-2.9.0+cu130.dist-info/METADATA", "Name: torch\nRequires-Dist: nvidia-cudnn-cu13==" + pin + "\n");
    copy_file(loader_fixture("torch/libtorch_cuda.so"), site + "/torch/lib/libtorch_cuda.so");
    make_loading_copy(wheel, site + "/nvidia/cudnn/lib");
  }
  // The first report of `which --for FRAMEWORK` (with `extra` arguments).
  nlohmann::json report(const std::string& framework, std::vector<std::string> extra = {},
                        std::map<std::string, std::string> e = {}, const std::string& cwd = {}) {
    std::vector<std::string> args = {"--json", "which", "--for", framework};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run_cli(args, e.empty() ? env() : e, cwd.empty() ? tmp_ / "work" : cwd);
    EXPECT_TRUE(r.json.is_object()) << r.out << r.err;
    if (!r.json.is_object() || !r.json.contains("reports")) return {};
    return r.json["reports"];
  }
  std::string site_;
  TempDir tmp_;
};

// "`which --for torch --python VENV/bin/python3` canonicalises the venv interpreter to the base
// interpreter and finds nothing."
TEST_F(WhyFrameworks, AVenvInterpreterIsNotFollowedToTheBase) {
  make_torch(site_, "9.19.0.56", "9.19.0");
  auto reports = report("torch", {"--python", tmp_ / "venv/bin/python3"});
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0]["env_prefix"], canonical(tmp_ / "venv"));
  EXPECT_EQ(reports[0]["loaded_cudnn"], "9.19.0");
}

// "`--python DIR` fails for --system-site-packages venvs."
TEST_F(WhyFrameworks, SystemSitePackagesAreSeen) {
  write_text(tmp_ / "venv/pyvenv.cfg", "home = " + tmp_ / "base/bin" + "\ninclude-system-site-packages = true\n");
  make_torch(tmp_ / "base/lib/python3.11/site-packages", "9.19.0.56", "9.19.0");
  auto reports = report("torch", {"--python", tmp_ / "venv"});
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0]["site_packages"], canonical(tmp_ / "base/lib/python3.11/site-packages"));
}

// "An un-activated ./.venv (uv, poetry) is never searched."
TEST_F(WhyFrameworks, AnUnactivatedProjectVenvIsSearched) {
  make_dirs(tmp_ / "proj/src");
  fs::rename(tmp_ / "venv", tmp_ / "proj/.venv");
  make_torch(tmp_ / "proj/.venv/lib/python3.11/site-packages", "9.19.0.56", "9.19.0");
  auto reports = report("torch", {}, {}, tmp_ / "proj/src");
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports[0]["env_prefix"], canonical(tmp_ / "proj/.venv"));
}

// "PYENV_ROOT ... never searched."
TEST_F(WhyFrameworks, PyenvRootIsSearched) {
  std::string prefix = tmp_ / "pyenv/versions/3.11.9";
  copy_file(loader_fixture("bin/probe_dlopen"), prefix + "/bin/python3");
  make_torch(prefix + "/lib/python3.11/site-packages", "9.19.0.56", "9.19.0");
  auto reports = report("torch", {}, env({{"PYENV_ROOT", tmp_ / "pyenv"}}));
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports[0]["env_prefix"], canonical(prefix));
}

// "uv-managed Pythons are never searched."
TEST_F(WhyFrameworks, UvManagedPythonsAreSearched) {
  std::string prefix = tmp_ / "home/.local/share/uv/python/cpython-3.11.9-linux-x86_64-gnu";
  copy_file(loader_fixture("bin/probe_dlopen"), prefix + "/bin/python3");
  make_torch(prefix + "/lib/python3.11/site-packages", "9.19.0.56", "9.19.0");
  auto reports = report("torch");
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports[0]["env_prefix"], canonical(prefix));
}

// "A conda env without Python is not listed at all (its lib/ holds cuDNN for TensorFlow and
// friends), and conda-meta/*.json is not read."
TEST_F(WhyFrameworks, ACondaEnvWithoutPythonIsACopyDoctorFinds) {
  std::string env_dir = tmp_ / "home/miniconda3/envs/cudnn-only";
  write_text(env_dir + "/conda-meta/history", "");
  write_text(env_dir + "/conda-meta/cudnn-9.14.0.64-h1_0.json", R"({"name": "cudnn", "version": "9.14.0.64", "build": "h1_0"})");
  make_loading_copy("9.14.0", env_dir + "/lib");
  auto r = run_cli({"--json", "doctor"}, env(), tmp_ / "work");
  ASSERT_TRUE(r.json.is_object()) << r.out << r.err;
  bool found = false;
  for (const auto& c : r.json["copies"]) found |= c.value("lib_dir", "") == canonical(env_dir + "/lib");
  EXPECT_TRUE(found) << "doctor should list the copy in " << env_dir << "/lib";
}

// "PaddlePaddle's cu12 pip wheels set FLAGS_cudnn_dir to the wheel's nvidia/cudnn/lib and load
// libcudnn.so.9 from there by path before a plain dlopen." The shim is the wheel's; its own
// dlopen of its sub-libraries puts LD_LIBRARY_PATH before its DT_RUNPATH $ORIGIN, so the graph
// library, and with it cudnnGetVersion(), come from the 9.19 copy there (as a real process does
// with these fixtures). The test first expected 9.14, the version of the shim alone.
TEST_F(WhyFrameworks, PaddleLoadsItsWheelsCopyByPath) {
  write_text(site_ + "/paddle/version/__init__.py",
             "full_version = '3.0.0'\ncuda_version = '12.6'\ncudnn_version = '9.14.0'\nwith_pip_cuda_libraries = 'ON'\n");
  make_plain_library(site_ + "/paddle/base/libpaddle.so", "runpath", "$ORIGIN/../libs");
  make_loading_copy("9.14.0", site_ + "/nvidia/cudnn/lib");
  make_loading_copy("9.19.0", tmp_ / "system/lib");
  auto reports = report("paddle", {"--python", tmp_ / "venv/bin/python3"}, env({{"LD_LIBRARY_PATH", tmp_ / "system/lib"}}));
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0]["load"]["resolution"]["canonical"], canonical(site_ + "/nvidia/cudnn/lib/libcudnn.so.9"));
  EXPECT_EQ(reports[0]["load"]["cudnn"]["mixed_copies"], true);
  EXPECT_EQ(reports[0]["loaded_cudnn"], "9.19.0");
}

// "ONNX Runtime >= 1.21's preload_dlls() loads the wheel's cuDNN by path and changes the answer."
TEST_F(WhyFrameworks, OnnxRuntimeWithAndWithoutPreloadDlls) {
  write_text(site_ + "/onnxruntime/__init__.py", "__version__ = '1.22.0'\ndef preload_dlls(cuda=True, cudnn=True, msvc=True, directory=None):\n    pass\n");
  write_text(site_ + "/onnxruntime/capi/build_and_package_info.py", "package_name = 'onnxruntime-gpu'\ncuda_version = '12.8'\n");
  make_dirs(site_ + "/onnxruntime_gpu-1.22.0.dist-info");
  copy_file(loader_fixture("chain/libleaf.so"), site_ + "/onnxruntime/capi/libonnxruntime_providers_cuda.so");
  make_loading_copy("9.19.0", site_ + "/nvidia/cudnn/lib");
  make_loading_copy("9.14.0", tmp_ / "system/lib");
  auto reports = report("onnxruntime", {"--python", tmp_ / "venv/bin/python3"}, env({{"LD_LIBRARY_PATH", tmp_ / "system/lib"}}));
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0]["variant"], "");
  EXPECT_EQ(reports[0]["loaded_cudnn"], "9.14.0") << "without preload the provider's DT_NEEDED takes LD_LIBRARY_PATH";
  EXPECT_EQ(reports[1]["variant"], "after onnxruntime.preload_dlls()");
  EXPECT_EQ(reports[1]["load"]["resolution"]["canonical"], canonical(site_ + "/nvidia/cudnn/lib/libcudnn.so.9"));
}

// "JAX's preload of the pip cuDNN exists only in recent plugin versions but is modelled for all."
TEST_F(WhyFrameworks, AJaxPluginWithoutThePreloadFollowsItsRunpath) {
  std::string plugin = site_ + "/jax_plugins/xla_cuda12";
  write_text(plugin + "/__init__.py", "import os\ndef initialize():\n    pass\n");
  make_plain_library(plugin + "/xla_cuda_plugin.so", "runpath", "$ORIGIN/../../nvidia/cudnn/lib");
  write_text(site_ + "/jax_cuda12_plugin-0.4.18.dist-info/METADATA", "Requires-Dist: nvidia-cudnn-cu12>=9.1\n");
  make_loading_copy("9.19.0", site_ + "/nvidia/cudnn/lib");
  make_loading_copy("9.14.0", tmp_ / "system/lib");
  auto reports = report("jax", {"--python", tmp_ / "venv/bin/python3"}, env({{"LD_LIBRARY_PATH", tmp_ / "system/lib"}}));
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0]["loaded_cudnn"], "9.14.0") << "DT_RUNPATH: LD_LIBRARY_PATH comes first, nothing is preloaded";
}

}  // namespace
}  // namespace cudnnup
#endif  // CUDNNUP_FIXTURE_DIR
