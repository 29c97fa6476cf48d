// End-to-end doctor tests: stub cuDNN libraries (tests/fixtures) laid out as real package forms
// in temporary directories, the real cudnnup binary run on them, its JSON checked.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/fixture_libs.h"
#include "support/run_cli.h"

namespace cudnnup::testing {
namespace {

using nlohmann::json;

const json* copy_in(const json& report, const std::string& lib_dir) {
  for (const auto& c : report["copies"]) {
    if (c["lib_dir"] == lib_dir) return &c;
  }
  return nullptr;
}

std::vector<std::string> finding_ids(const json& report, const std::string& subject) {
  std::vector<std::string> ids;
  for (const auto& f : report["findings"]) {
    if (f["subject"] == subject) ids.push_back(f["id"]);
  }
  return ids;
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

class DoctorE2E : public ::testing::Test {
 protected:
  json doctor(std::map<std::string, std::string> env) {
    env["HOME"] = tmp_.path();
    auto r = run_cli({"doctor", "--json"}, env);
    EXPECT_FALSE(r.json.is_null()) << r.out << r.err;
    exit_code_ = r.exit_code;
    return r.json;
  }
  TempDir tmp_;
  int exit_code_ = -1;
};

TEST_F(DoctorE2E, HealthyStubCopyOnLdLibraryPathIsReportedWithProbeVersion) {
  std::string root = tmp_ / "cudnn-linux-x86_64-9.19.0.56_cuda13-archive";
  install_stub_set("v9.19.0", root + "/lib", /*versioned_names=*/true);
  write_text(root + "/include/cudnn_version.h", cudnn_version_header(9, 19, 0));
  json r = doctor({{"LD_LIBRARY_PATH", root + "/lib"}});
  const json* c = copy_in(r, root + "/lib");
  ASSERT_NE(c, nullptr) << r.dump(1);
  EXPECT_EQ((*c)["library_version"], "9.19.0");
  EXPECT_EQ((*c)["library_version_source"], "cudnnGetVersion()");
  EXPECT_EQ((*c)["header_version"], "9.19.0");
  EXPECT_EQ((*c)["form"], "archive");
  EXPECT_EQ((*c)["cuda_major"], 13);
  EXPECT_EQ((*c)["probe"]["version_number"], 91900);
  auto ids = finding_ids(r, root + "/lib");
  EXPECT_FALSE(has(ids, "cudnn.header_library_mismatch"));
  EXPECT_FALSE(has(ids, "cudnn.sublibrary_missing"));
  // The only thing to say about a healthy copy: it shadows other copies, if any. What
  // LD_LIBRARY_PATH changes for programs is a finding about the variable (env.redirects_cudnn).
  for (const auto& f : r["findings"]) {
    if (f["subject"] == root + "/lib") {
      EXPECT_EQ(f["id"], "cudnn.shadowed") << r.dump(1);
    }
  }
}

TEST_F(DoctorE2E, TwoCopiesOnTheSearchPathShadowEachOther) {
  install_stub_set("v9.14.0", tmp_ / "old/lib");
  install_stub_set("v9.19.0", tmp_ / "new/lib");
  json r = doctor({{"LD_LIBRARY_PATH", tmp_ / "old/lib" + ":" + tmp_ / "new/lib"}});
  ASSERT_NE(copy_in(r, tmp_ / "old/lib"), nullptr);
  ASSERT_NE(copy_in(r, tmp_ / "new/lib"), nullptr);
  auto ids = finding_ids(r, tmp_ / "old/lib");
  ASSERT_TRUE(has(ids, "cudnn.shadowed")) << r.dump(1);
  for (const auto& f : r["findings"]) {
    if (f["id"] != "cudnn.shadowed") continue;
    EXPECT_NE(f["title"].get<std::string>().find("9.14.0"), std::string::npos) << "the first dir on LD_LIBRARY_PATH wins";
    EXPECT_NE(f["evidence"].dump().find("shadowed: cuDNN 9.19.0"), std::string::npos);
  }
  // Reversing the order changes the winner.
  json r2 = doctor({{"LD_LIBRARY_PATH", tmp_ / "new/lib" + ":" + tmp_ / "old/lib"}});
  EXPECT_TRUE(has(finding_ids(r2, tmp_ / "new/lib"), "cudnn.shadowed"));
}

TEST_F(DoctorE2E, ZeroByteSubLibraryIsAnError) {
  install_stub_set("v9.19.0", tmp_ / "lib");
  std::ofstream(tmp_ / "lib/libcudnn_cnn.so.9", std::ios::trunc).close();
  json r = doctor({{"LD_LIBRARY_PATH", tmp_ / "lib"}});
  EXPECT_EQ(exit_code_, 1);
  bool found = false;
  for (const auto& f : r["findings"]) {
    if (f["id"] == "cudnn.library_damaged" && f["title"].get<std::string>().find("libcudnn_cnn.so.9") == 0) {
      found = true;
      EXPECT_NE(f["title"].get<std::string>().find("empty file"), std::string::npos);
      EXPECT_EQ(f["severity"], "error");
    }
  }
  EXPECT_TRUE(found) << r.dump(1);
}

TEST_F(DoctorE2E, HeaderAndLibraryMismatch) {
  install_stub_set("v9.19.0", tmp_ / "tree/lib");
  write_text(tmp_ / "tree/include/cudnn_version.h", cudnn_version_header(9, 1, 0));
  json r = doctor({{"LD_LIBRARY_PATH", tmp_ / "tree/lib"}});
  EXPECT_TRUE(has(finding_ids(r, tmp_ / "tree/lib"), "cudnn.header_library_mismatch")) << r.dump(1);
  EXPECT_EQ(exit_code_, 1);
}

TEST_F(DoctorE2E, MissingSubLibraryIsNamed) {
  install_stub_set("v9.19.0", tmp_ / "lib");
  std::filesystem::remove(tmp_ / "lib/libcudnn_heuristic.so.9");
  json r = doctor({{"LD_LIBRARY_PATH", tmp_ / "lib"}});
  bool found = false;
  for (const auto& f : r["findings"]) {
    if (f["id"] == "cudnn.sublibrary_missing" && f["subject"] == tmp_ / "lib") {
      found = true;
      EXPECT_EQ(f["evidence"], json::array({"libcudnn_heuristic.so.9"}));
    }
  }
  EXPECT_TRUE(found) << r.dump(1);
}

TEST_F(DoctorE2E, MixedSubLibraryVersionsInOneDirectory) {
  install_stub_set("v9.19.0", tmp_ / "lib", /*versioned_names=*/true);
  // Replace one sub-library with another release's, as a partial manual upgrade leaves it.
  std::filesystem::remove(tmp_ / "lib/libcudnn_ops.so.9");
  std::filesystem::remove(tmp_ / "lib/libcudnn_ops.so.9.19.0");
  copy_file(fixture_lib("v9.14.0", "libcudnn_ops.so.9"), tmp_ / "lib/libcudnn_ops.so.9.14.0");
  make_symlink("libcudnn_ops.so.9.14.0", tmp_ / "lib/libcudnn_ops.so.9");
  json r = doctor({{"LD_LIBRARY_PATH", tmp_ / "lib"}});
  EXPECT_TRUE(has(finding_ids(r, tmp_ / "lib"), "cudnn.mixed_sublibrary_versions")) << r.dump(1);
}

TEST_F(DoctorE2E, CuDNN8LeftBesideCuDNN9InAToolkit) {
  std::string tk = tmp_ / "cuda-12.4";
  write_text(tk + "/include/cuda.h", "#define CUDA_VERSION 12040\n");
  install_stub_set("v9.1.0", tk + "/lib64", true);
  install_stub_set("v8.9.7", tk + "/lib64", true, /*dev_links=*/false);
  write_text(tk + "/include/cudnn_version.h", cudnn_version_header(9, 1, 0));
  json r = doctor({{"CUDA_HOME", tk}});
  int majors = 0;
  for (const auto& c : r["copies"]) {
    if (c["lib_dir"] == tk + "/lib64") {
      ++majors;
      EXPECT_EQ(c["form"], "toolkit");
    }
  }
  EXPECT_EQ(majors, 2) << r.dump(1);
  EXPECT_TRUE(has(finding_ids(r, tk + "/lib64"), "cudnn.mixed_majors")) << r.dump(1);
  bool toolkit_found = false;
  for (const auto& t : r["toolkits"]) toolkit_found |= t["root"] == tk && t["version"] == "12.4";
  EXPECT_TRUE(toolkit_found);
}

// Two majors in one folder: the printed move takes the copy that cannot load (the links of a
// removed major), whichever major it is, and names its files one by one. Run by bash as printed,
// it leaves the working copy in place.
class MixedMajorsE2E : public DoctorE2E {
 protected:
  // Runs doctor, checks the title, runs the fix's commands in bash, returns what bash said.
  void run_fix(const std::string& title) {
    json r = doctor({{"LD_LIBRARY_PATH", tmp_ / "lib"}});
    const json* mixed = nullptr;
    for (const auto& f : r["findings"]) {
      if (f["id"] == "cudnn.mixed_majors") mixed = &f;
    }
    ASSERT_NE(mixed, nullptr) << r.dump(1);
    EXPECT_EQ((*mixed)["title"], title + tmp_ / "lib");
    std::string script = "set -e\n";
    for (const auto& step : (*mixed)["fix_steps"]) {
      ASSERT_FALSE(step.contains("shell")) << "no glob: " << step.dump();
      if (!step.contains("run")) continue;
      for (const auto& w : step["run"]) script += "'" + w.get<std::string>() + "' ";
      script += "\n";
    }
    write_text(tmp_ / "fix.sh", script);
    ASSERT_EQ(std::system(("bash " + tmp_ / "fix.sh").c_str()), 0) << script;
  }
};

TEST_F(MixedMajorsE2E, ADanglingLinkOfAnOlderMajorIsMovedAndTheNewCopyStays) {
  install_stub_set("v9.19.0", tmp_ / "lib");
  make_symlink("libcudnn.so.8.9.7", tmp_ / "lib/libcudnn.so.8");
  run_fix("cuDNN 9 and 8 files share ");
  EXPECT_TRUE(std::filesystem::is_symlink(tmp_ / "lib/cudnn-old/libcudnn.so.8"));
  EXPECT_TRUE(std::filesystem::exists(tmp_ / "lib/libcudnn.so.9")) << "cuDNN 9 stays";
}

TEST_F(MixedMajorsE2E, ADanglingLinkOfANewerMajorIsMovedAndTheOlderWorkingCopyStays) {
  install_stub_set("v8.9.7", tmp_ / "lib");
  make_symlink("libcudnn.so.9.1.0", tmp_ / "lib/libcudnn.so.9");
  run_fix("cuDNN 9 and 8 files share ");
  EXPECT_TRUE(std::filesystem::is_symlink(tmp_ / "lib/cudnn-old/libcudnn.so.9"));
  EXPECT_TRUE(std::filesystem::exists(tmp_ / "lib/libcudnn.so.8")) << "the only working copy stays";
  EXPECT_FALSE(std::filesystem::exists(tmp_ / "lib/cudnn-old/libcudnn.so.8"));
}

TEST_F(MixedMajorsE2E, TwoWorkingMajorsMoveTheOlderOneFileByFile) {
  install_stub_set("v9.19.0", tmp_ / "lib");
  install_stub_set("v8.9.7", tmp_ / "lib", false, /*dev_links=*/false);
  run_fix("cuDNN 9 and 8 files share ");
  EXPECT_TRUE(std::filesystem::exists(tmp_ / "lib/cudnn-old/libcudnn.so.8"));
  EXPECT_TRUE(std::filesystem::exists(tmp_ / "lib/libcudnn.so.9"));
  EXPECT_FALSE(std::filesystem::exists(tmp_ / "lib/cudnn-old/libcudnn.so.9"));
}

// A folder of links to another copy's files (a Spack or Nix view): the loader maps the targets,
// which are this copy's own files, so its probe speaks for it (it used to be "could not be probed
// in isolation" with the version dropped).
TEST_F(DoctorE2E, AFolderOfLinksIntoAnotherCopyIsProbedAsItself) {
  install_stub_set("v9.14.0", tmp_ / "store/lib");
  std::string view = tmp_ / "view dir/lib";
  for (const auto& entry : std::filesystem::directory_iterator(tmp_ / "store/lib")) {
    make_symlink(entry.path().string(), view + "/" + entry.path().filename().string());
  }
  json r = doctor({{"LD_LIBRARY_PATH", view}});
  const json* copy = copy_in(r, view);
  ASSERT_NE(copy, nullptr) << r.dump(1);
  EXPECT_EQ((*copy)["probe"]["isolated"], true) << (*copy)["probe"].dump(1);
  EXPECT_EQ((*copy)["probe"]["isolation_problem"], "");
  EXPECT_EQ((*copy)["library_version"], "9.14.0") << copy->dump(1);
}

// A link that points at itself is no dangling link: the finding says it cannot be followed.
TEST_F(DoctorE2E, ALinkLoopIsSaidToBeOneNotAMissingTarget) {
  make_symlink("libcudnn.so.9", tmp_ / "lib/libcudnn.so.9");
  json r = doctor({{"LD_LIBRARY_PATH", tmp_ / "lib"}});
  std::string titles;
  for (const auto& f : r["findings"]) {
    if (f["subject"] == tmp_ / "lib") titles += f["title"].get<std::string>() + "\n";
  }
  EXPECT_NE(titles.find("libcudnn.so.9: a link that cannot be followed"), std::string::npos) << titles;
  EXPECT_EQ(titles.find("its target does not exist"), std::string::npos) << titles;
}

TEST_F(DoctorE2E, LibraryThatCrashesOnLoadBecomesAFindingNotACrash) {
  install_stub_set("v9.19.0", tmp_ / "lib");
  copy_file(fixture_lib("crash", "libcudnn.so.9"), tmp_ / "lib/libcudnn.so.9");
  json r = doctor({{"LD_LIBRARY_PATH", tmp_ / "lib"}});
  ASSERT_FALSE(r.is_null());
  auto ids = finding_ids(r, tmp_ / "lib");
  EXPECT_TRUE(has(ids, "cudnn.load_crashed")) << r.dump(1);
  EXPECT_EQ(exit_code_, 1);
}

TEST_F(DoctorE2E, BadInputIsReportedAndTheScanCarriesOn) {
  // A good copy, plus: an unreadable directory, a dangling link, garbage named like a library,
  // and a very large (sparse) file named like one.
  install_stub_set("v9.19.0", tmp_ / "good");
  make_dirs(tmp_ / "locked");
  install_stub_set("v9.19.0", tmp_ / "locked");
  chmod((tmp_ / "locked").c_str(), 0);
  make_dirs(tmp_ / "junk");
  make_symlink("libcudnn.so.9.99.0", tmp_ / "junk/libcudnn.so.9");
  write_text(tmp_ / "junk/libcudnn_ops.so.9", "this is not a library\n");
  {
    std::ofstream big(tmp_ / "junk/libcudnn_cnn.so.9", std::ios::binary);
    big.seekp((8ull << 30) - 1);  // 8 GiB, sparse
    big.put('\0');
  }
  std::string lp = tmp_ / "locked" + ":" + tmp_ / "junk" + ":" + tmp_ / "good";
  json r = doctor({{"LD_LIBRARY_PATH", lp}});
  ASSERT_NE(copy_in(r, tmp_ / "good"), nullptr) << "the scan must carry on past bad directories";
  if (geteuid() != 0) {  // root reads everything, so the unreadable case only exists for users
    bool reported = false;
    for (const auto& i : r["scan_issues"]) reported |= i["path"] == tmp_ / "locked";
    EXPECT_TRUE(reported) << r.dump(1);
  }
  auto junk = finding_ids(r, tmp_ / "junk");
  EXPECT_TRUE(has(junk, "cudnn.dangling_link")) << r.dump(1);
  EXPECT_TRUE(has(junk, "cudnn.library_damaged"));
  std::string all = r["findings"].dump();
  EXPECT_NE(all.find("not an ELF file"), std::string::npos);
  EXPECT_NE(all.find("libcudnn_cnn.so.9: not an ELF file"), std::string::npos) << "the sparse 8 GiB file is read, not loaded";
}

TEST_F(DoctorE2E, NoCudnnAnywhereIsAnError) {
  // Only meaningful where the machine itself has no cuDNN in the fixed locations.
  json r = doctor({});
  if (!r["copies"].empty()) GTEST_SKIP() << "this machine has cuDNN installed";
  EXPECT_EQ(exit_code_, 1);
  EXPECT_TRUE(has(finding_ids(r, "cudnn"), "cudnn.not_found"));
}

TEST_F(DoctorE2E, PipWheelInAVenvIsFoundThroughPath) {
  std::string venv = tmp_ / "venv";
  write_text(venv + "/pyvenv.cfg", "home = /usr/bin\n");
  write_text(venv + "/bin/python3", "");
  std::string sp = venv + "/lib/python3.12/site-packages";
  install_stub_set("v9.19.0", sp + "/nvidia/cudnn/lib");
  write_text(sp + "/nvidia/cudnn/include/cudnn_version.h", cudnn_version_header(9, 19, 0));
  make_dirs(sp + "/nvidia_cudnn_cu13-9.19.0.56.dist-info");
  json r = doctor({{"PATH", venv + "/bin:/usr/bin:/bin"}});
  const json* c = copy_in(r, sp + "/nvidia/cudnn/lib");
  ASSERT_NE(c, nullptr) << r.dump(1);
  EXPECT_EQ((*c)["form"], "pip");
  EXPECT_EQ((*c)["package"], "nvidia-cudnn-cu13 9.19.0.56");
  EXPECT_EQ((*c)["found_via"][0], "venv env " + venv);
}

TEST_F(DoctorE2E, CondaEnvListedInEnvironmentsTxt) {
  std::string env_dir = tmp_ / "conda/envs/dl";
  make_dirs(env_dir + "/conda-meta");
  make_dirs(env_dir + "/lib/python3.11/site-packages");
  install_stub_set("v8.9.7", env_dir + "/lib", true);
  write_text(env_dir + "/include/cudnn_version.h", cudnn_version_header(8, 9, 7));
  write_text(tmp_ / ".conda/environments.txt", env_dir + "\n");
  json r = doctor({});
  const json* c = copy_in(r, env_dir + "/lib");
  ASSERT_NE(c, nullptr) << r.dump(1);
  EXPECT_EQ((*c)["form"], "conda");
  EXPECT_EQ((*c)["library_version"], "8.9.7");
  EXPECT_EQ((*c)["probe"]["version_number"], 8907);
  EXPECT_TRUE(finding_ids(r, env_dir + "/lib").empty()) << r.dump(1);
}

TEST_F(DoctorE2E, RulesOverrideWithDbAndBadDbIsAUsageError) {
  write_text(tmp_ / "bad.json", "{not json");
  auto r = run_cli({"doctor", "--json", "--db", tmp_ / "bad.json"}, {{"HOME", tmp_.path()}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.json["error"]["code"], "corrupt");
  auto missing = run_cli({"doctor", "--db", tmp_ / "missing.json"}, {{"HOME", tmp_.path()}});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("missing.json"), std::string::npos);
}

// The real thing: this image has CUDA 13.0 with cuDNN 9.19.0 merged into /usr/local/cuda-13.0.
TEST(DoctorRealMachine, FindsTheImagesToolkitAndCudnn) {
  if (!std::filesystem::exists("/usr/local/cuda-13.0/lib/libcudnn.so.9")) GTEST_SKIP() << "no CUDA 13.0 toolkit here";
  TempDir home;
  auto r = run_cli({"doctor", "--json"}, {{"HOME", home.path()}});
  ASSERT_FALSE(r.json.is_null()) << r.out << r.err;
  bool toolkit = false;
  for (const auto& t : r.json["toolkits"]) toolkit |= t["root"] == "/usr/local/cuda-13.0" && t["version"] == "13.0";
  EXPECT_TRUE(toolkit) << r.json["toolkits"].dump(1);
  const json* c = copy_in(r.json, "/usr/local/cuda-13.0/lib");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ((*c)["header_version"], "9.19.0");
  EXPECT_EQ((*c)["library_version"], "9.19.0");
  EXPECT_EQ((*c)["probe"]["version_number"], 91900);
  EXPECT_EQ((*c)["form"], "toolkit");
  EXPECT_FALSE(has(finding_ids(r.json, "/usr/local/cuda-13.0/lib"), "cudnn.header_library_mismatch"));
  if (!std::filesystem::exists("/proc/driver/nvidia/version")) {
    EXPECT_FALSE(r.json["driver"]["present"].get<bool>());
    EXPECT_TRUE(has(finding_ids(r.json, "driver"), "driver.not_found"));
    EXPECT_EQ(r.exit_code, 0) << "no driver is a warning; the documented code for no errors is 0";
  }
  EXPECT_EQ(r.json["summary"]["exit_code"], r.exit_code);
}

}  // namespace
}  // namespace cudnnup::testing
