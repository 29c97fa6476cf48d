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

std::string canonical_path(const std::string& p) {
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
  EXPECT_EQ(reports[0]["env_prefix"], canonical_path(tmp_ / "venv"));
  EXPECT_EQ(reports[0]["loaded_cudnn"], "9.19.0");
}

// "`--python DIR` fails for --system-site-packages venvs."
TEST_F(WhyFrameworks, SystemSitePackagesAreSeen) {
  write_text(tmp_ / "venv/pyvenv.cfg", "home = " + tmp_ / "base/bin" + "\ninclude-system-site-packages = true\n");
  make_torch(tmp_ / "base/lib/python3.11/site-packages", "9.19.0.56", "9.19.0");
  auto reports = report("torch", {"--python", tmp_ / "venv"});
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0]["site_packages"], canonical_path(tmp_ / "base/lib/python3.11/site-packages"));
}

// "An un-activated ./.venv (uv, poetry) is never searched."
TEST_F(WhyFrameworks, AnUnactivatedProjectVenvIsSearched) {
  make_dirs(tmp_ / "proj/src");
  fs::rename(tmp_ / "venv", tmp_ / "proj/.venv");
  make_torch(tmp_ / "proj/.venv/lib/python3.11/site-packages", "9.19.0.56", "9.19.0");
  auto reports = report("torch", {}, {}, tmp_ / "proj/src");
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports[0]["env_prefix"], canonical_path(tmp_ / "proj/.venv"));
}

// "PYENV_ROOT ... never searched."
TEST_F(WhyFrameworks, PyenvRootIsSearched) {
  std::string prefix = tmp_ / "pyenv/versions/3.11.9";
  copy_file(loader_fixture("bin/probe_dlopen"), prefix + "/bin/python3");
  make_torch(prefix + "/lib/python3.11/site-packages", "9.19.0.56", "9.19.0");
  auto reports = report("torch", {}, env({{"PYENV_ROOT", tmp_ / "pyenv"}}));
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports[0]["env_prefix"], canonical_path(prefix));
}

// "uv-managed Pythons are never searched."
TEST_F(WhyFrameworks, UvManagedPythonsAreSearched) {
  std::string prefix = tmp_ / "home/.local/share/uv/python/cpython-3.11.9-linux-x86_64-gnu";
  copy_file(loader_fixture("bin/probe_dlopen"), prefix + "/bin/python3");
  make_torch(prefix + "/lib/python3.11/site-packages", "9.19.0.56", "9.19.0");
  auto reports = report("torch");
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports[0]["env_prefix"], canonical_path(prefix));
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
  const nlohmann::json* copy = nullptr;
  for (const auto& c : r.json["copies"]) {
    if (c.value("lib_dir", "") == canonical_path(env_dir + "/lib")) copy = &c;
  }
  ASSERT_NE(copy, nullptr) << "doctor should list the copy in " << env_dir << "/lib\n" << r.out;
  EXPECT_EQ((*copy)["form"], "conda");
  // The package comes from the conda-meta record (before, the record was read and never used).
  EXPECT_EQ((*copy)["package"], "cudnn 9.14.0.64") << copy->dump(1);
  // The text report's line for the copy names it too: "cuDNN 9.14.0  DIR  [conda, ..., cudnn 9.14.0.64]".
  auto text = run_cli({"doctor"}, env(), tmp_ / "work");
  size_t at = text.out.find(canonical_path(env_dir + "/lib") + "  [conda");
  ASSERT_NE(at, std::string::npos) << text.out;
  std::string line = text.out.substr(at, text.out.find('\n', at) - at);
  EXPECT_NE(line.find(", cudnn 9.14.0.64]"), std::string::npos) << line;
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
  // The venv directory, not venv/bin/python3: the build before the fix canonicalised the
  // interpreter to the base and found no paddle at all, which would hide the loading rule.
  auto reports = report("paddle", {"--python", tmp_ / "venv"}, env({{"LD_LIBRARY_PATH", tmp_ / "system/lib"}}));
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0]["load"]["resolution"]["canonical"], canonical_path(site_ + "/nvidia/cudnn/lib/libcudnn.so.9"));
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
  // The venv directory (see PaddleLoadsItsWheelsCopyByPath); the build before the fix gave one
  // answer, with no preload_dlls() variant.
  auto reports = report("onnxruntime", {"--python", tmp_ / "venv"}, env({{"LD_LIBRARY_PATH", tmp_ / "system/lib"}}));
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0]["variant"], "");
  EXPECT_EQ(reports[0]["loaded_cudnn"], "9.14.0") << "without preload the provider's DT_NEEDED takes LD_LIBRARY_PATH";
  EXPECT_EQ(reports[0]["load"]["resolution"]["canonical"], canonical_path(tmp_ / "system/lib/libcudnn.so.9"));
  EXPECT_EQ(reports[0]["load"]["cudnn"]["mixed_copies"], false);
  EXPECT_EQ(reports[1]["variant"], "after onnxruntime.preload_dlls()");
  EXPECT_EQ(reports[1]["load"]["resolution"]["canonical"], canonical_path(site_ + "/nvidia/cudnn/lib/libcudnn.so.9"));
  // The wheel's 9.19 shim, preloaded by path, takes its sub-libraries from LD_LIBRARY_PATH: a mix.
  EXPECT_EQ(reports[1]["load"]["cudnn"]["mixed_copies"], true) << reports[1]["load"].dump(1);
}

