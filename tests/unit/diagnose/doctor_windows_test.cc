// The whole doctor on a Windows machine described on the in-memory filesystem, with a fake
// Prober: the procedure's pitfalls as doctor reports them (runs on every OS).
#include <gtest/gtest.h>

#include <algorithm>

#include "diagnose/doctor.h"
#include "support/fake_prober.h"
#include "support/memory_fs.h"
#include "support/pe_builder.h"

namespace cudnnup {
namespace {

using testing::build_pe_dll;
using testing::FakeProber;
using testing::MemoryFileSystem;

const std::string kToolkit = "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.2";

// CUDA 11.2 with cuDNN 8.1 merged into its bin (the TensorFlow 2.10 recipe), and a venv with
// TensorFlow 2.10's GPU build.
void add_machine(MemoryFileSystem& fs) {
  fs.add_file(kToolkit + "/include/cuda.h", "#define CUDA_VERSION 11020\n");
  fs.add_file(kToolkit + "/include/cudnn_version.h", "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 1\n");
  fs.add_file(kToolkit + "/bin/cudnn64_8.dll", build_pe_dll(kPeMachineX64, {"KERNEL32.dll"}));
  fs.add_file(kToolkit + "/bin/cudnn_ops_infer64_8.dll", build_pe_dll(kPeMachineX64, {"KERNEL32.dll"}));
  fs.add_file("C:/venv/pyvenv.cfg", "home = C:\\Python310\n");
  fs.add_file("C:/venv/Scripts/python.exe", build_pe_dll(kPeMachineX64, {"KERNEL32.dll"}));
  fs.add_dir("C:/venv/Lib/site-packages/tensorflow_gpu-2.10.0.dist-info");
  fs.add_file("C:/venv/Lib/site-packages/tensorflow/python/platform/build_info.py",
              "build_info = collections.OrderedDict([('cuda_version', '64_112'), ('cudnn_dll_name', 'cudnn64_8.dll'), "
              "('cudnn_version', '64_8'), ('is_cuda_build', True)])\n");
}

Environment windows_env(const std::string& path) {
  Environment env;
  env.os = OsKind::kWindows;
  env.home = "C:/Users/me";
  env.cwd = "C:/Users/me";
  env.vars = {{"PATH", path}, {"SYSTEMROOT", "C:\\Windows"}, {"VIRTUAL_ENV", "C:\\venv"},
              {"CUDA_PATH", "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2"}};
  env.persistent_machine_path = "C:\\Windows\\System32";
  env.persistent_user_path = "";
  return env;
}

const Finding* find(const Report& r, const std::string& id) {
  auto it = std::find_if(r.findings.begin(), r.findings.end(), [&](const Finding& f) { return f.id == id; });
  return it == r.findings.end() ? nullptr : &*it;
}

// Step 4 of the procedure skipped: the toolkit's bin is not on PATH. doctor says so as an error
// (it used to say "0 errors"), and TensorFlow, which finds cuDNN only through PATH on Windows, is
// reported among the frameworks with its failing load.
TEST(DoctorOnWindows, ACudnnBinOffPathIsAnErrorAndTheFrameworksSayWhy) {
  MemoryFileSystem fs;
  add_machine(fs);
  FakeProber prober;
  prober.set_cudnn_loaded(kToolkit + "/bin/cudnn64_8.dll", 8101, 11020);
  Environment env = windows_env("C:\\Windows\\System32");
  DoctorInputs in{fs, env, prober, builtin_rules()};
  DoctorOutcome out = run_doctor_full(in);
  const Finding* off = find(out.report, "windows.cudnn_not_on_path");
  ASSERT_NE(off, nullptr);
  EXPECT_EQ(off->severity, Severity::kError);
  ASSERT_FALSE(off->fix.empty());
  EXPECT_EQ(off->fix[0].argv, (std::vector<std::string>{"cudnnup", "env", "--persist", "--dir",
                                                         "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin"}));
  ASSERT_EQ(out.frameworks.size(), 1u);
  EXPECT_EQ(out.frameworks[0].framework, "tensorflow");
  ASSERT_TRUE(out.frameworks[0].built_cudnn);
  EXPECT_EQ(out.frameworks[0].built_cudnn->str(), "8.1");
  const Finding* rejected = find(out.report, "framework.cudnn_rejected");
  ASSERT_NE(rejected, nullptr);
  EXPECT_NE(rejected->title.find("no cuDNN would load"), std::string::npos) << rejected->title;

  // With the bin on PATH, both are gone and TensorFlow passes its own check.
  Environment fixed = windows_env("C:\\Windows\\System32;C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin");
  fixed.persistent_user_path = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin";
  DoctorInputs again{fs, fixed, prober, builtin_rules()};
  DoctorOutcome after = run_doctor_full(again);
  EXPECT_EQ(find(after.report, "windows.cudnn_not_on_path"), nullptr);
  EXPECT_EQ(find(after.report, "framework.cudnn_rejected"), nullptr);
  ASSERT_EQ(after.frameworks.size(), 1u);
  ASSERT_TRUE(after.frameworks[0].passes.has_value());
  EXPECT_TRUE(*after.frameworks[0].passes) << after.frameworks[0].verdict;
}

}  // namespace
}  // namespace cudnnup
