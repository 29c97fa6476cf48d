// End-to-end: `cudnnup lock --copy` of a pip wheel (a venv with torch and its nvidia/cudnn, the
// loading stub libraries of tests/fixtures) and of this image's real CUDA 13.0 toolkit, then
// `cudnnup check` against each: a match, each kind of drift (a changed, removed or extra library,
// another version of the wheel, a foreign copy a plain program loads first), a lock that still
// holds when the project's venv lies elsewhere (another machine), and install --locked's answer.
#if CUDNNUP_HAVE_INSTALL

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include "support/fixture_libs.h"
#include "platform/process.h"
#include "support/archive_builder.h"
#include "support/loader_fixtures.h"
#include "support/run_cli.h"
#include "support/tree_snapshot.h"

namespace cudnnup {
namespace {

namespace stdfs = std::filesystem;
using namespace cudnnup::testing;

const std::string kToolkit = "/usr/local/cuda-13.0";

class LockCopyCli : public ::testing::Test {
 protected:
  void SetUp() override {
    make_dirs(tmp / "home");
    make_dirs(proj());
    make_venv(tmp / "venv", "9.19.0");
  }

  // A venv whose torch loads the pip cuDNN of `version` (9.19.0 or 9.14.0: the wheel 9.x.0.56).
  void make_venv(const std::string& venv, const std::string& version) {
    std::string site = venv + "/lib/python3.11/site-packages";
    std::string cu = version == "9.19.0" ? "13" : "12";
    write_text(venv + "/pyvenv.cfg", "home = /usr/bin\n");
    write_text(venv + "/bin/python3", "");
    write_text(site + "/torch/version.py", "__version__ = '2.9.0+cu" + cu + "0'\ncuda = '" + cu + ".0'\n");
    write_text(site + "/torch-2.9.0+cu" + cu + "0.dist-info/METADATA",
               "Metadata-Version: 2.1\nName: torch\nVersion: 2.9.0\nRequires-Dist: nvidia-cudnn-cu" + cu + "==" + version + ".56\n");
    copy_file(loader_fixture("torch/libtorch_cuda.so"), site + "/torch/lib/libtorch_cuda.so");
    make_loading_copy(version, site + "/nvidia/cudnn/lib");
    write_text(site + "/nvidia_cudnn_cu" + cu + "-" + version + ".56.dist-info/METADATA",
               "Metadata-Version: 2.1\nName: nvidia-cudnn-cu" + cu + "\nVersion: " + version + ".56\n");
  }

  std::string proj() const { return tmp / "proj"; }
  std::string wheel(const std::string& venv = "venv") const { return tmp / (venv + "/lib/python3.11/site-packages/nvidia/cudnn"); }

  CliResult cli(const std::vector<std::string>& args, const std::string& venv = "venv", std::map<std::string, std::string> extra = {}) {
    std::map<std::string, std::string> env = {{"HOME", tmp / "home"}, {"PATH", tmp / (venv + "/bin") + ":/usr/bin:/bin"},
                                              {"CUDNNUP_HOME", tmp / "store"}, {"NO_COLOR", "1"}};
    for (auto& [k, v] : extra) env[k] = v;
    return run_cli(args, env, proj());
  }
  static std::vector<std::string> drift(const CliResult& r) {
    std::vector<std::string> out;
    for (const auto& d : r.json["drift"]) out.push_back(d["kind"].get<std::string>() + " " + d["subject"].get<std::string>());
    return out;
  }
  nlohmann::json lock_pip() {
    auto r = cli({"lock", "--copy", wheel()});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return nlohmann::json::parse(read_file_bytes(proj() + "/cudnn.lock"));
  }

