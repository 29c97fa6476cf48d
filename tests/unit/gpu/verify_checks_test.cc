#include "gpu/verify_checks.h"
#include "shell/fix_render.h"

#include <gtest/gtest.h>

#include "gpu/verify_locate.h"
#include "support/memory_fs.h"

namespace cudnnup {
namespace {

TEST(VerifyToolkit, ParsesNvccAndReports) {
  const char* out =
      "nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2025 NVIDIA Corporation\n"
      "Cuda compilation tools, release 13.0, V13.0.88\nBuild cuda_13.0.r13.0/compiler.36424714_0\n";
  EXPECT_EQ(parse_nvcc_version(out)->str(), "13.0.88");
  EXPECT_EQ(parse_nvcc_version("Cuda compilation tools, release 12.4")->str(), "12.4");
  EXPECT_FALSE(parse_nvcc_version("command not found"));

  std::optional<Version> v;
  EXPECT_EQ(check_toolkit(ToolkitFacts{}, &v).status, StageStatus::kSkipped);
  EXPECT_FALSE(v);
  auto pass = check_toolkit(ToolkitFacts{"/usr/local/cuda/bin/nvcc", true, out, ""}, &v);
  EXPECT_EQ(pass.status, StageStatus::kPass);
  EXPECT_EQ(v->str(), "13.0.88");
  auto broken = check_toolkit(ToolkitFacts{"/x/bin/nvcc", false, "", "exited with code 127"}, &v);
  EXPECT_EQ(broken.status, StageStatus::kFail);
  ASSERT_TRUE(broken.finding);
  EXPECT_EQ(broken.finding->id, "verify.toolkit.nvcc_broken");
}

TEST(VerifyHeaders, ParsesVersionHeader) {
  const char* text =
      "#ifndef CUDNN_VERSION_H_\n#define CUDNN_MAJOR 9\n#define CUDNN_MINOR    19\n#define CUDNN_PATCHLEVEL 0\n"
      "#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n"
      "#define CUDNN_MAX_SM_MAJOR_NUMBER 12\n#define CUDNN_MAX_SM_MINOR_NUMBER 1\n";
  std::optional<Version> v;
  EXPECT_EQ(check_headers(HeaderFacts{"", "", {"/a/include/cudnn_version.h"}}, &v).status, StageStatus::kSkipped);
  EXPECT_EQ(check_headers(HeaderFacts{"/a/include/cudnn_version.h", text, {}}, &v).status, StageStatus::kPass);
  EXPECT_EQ(v->str(), "9.19.0");
  EXPECT_EQ(check_headers(HeaderFacts{"/a/include/cudnn_version.h", "garbage", {}}, &v).status, StageStatus::kFail);
}

TEST(VerifyHeaders, CandidatesPerLayout) {
  auto pip = header_candidates("/venv/lib/python3.12/site-packages/nvidia/cudnn/lib");
  EXPECT_EQ(pip.front(), "/venv/lib/python3.12/site-packages/nvidia/cudnn/include/cudnn_version.h");
  auto debian = header_candidates("/usr/lib/x86_64-linux-gnu");
  EXPECT_NE(std::find(debian.begin(), debian.end(), "/usr/include/x86_64-linux-gnu/cudnn_version_v9.h"), debian.end());
  auto win = header_candidates("C:/cudnn/lib/x64");
  EXPECT_EQ(win.front(), "C:/cudnn/include/cudnn_version.h");
}

LibraryLoad loaded(const std::string& component, const std::string& dir, int major = 9) {
  LibraryLoad l;
  l.component = component;
  l.path = dir + "/" + cudnn_library_file_name(component, major, false);
  l.present = l.loaded = true;
  return l;
}

LibrarySetFacts good_set(const std::string& dir) {
  LibrarySetFacts f;
  f.lib_dir = dir;
  f.major = 9;
  f.version = Version{9, 19, 0};
  f.shim = loaded("cudnn", dir);
  for (const auto& c : required_sublibraries(9, f.version)) f.sublibraries.push_back(loaded(c, dir));
  f.loaded_modules = {"/usr/lib/libc.so.6", dir + "/libcudnn.so.9", dir + "/libcudnn_ops.so.9"};
  f.version_checks = {{"cudnnGraphVersionCheck", 0}, {"cudnnCnnVersionCheck", 0}};
  return f;
}

TEST(VerifyLibrarySet, RequiredSubLibrariesByVersion) {
  EXPECT_EQ(required_sublibraries(9, Version{9, 19, 0}).size(), 7u);
  auto newer = required_sublibraries(9, Version{9, 21, 0});
  EXPECT_NE(std::find(newer.begin(), newer.end(), "engines_tensor_ir"), newer.end());
  EXPECT_EQ(required_sublibraries(8, Version{8, 9, 7}).size(), 6u);
  EXPECT_EQ(cudnn_library_file_name("ops", 9, true), "cudnn_ops64_9.dll");
  EXPECT_EQ(cudnn_library_file_name("cudnn", 8, false), "libcudnn.so.8");
}

TEST(VerifyLibrarySet, PassesForACompleteCopy) {
  auto s = check_library_set(good_set("/c/lib"));
  EXPECT_EQ(s.status, StageStatus::kPass) << s.summary;
  EXPECT_NE(s.summary.find("7 sub-libraries"), std::string::npos);
}

TEST(VerifyLibrarySet, TruncatedEngineLibrary) {
  auto f = good_set("/c/lib");
  for (auto& l : f.sublibraries) {
    if (l.component == "engines_precompiled") {
      l.loaded = false;
      l.error = "not loaded: truncated: a loadable segment ends at byte 245391920 but the file has 100000000";
      l.elf_problems = {"truncated: a loadable segment ends at byte 245391920 but the file has 100000000"};
    }
  }
  auto s = check_library_set(f);
  ASSERT_EQ(s.status, StageStatus::kFail);
  EXPECT_EQ(s.finding->id, "verify.library.sublibrary_broken");
  EXPECT_NE(s.summary.find("libcudnn_engines_precompiled.so.9 (the file is truncated or corrupt)"), std::string::npos)
      << s.summary;
  EXPECT_NE(render_fix(s.finding->fix, Shell::kBash).front().find("cuDNN 9.19.0"), std::string::npos);
  EXPECT_EQ(s.finding->fix.back().argv[1], "verify") << "then the same check again";
}

TEST(VerifyLibrarySet, MissingSubLibrary) {
  auto f = good_set("/c/lib");
  f.sublibraries[2].loaded = false;
  f.sublibraries[2].present = false;
  auto s = check_library_set(f);
  ASSERT_EQ(s.status, StageStatus::kFail);
  EXPECT_EQ(s.finding->id, "verify.library.sublibrary_missing");
  EXPECT_NE(s.summary.find("libcudnn_cnn.so.9"), std::string::npos);
}

TEST(VerifyLibrarySet, SubLibraryFromAnotherVersion) {
  auto f = good_set("/c/lib");
  f.version_checks = {{"cudnnGraphVersionCheck", 0}, {"cudnnCnnVersionCheck", 1002}};
  auto s = check_library_set(f);
  ASSERT_EQ(s.status, StageStatus::kFail);
  EXPECT_EQ(s.finding->id, "verify.library.sublibrary_version_mismatch");
  EXPECT_NE(s.summary.find("CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH"), std::string::npos);

  // Versions in real file names tell it too (system packages keep libX.so.9.14.0).
  auto g = good_set("/usr/lib/x86_64-linux-gnu");
  g.sublibraries[1].real_path = "/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9.14.0";
  auto t = check_library_set(g);
  ASSERT_EQ(t.status, StageStatus::kFail);
  EXPECT_NE(t.summary.find("9.14.0"), std::string::npos);
}

TEST(VerifyLibrarySet, SubLibraryThatNeedsSymbolsOfAnotherRelease) {
  // The loader's message when libcudnn_cnn.so.9 of 9.14 sits in a 9.19 copy (seen on the H200).
  auto f = good_set("/tmp/mixed");
  for (auto& l : f.sublibraries) {
    if (l.component == "cnn") {
      l.loaded = false;
      l.error = "/tmp/mixed/libcudnn_cnn.so.9: undefined symbol: _ZTVN5cudnn7backend12OperationSetE, version "
                "libcudnn_graph.so.9";
    }
  }
  auto s = check_library_set(f);
  ASSERT_EQ(s.status, StageStatus::kFail);
  EXPECT_EQ(s.finding->id, "verify.library.sublibrary_version_mismatch");
  EXPECT_NE(s.summary.find("libcudnn_cnn.so.9"), std::string::npos);
  EXPECT_NE(render_fix(s.finding->fix, Shell::kBash).front().find("Replace libcudnn_cnn.so.9"), std::string::npos);
}

TEST(VerifyLibrarySet, LibraryFromAnotherCopyLoaded) {
  auto f = good_set("/c/lib");
  f.loaded_modules.push_back("/usr/lib/x86_64-linux-gnu/libcudnn_graph.so.9.14.0");
  // The copy's own files then fail to bind (they see the other copy's graph): that is a symptom.
  for (auto& l : f.sublibraries) {
    if (l.component == "cnn") {
      l.loaded = false;
      l.error = "/c/lib/libcudnn_cnn.so.9: undefined symbol: _ZTVN5cudnn7backend12OperationSetE, version libcudnn_graph.so.9";
    }
  }
  auto s = check_library_set(f);
  ASSERT_EQ(s.status, StageStatus::kFail);
  EXPECT_EQ(s.finding->id, "verify.library.mixed_copies");
  // Both copies are named, the other with the version its file name carries; no "replace".
  EXPECT_NE(s.finding->title.find("/usr/lib/x86_64-linux-gnu (cuDNN 9.14.0)"), std::string::npos) << s.finding->title;
  EXPECT_NE(s.finding->title.find("/c/lib"), std::string::npos);
  for (const auto& fix : render_fix(s.finding->fix, Shell::kBash)) EXPECT_EQ(fix.find("Replace"), std::string::npos) << fix;
}

TEST(VerifyLibrarySet, MissingApiFailsTheStage) {
  auto f = good_set("/c/lib");
  f.missing_symbols = {"cudnnBackendExecute", "cudnnRNNForward"};
  auto s = check_library_set(f);
  ASSERT_EQ(s.status, StageStatus::kFail);
  EXPECT_EQ(s.finding->id, "verify.library.symbols_missing");
  EXPECT_NE(s.summary.find("cudnnBackendExecute, cudnnRNNForward"), std::string::npos) << s.summary;
  ASSERT_EQ(s.finding->evidence.size(), 2u);  // one line per API group
  EXPECT_NE(s.finding->evidence[0].find("backend (graph) API"), std::string::npos);
}

TEST(VerifyModulesStage, ReChecksAfterTheGpuStagesAndTeardown) {
  std::vector<std::pair<std::string, std::vector<std::string>>> clean = {
      {"after the GPU stages", {"/c/lib/libcudnn.so.9", "/c/lib/libcudnn_engines_precompiled.so.9"}},
      {"after teardown", {"/c/lib/libcudnn.so.9"}}};
  auto pass = check_mapped_modules("/c/lib", false, clean);
  EXPECT_EQ(pass.status, StageStatus::kPass) << pass.summary;
  EXPECT_NE(pass.summary.find("2 cuDNN files mapped"), std::string::npos) << pass.summary;
  auto late = clean;
  late[0].second.push_back("/opt/other/libcudnn_engines_runtime_compiled.so.9");  // loaded lazily by cuDNN
  auto fail = check_mapped_modules("/c/lib", false, late);
  ASSERT_EQ(fail.status, StageStatus::kFail);
  EXPECT_EQ(fail.id, "modules");
  EXPECT_EQ(fail.finding->id, "verify.library.mixed_copies");
  EXPECT_NE(fail.finding->title.find("/opt/other"), std::string::npos);
  EXPECT_NE(fail.finding->evidence.back().find("after the GPU stages"), std::string::npos);
}

TEST(VerifyLibrarySet, ShimThatDoesNotLoad) {
  auto f = good_set("/c/lib");
  f.shim.loaded = false;
  f.shim.error = "libz.so.1: cannot open shared object file: No such file or directory";
  auto s = check_library_set(f);
  ASSERT_EQ(s.status, StageStatus::kFail);
  EXPECT_NE(s.summary.find("a library it needs is missing: libz.so.1"), std::string::npos) << s.summary;
}

TEST(VerifyVersions, AgreeAndDisagree) {
  VersionFacts f;
  f.header = Version{9, 19, 0};
  f.library_number = 91900;
  f.cudart_number = 13000;
  f.max_device_version = 1210;
  f.driver_cuda_number = 13000;
  f.gpu_cc = Version{9, 0};
  f.gpu_name = "NVIDIA H200";
  EXPECT_EQ(check_versions(f).status, StageStatus::kPass);

  auto header = f;
  header.header = Version{9, 14, 0};
  EXPECT_EQ(check_versions(header).finding->id, "verify.versions.header_library_mismatch");

  auto driver = f;
  driver.driver_cuda_number = 12080;
  auto d = check_versions(driver);
  ASSERT_EQ(d.status, StageStatus::kFail);
  EXPECT_EQ(d.finding->id, "verify.versions.driver_too_old");

  auto gpu = f;
  gpu.max_device_version = 860;
  EXPECT_EQ(check_versions(gpu).finding->id, "verify.versions.gpu_too_new");

  auto toolkit = f;
  toolkit.toolkit = Version{12, 8};
  auto t = check_versions(toolkit);
  EXPECT_EQ(t.status, StageStatus::kPass);  // a warning, not a failure
  ASSERT_TRUE(t.finding);
  EXPECT_EQ(t.finding->severity, Severity::kWarning);
}

TEST(VerifyLocate, FindsShimFromRootLibDirOrFile) {
  testing::MemoryFileSystem fs;
  fs.add_file("/venv/nvidia/cudnn/lib/libcudnn.so.9");
  fs.add_file("/venv/nvidia/cudnn/lib/libcudnn_ops.so.9");
  fs.add_file("/venv/nvidia/cudnn/lib/libcudnn_cnn.so.9");
  fs.add_file("/venv/nvidia/cudnn/lib/libcudnn_cnn.so.8");  // another major: ignored
  fs.add_dir("/venv/nvidia/cudnn/include");
  for (const char* p : {"/venv/nvidia/cudnn", "/venv/nvidia/cudnn/lib", "/venv/nvidia/cudnn/lib/libcudnn.so.9"}) {
    auto loc = locate_copy(fs, p, false);
    ASSERT_TRUE(loc) << p << ": " << loc.error().message;
    EXPECT_EQ(loc->shim, "/venv/nvidia/cudnn/lib/libcudnn.so.9");
    EXPECT_EQ(loc->major, 9);
    EXPECT_EQ(loc->sublibrary_files.size(), 2u);
  }
  EXPECT_FALSE(locate_copy(fs, "/venv/nvidia", false));
  EXPECT_FALSE(locate_copy(fs, "/nowhere", false));
  auto not_shim = locate_copy(fs, "/venv/nvidia/cudnn/lib/libcudnn_ops.so.9", false);
  ASSERT_FALSE(not_shim);
  EXPECT_EQ(not_shim.error().code, ErrorCode::kUsage);
  EXPECT_EQ(sublibrary_component("libcudnn_engines_precompiled.so.9"), "engines_precompiled");
  EXPECT_EQ(sublibrary_component("cudnn_ops64_9.dll"), "ops");
}

TEST(VerifyLocate, FindsNvcc) {
  testing::MemoryFileSystem fs;
  fs.add_file("/opt/cuda/bin/nvcc");
  Environment env;
  env.vars["PATH"] = "/usr/bin:/opt/cuda/bin";
  EXPECT_EQ(find_nvcc(fs, env), "/opt/cuda/bin/nvcc");
  env.vars["PATH"] = "/usr/bin";
  EXPECT_EQ(find_nvcc(fs, env), "");
  env.vars["CUDA_HOME"] = "/opt/cuda";
  EXPECT_EQ(find_nvcc(fs, env), "/opt/cuda/bin/nvcc");
}

}  // namespace
}  // namespace cudnnup