// "JAX's preload of the pip cuDNN exists only in recent plugin versions but is modelled for all."
// Both eras with DT_RUNPATH and a 9.14 copy on LD_LIBRARY_PATH: an old plugin (no
// _load_nvidia_libraries in its __init__.py) loads the LD_LIBRARY_PATH copy whole; one that has
// it preloads the wheel's shim, whose sub-libraries still come from LD_LIBRARY_PATH (a mix). The
// build before the fix preloaded the wheel's shim for the old plugin too.
TEST_F(WhyFrameworks, JaxPreloadsThePipCudnnOnlyFromThePluginVersionsThatDoIt) {
  struct Era {
    std::string version, init;
    bool preloads;
  };
  for (const Era& era : {Era{"0.4.30", "import os\ndef initialize():\n    pass\n", false},
                         Era{"0.7.0",
                             "import os\ndef _load_nvidia_libraries():\n    pass\ndef initialize():\n"
                             "    _load_nvidia_libraries()\n",
                             true}}) {
    TempDir t;
    std::string site = t / "venv/lib/python3.11/site-packages";
    write_text(t / "venv/pyvenv.cfg", "home = " + tmp_ / "base/bin" + "\ninclude-system-site-packages = false\n");
    make_symlink(tmp_ / "base/bin/python3.11", t / "venv/bin/python3");
    write_text(site + "/jax/__init__.py", "__version__ = '" + era.version + "'\n");
    std::string plugin = site + "/jax_plugins/xla_cuda12";
    write_text(plugin + "/__init__.py", era.init);
    make_plain_library(plugin + "/xla_cuda_plugin.so", "runpath", "$ORIGIN/../../nvidia/cudnn/lib");
    write_text(site + "/jax_cuda12_plugin-" + era.version + ".dist-info/METADATA", "Requires-Dist: nvidia-cudnn-cu12>=9.1\n");
    make_loading_copy("9.19.0", site + "/nvidia/cudnn/lib");
    make_loading_copy("9.14.0", t / "system/lib");
    // The venv directory: the build before the fix followed venv/bin/python3 to the base.
    auto reports = report("jax", {"--python", t / "venv"}, env({{"LD_LIBRARY_PATH", t / "system/lib"}}));
    ASSERT_EQ(reports.size(), 1u) << era.version;
    const auto& load = reports[0]["load"];
    ASSERT_TRUE(load.is_object()) << reports[0].dump(1);
    EXPECT_EQ(load["resolution"]["canonical"],
              canonical_path((era.preloads ? site + "/nvidia/cudnn/lib" : t / "system/lib") + "/libcudnn.so.9"))
        << era.version;
    EXPECT_EQ(load["cudnn"]["mixed_copies"], era.preloads) << era.version << "\n" << load.dump(1);
    EXPECT_EQ(reports[0]["loaded_cudnn"], "9.14.0") << "the graph library comes from LD_LIBRARY_PATH in both eras";
  }
}

// PaddlePaddle's version check as gpu_resources.cc applies it, end to end: a non-pip build for
// cuDNN 8.9 / CUDA 11.8 loading 9.19 (through the -dev link on LD_LIBRARY_PATH) passes, a newer
// major being allowed. The build before the fix applied "same major" and asked for libcudnn.so.8.
TEST_F(WhyFrameworks, PaddleBuiltForCudnn8PassesWithCudnn9AsItsCodeChecks) {
  write_text(site_ + "/paddle/version/__init__.py",
             "full_version = '2.6.2'\ncuda_version = '11.8'\ncudnn_version = '8.9.7'\nwith_pip_cuda_libraries = 'OFF'\n");
  make_plain_library(site_ + "/paddle/base/libpaddle.so", "runpath", "$ORIGIN/../libs");
  make_loading_copy("9.19.0", tmp_ / "system/lib");
  make_symlink("libcudnn.so.9", tmp_ / "system/lib/libcudnn.so");
  auto reports = report("paddle", {"--python", tmp_ / "venv"}, env({{"LD_LIBRARY_PATH", tmp_ / "system/lib"}}));
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0]["rule_source"], "paddle/phi/backends/gpu/gpu_resources.cc InitGpuProperties / InitDnnHandle (Paddle 2.5+)");
  EXPECT_EQ(reports[0]["load"]["library"], "libcudnn.so");
  EXPECT_EQ(reports[0]["load"]["resolution"]["canonical"], canonical_path(tmp_ / "system/lib/libcudnn.so.9"));
  EXPECT_EQ(reports[0]["loaded_cudnn"], "9.19.0");
  EXPECT_EQ(reports[0]["passes"], true) << reports[0].dump(1);
  EXPECT_NE(reports[0]["verdict"].get<std::string>().find("a newer major than its build's 8.9.7"), std::string::npos)
      << reports[0]["verdict"];
}

}  // namespace
}  // namespace cudnnup
#endif  // CUDNNUP_FIXTURE_DIR