  TempDir tmp;
};

TEST_F(LockCopyCli, APipWheelIsLockedByRelativePathsAndChecksClean) {
  auto lock = lock_pip();
  EXPECT_EQ(lock["form"], "pip");
  EXPECT_EQ(lock["cudnn_version"], "9.19.0.56") << "the wheel's whole version, not the library's 9.19.0";
  EXPECT_EQ(lock["archive"], nullptr);
  std::set<std::string> paths;
  for (const auto& f : lock["files"]) paths.insert(f["path"]);
  EXPECT_TRUE(paths.count("lib/libcudnn.so.9")) << lock.dump(2);
  EXPECT_TRUE(paths.count("include/cudnn_version.h")) << lock.dump(2);
  EXPECT_EQ(lock.dump().find(tmp.path()), std::string::npos) << "no path of this machine in the lock";
  auto r = cli({"--json", "check"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.json["form"], "pip");
  EXPECT_EQ(r.json["deep"], true) << "no install manifest vouches for a wheel: every file is hashed";
  EXPECT_EQ(r.json["copy"], stdfs::canonical(wheel()).string());
  EXPECT_EQ(r.json["files_checked"], lock["files"].size());
  // Both documents against their schemas (docs/schema/lock-1, check-1), as the JSON contract test does.
  write_text(tmp / "check.json", r.out);
  ProcessOptions o;
  o.timeout_ms = 120000;
  o.env = std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}};
  auto valid = run_process({"/usr/bin/env", "python3", std::string(CUDNNUP_SOURCE_DIR) + "/tests/cli/validate_json.py",
                            std::string(CUDNNUP_SOURCE_DIR) + "/docs/schema", proj() + "/cudnn.lock", tmp / "check.json"}, o);
  ASSERT_TRUE(valid.ok());
  EXPECT_EQ(valid->exit_code, 0) << valid->out << valid->err;
}

TEST_F(LockCopyCli, ChangedRemovedAndExtraLibrariesOfTheWheelAreNamed) {
  lock_pip();
  std::string lib = stdfs::canonical(wheel()).string() + "/lib";
  { std::ofstream(lib + "/libcudnn_ops.so.9", std::ios::app) << "x"; }
  stdfs::remove(lib + "/libcudnn_adv.so.9");
  copy_file(lib + "/libcudnn_cnn.so.9", lib + "/libcudnn_cnn.so.9.1.0");
  auto r = cli({"--json", "check"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto d = drift(r);
  EXPECT_NE(std::find(d.begin(), d.end(), "changed " + lib + "/libcudnn_ops.so.9"), d.end()) << r.out;
  EXPECT_NE(std::find(d.begin(), d.end(), "missing " + lib + "/libcudnn_adv.so.9"), d.end()) << r.out;
  EXPECT_NE(std::find(d.begin(), d.end(), "extra " + lib + "/libcudnn_cnn.so.9.1.0"), d.end()) << r.out;
  auto text = cli({"check"});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find(lib + "/libcudnn_adv.so.9: missing"), std::string::npos) << text.out;
}

TEST_F(LockCopyCli, TheLockHoldsForTheSameWheelInAVenvElsewhereAndNotForAnotherVersion) {
  lock_pip();
  make_venv(tmp / "colleague", "9.19.0");  // another machine: the venv is somewhere else
  auto same = cli({"--json", "check"}, "colleague");
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_EQ(same.json["copy"], stdfs::canonical(wheel("colleague")).string());
  make_venv(tmp / "old", "9.14.0");
  auto old = cli({"--json", "check"}, "old");
  EXPECT_EQ(old.exit_code, 1) << old.out;
  ASSERT_FALSE(old.json["drift"].empty());
  EXPECT_EQ(old.json["drift"][0]["kind"], "version") << old.out;
  EXPECT_NE(old.json["drift"][0]["message"].get<std::string>().find("9.14.0"), std::string::npos) << old.out;
  make_dirs(tmp / "bare/bin");
  auto none = cli({"check"}, "bare");
  EXPECT_EQ(none.exit_code, 1) << none.out;
  EXPECT_NE(none.out.find("pip install nvidia-cudnn-cu13==9.19.0.56"), std::string::npos) << none.out;
}

TEST_F(LockCopyCli, TorchLoadingAnotherCopyThanTheLockedWheelIsDrift) {
  lock_pip();
  // A preloaded libcudnn.so.9 wins over torch's RPATH to its wheel (the loader model's rule).
  make_loading_copy("9.19.0", tmp / "foreign/lib");
  auto r = cli({"--json", "check"}, "venv", {{"LD_PRELOAD", tmp / "foreign/lib/libcudnn.so.9"}});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  ASSERT_EQ(r.json["drift"].size(), 1u) << r.out;
  EXPECT_EQ(r.json["drift"][0]["kind"], "framework_loads");
  EXPECT_EQ(r.json["drift"][0]["subject"], stdfs::canonical(tmp / "foreign/lib/libcudnn.so.9").string());
  EXPECT_NE(r.json["drift"][0]["message"].get<std::string>().find("torch 2.9.0"), std::string::npos) << r.out;
}

TEST_F(LockCopyCli, OnlyTheProjectsOwnEnvironmentCountsNotAMatchingWheelInAnotherVenv) {
  lock_pip();
  make_venv(tmp / "old", "9.14.0");                     // the project's venv, activated, at another version
  make_venv(tmp / "home/.virtualenvs/other", "9.19.0");  // an unrelated venv with the locked wheel
  auto r = cli({"--json", "check"}, "old", {{"VIRTUAL_ENV", tmp / "old"}});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  ASSERT_FALSE(r.json["drift"].empty()) << r.out;
  EXPECT_EQ(r.json["drift"][0]["kind"], "version") << r.out;
  EXPECT_NE(r.json["copy"].get<std::string>().find("/old/"), std::string::npos) << r.out;
  // The project's own .venv beside the lock, not activated, is the project's too.
  make_venv(proj() + "/.venv", "9.14.0");
  auto local = cli({"--json", "check"}, "home/.virtualenvs/other");
  EXPECT_EQ(local.exit_code, 1) << local.out;
  EXPECT_NE(local.json["copy"].get<std::string>().find("/proj/.venv/"), std::string::npos) << local.out;
}

TEST_F(LockCopyCli, CheckCopyMustNameACopyOfTheLocksForm) {
  lock_pip();
  auto none = cli({"check", "--copy", tmp / "home"});
  EXPECT_EQ(none.exit_code, 2) << none.out << none.err;
  EXPECT_EQ(none.out, "");
  EXPECT_NE(none.err.find("is not a pip copy of cuDNN that cudnnup finds here"), std::string::npos) << none.err;
  EXPECT_NE(none.err.find(stdfs::canonical(wheel()).string()), std::string::npos) << "it lists the pip copies: " << none.err;
  if (stdfs::exists(kToolkit + "/include/cudnn_version.h")) {
    auto toolkit = cli({"check", "--copy", kToolkit});
    EXPECT_EQ(toolkit.exit_code, 2) << "a toolkit is not the pip copy a pip lock names: " << toolkit.out << toolkit.err;
  }
  auto chosen = cli({"--json", "check", "--copy", wheel()});
  EXPECT_EQ(chosen.exit_code, 0) << chosen.out << chosen.err;
}

TEST_F(LockCopyCli, AnyLibraryPlantedInTheWheelsFolderIsExtra) {
  lock_pip();
  std::string lib = stdfs::canonical(wheel()).string() + "/lib";
  copy_file(lib + "/libcudnn_ops.so.9", lib + "/libz.so.1");  // on torch's RPATH: it would be loaded
  auto r = cli({"--json", "check"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(drift(r), std::vector<std::string>{"extra " + lib + "/libz.so.1"}) << r.out;
}

TEST_F(LockCopyCli, InstallLockedOfAPipLockSaysWhatPipInstalls) {
  lock_pip();
  auto before = without_probe_cache(disk_tree(tmp.path()));
  auto r = cli({"install", "--locked"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("pip install nvidia-cudnn-cu13==9.19.0.56"), std::string::npos) << r.err;
  EXPECT_EQ(tree_changes(before, without_probe_cache(disk_tree(tmp.path()))), "");
}

TEST_F(LockCopyCli, LockCopyOfAFolderThatIsNoCopyChangesNothing) {
  auto before = without_probe_cache(disk_tree(tmp.path()));
  auto r = cli({"lock", "--copy", tmp / "home"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("is not a cuDNN copy cudnnup finds here"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(stdfs::canonical(wheel()).string()), std::string::npos) << "it lists the copies that are: " << r.err;
  EXPECT_EQ(tree_changes(before, without_probe_cache(disk_tree(tmp.path()))), "");
}

TEST_F(LockCopyCli, TheRealToolkitsCudnnIsLockedAndAForeignCopyFirstOnTheSearchPathIsDrift) {
  if (!stdfs::exists(kToolkit + "/include/cudnn_version.h")) GTEST_SKIP() << "this machine has no CUDA 13.0 toolkit with cuDNN";
  auto r = cli({"--json", "lock", "--copy", kToolkit});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.json["form"], "toolkit");
  for (const auto& f : r.json["files"]) {
    std::string name = stdfs::path(f["path"].get<std::string>()).filename();
    EXPECT_TRUE(name.starts_with("libcudnn") || name.starts_with("cudnn")) << "only cuDNN's files of the toolkit: " << name;
  }
  auto ok = cli({"--json", "check"});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  // install --locked does not merge into a toolkit on its own; with this one CUDA 13 toolkit it
  // prints the whole merge, with the release NVIDIA's manifests are named by (three parts), as the
  // error's fix steps (the line for the user's shell; the argument vector in JSON).
  auto install = cli({"install", "--locked"});
  EXPECT_EQ(install.exit_code, 2) << install.out << install.err;
  std::string release = r.json["cudnn_version"].get<std::string>().substr(0, 6);  // "9.19.0"
  EXPECT_NE(install.err.find("\n  cudnnup install " + release + " --cuda 13 --into " + kToolkit + "\n"), std::string::npos)
      << install.err;
  auto install_json = cli({"--json", "install", "--locked"});
  EXPECT_EQ(install_json.json["error"]["fix_commands"][0],
            nlohmann::json({"cudnnup", "install", release, "--cuda", "13", "--into", kToolkit}))
      << install_json.out;
  make_loading_copy("9.14.0", tmp / "foreign/lib");
  auto shadowed = cli({"--json", "check"}, "venv", {{"LD_LIBRARY_PATH", tmp / "foreign/lib"}});
  EXPECT_EQ(shadowed.exit_code, 1) << shadowed.out;
  bool loads = false;
  for (const auto& d : shadowed.json["drift"]) loads |= d["kind"] == "loads";
  EXPECT_TRUE(loads) << shadowed.out;
}

}  // namespace
}  // namespace cudnnup

#endif  // CUDNNUP_HAVE_INSTALL
