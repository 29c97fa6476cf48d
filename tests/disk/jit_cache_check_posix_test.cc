// The CUDA JIT cache check with real owners, end to end: as root, the test gives the unprivileged
// user 65534 a home whose ~/.nv/ComputeCache holds an index that root wrote (what a run under sudo
// leaves), and runs the real `cudnnup doctor --json` as that user (setpriv). Doctor must name the
// file and print the deletion; once the file is the user's own, or for root, nothing is said.
// Skipped unless run as root (CI's containers are); the in-memory cases are in
// tests/unit/diagnose/jit_cache_check_test.cc.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "platform/process.h"
#include "support/run_cli.h"

namespace cudnnup {
namespace {

namespace stdfs = std::filesystem;
constexpr uid_t kNobody = 65534;
constexpr const char* kFindingId = "driver.jit_cache_not_writable";

const nlohmann::json* finding(const nlohmann::json& report, const std::string& id) {
  if (!report.contains("findings")) return nullptr;
  for (const auto& f : report["findings"]) {
    if (f.value("id", "") == id) return &f;
  }
  return nullptr;
}

class JitCacheReal : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root, to make files of two users";
    if (::access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "needs setpriv (util-linux)";
    const char* tmpdir = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/cudnnup-jit-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr) << tmpl;
    root_ = stdfs::canonical(tmpl);  // as doctor prints it: no "//", no link in TMPDIR
    // The other user must reach the binary and its home: every folder on the way 0755, whatever
    // the umask (a build folder under a private /tmp/tmp.* clone is not reachable for that user).
    stdfs::create_directories(root_ / "bin");
    std::string binary = testing::cudnnup_binary();
    stdfs::copy_file(binary, root_ / "bin/cudnnup");
    stdfs::path child = stdfs::path(binary).parent_path() / "cudnnup-child";
    if (stdfs::exists(child)) stdfs::copy_file(child, root_ / "bin/cudnnup-child");
    for (const stdfs::path& p : {root_, root_ / "bin", root_ / "bin/cudnnup", root_ / "bin/cudnnup-child"}) {
      ::chmod(p.c_str(), 0755);
    }
    home_ = root_ / "home";
    cache_ = home_ / ".nv/ComputeCache";
    stdfs::create_directories(cache_ / "7");
    for (const stdfs::path& p : {home_, home_ / ".nv", cache_, cache_ / "7"}) {
      ASSERT_EQ(::chown(p.c_str(), kNobody, kNobody), 0) << p;
      ::chmod(p.c_str(), 0755);
    }
    std::ofstream(cache_ / "index") << "index";  // root's, 0644: the user cannot update it
    ::chmod((cache_ / "index").c_str(), 0644);
    // A temporary folder mounted noexec, or a user namespace without 65534, cannot run the test.
    auto probe = run_process({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                              (root_ / "bin/cudnnup").string(), "--version"}, ProcessOptions{});
    if (!probe || probe->exit_code != 0) GTEST_SKIP() << "user 65534 cannot run a binary in " << root_;
  }
  void TearDown() override {
    if (!root_.empty()) stdfs::remove_all(root_);
  }

  // As user 65534 with no supplementary group, or with `groups` ("0": root's group), or as root.
  nlohmann::json doctor_as(bool as_nobody, const std::string& groups = "") {
    std::vector<std::string> argv;
    if (as_nobody) {
      argv = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", groups.empty() ? "--clear-groups" : "--groups=" + groups};
    }
    argv.push_back((root_ / "bin/cudnnup").string());
    argv.insert(argv.end(), {"doctor", "--json"});
    ProcessOptions o;
    o.timeout_ms = 120000;
    o.cwd = home_.string();
    o.env = std::map<std::string, std::string>{
        {"HOME", home_.string()}, {"USER", "nobody"}, {"PATH", "/usr/bin:/bin"}, {"CUDNNUP_SHELL", "bash"}};
    auto r = run_process(argv, o);
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    if (!r) return {};
    auto json = nlohmann::json::parse(r->out, nullptr, false);
    EXPECT_FALSE(json.is_discarded()) << r->out << r->err;
    return json;
  }

  stdfs::path root_, home_, cache_;
};

TEST_F(JitCacheReal, DoctorAsTheUserNamesRootsFileAndPrintsTheDeletionOfTheCacheOnly) {
  nlohmann::json report = doctor_as(true);
  const nlohmann::json* f = finding(report, kFindingId);
  ASSERT_NE(f, nullptr) << report.dump(1);
  EXPECT_EQ((*f)["subject"], cache_.string());
  ASSERT_EQ((*f)["evidence"].size(), 1u) << "the folders are the user's; only root's index is named";
  EXPECT_EQ((*f)["evidence"][0].get<std::string>().rfind((cache_ / "index").string(), 0), 0u);
  EXPECT_EQ((*f)["fix_commands"][0],
            nlohmann::json({"sudo", "rm", "-rf", "--", cache_.string()}));
}

TEST_F(JitCacheReal, TheUsersOwnCacheAndRootItselfGetNoFinding) {
  ASSERT_EQ(::chown((cache_ / "index").c_str(), kNobody, kNobody), 0);
  EXPECT_EQ(finding(doctor_as(true), kFindingId), nullptr);
  ASSERT_EQ(::chown((cache_ / "index").c_str(), 0, 0), 0);
  EXPECT_EQ(finding(doctor_as(false), kFindingId), nullptr) << "root may write every file";
}

// The group's write bit counts only for the group's members, as the kernel reads it.
TEST_F(JitCacheReal, ARootFileItsGroupMayWriteIsClosedOnlyToUsersOutsideTheGroup) {
  ASSERT_EQ(::chown((cache_ / "index").c_str(), 0, 0), 0);
  ASSERT_EQ(::chmod((cache_ / "index").c_str(), 0664), 0);
  EXPECT_NE(finding(doctor_as(true), kFindingId), nullptr) << "65534 is not in group 0";
  EXPECT_EQ(finding(doctor_as(true, "0"), kFindingId), nullptr) << "a member of group 0 may write it";
}

}  // namespace
}  // namespace cudnnup
