// Doctor's probes are isolated from the user's loader environment, and the environment's effect
// is reported as findings of its own (issue classes: a second 9.x copy first on LD_LIBRARY_PATH,
// in the current directory through an empty entry, or preloaded; a foreign graph library that
// lacks a forwarded symbol). The copies are stub sets whose shim forwards its version calls to
// libcudnn_graph loaded by bare name, as the real cuDNN 9 shim does (tests/fixtures/forwarding_shim.c).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "base/json_text.h"
#include "shell/shell_quote.h"
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

const json* finding(const json& report, const std::string& id) {
  for (const auto& f : report["findings"]) {
    if (f["id"] == id) return &f;
  }
  return nullptr;
}

// A copy keeps its own numbers and nothing at error level is said about it.
void expect_healthy(const json& r, const std::string& lib_dir, const std::string& version, int cuda_major) {
  const json* c = copy_in(r, lib_dir);
  ASSERT_NE(c, nullptr) << lib_dir << "\n" << r.dump(1);
  EXPECT_EQ((*c)["library_version"], version) << lib_dir;
  EXPECT_EQ((*c)["cuda_major"], cuda_major) << lib_dir;
  EXPECT_EQ((*c)["probe"]["isolated"], true) << lib_dir;
  std::string root = (*c)["root"];
  for (const auto& f : r["findings"]) {
    if (f["subject"] != lib_dir && f["subject"] != root) continue;
    EXPECT_NE(f["severity"], "error") << f.dump(1);
  }
  // No fix doctor prints may overwrite or delete this copy's files.
  for (const auto& f : r["findings"]) {
    for (const auto& line : f["fix"]) {
      std::string s = line;
      EXPECT_EQ(s.find("--into " + root), std::string::npos) << s;
      EXPECT_EQ(s.find("rm '" + lib_dir), std::string::npos) << s;
      EXPECT_EQ(s.find("mv '" + lib_dir), std::string::npos) << s;
      EXPECT_EQ(s.find(lib_dir + "/cudnn-old"), std::string::npos) << s;
    }
  }
}

class DoctorIsolation : public ::testing::Test {
 protected:
  void SetUp() override {
    a_ = tmp_ / "a/lib";
    b_ = tmp_ / "b/lib";
    install_forwarding_set("9.19.0", a_);
    install_forwarding_set("9.14.0", b_);
  }
  json doctor(std::map<std::string, std::string> env, const std::string& cwd = "") {
    env["HOME"] = tmp_.path();
    std::string here = std::filesystem::current_path().string();
    if (!cwd.empty()) std::filesystem::current_path(cwd);
    auto r = run_cli({"doctor", "--json"}, env);
    if (!cwd.empty()) std::filesystem::current_path(here);
    EXPECT_FALSE(r.json.is_null()) << r.out << r.err;
    exit_code_ = r.exit_code;
    return r.json;
  }
  TempDir tmp_;
  std::string a_, b_;
  int exit_code_ = -1;
};

TEST_F(DoctorIsolation, SecondCopyFirstOnLdLibraryPath) {
  json r = doctor({{"LD_LIBRARY_PATH", b_ + ":" + a_}});
  expect_healthy(r, a_, "9.19.0", 13);
  expect_healthy(r, b_, "9.14.0", 12);
  // What a plain program gets is the environment's doing: B wins over A.
  const json* f = finding(r, "cudnn.shadowed");
  if (!f) f = finding(r, "env.redirects_cudnn");
  ASSERT_NE(f, nullptr) << r.dump(1);
  EXPECT_NE(f->dump().find(b_), std::string::npos) << f->dump(1);
}

TEST_F(DoctorIsolation, SecondCopyInTheCurrentDirectoryThroughAnEmptyEntry) {
  json r = doctor({{"LD_LIBRARY_PATH", ":" + a_}}, b_);
  expect_healthy(r, a_, "9.19.0", 13);
}

TEST_F(DoctorIsolation, PreloadedGraphOfAnotherCopy) {
  json r = doctor({{"LD_LIBRARY_PATH", a_}, {"LD_PRELOAD", b_ + "/libcudnn_graph.so.9"}});
  expect_healthy(r, a_, "9.19.0", 13);
  // A plain program would bind A's shim to the preloaded 9.14 graph: an error, about LD_PRELOAD.
  const json* mix = finding(r, "loader.mixed_copies");
  ASSERT_NE(mix, nullptr) << r.dump(1);
  EXPECT_EQ((*mix)["severity"], "error");
  EXPECT_EQ((*mix)["subject"], "LD_PRELOAD");
  EXPECT_NE((*mix)["fix"][0].get<std::string>().find("unset LD_PRELOAD"), std::string::npos) << mix->dump(1);
  EXPECT_EQ(exit_code_, 1);
}

TEST_F(DoctorIsolation, ForeignGraphLackingAForwardedSymbolIsNotTheCopysCrash) {
  std::string c = tmp_ / "c/lib";
  make_dirs(c);
  copy_file(fixture_lib("graph-no-max-device", "libcudnn_graph.so.9"), c + "/libcudnn_graph.so.9");
  json r = doctor({{"LD_LIBRARY_PATH", c + ":" + a_}});
  expect_healthy(r, a_, "9.19.0", 13);
  for (const auto& f : r["findings"]) EXPECT_NE(f["id"], "cudnn.load_crashed") << f.dump(1);
  // The mix a plain program would get is reported against LD_LIBRARY_PATH, with the entry to drop.
  const json* mix = finding(r, "loader.mixed_copies");
  ASSERT_NE(mix, nullptr) << r.dump(1);
  EXPECT_EQ((*mix)["subject"], "LD_LIBRARY_PATH");
  EXPECT_EQ((*mix)["fix"][0], "export LD_LIBRARY_PATH=" + *shell_quote(Shell::kBash, a_) + "   # drops " + c);
}

// A copy in a directory whose name is not UTF-8 is probed at its real path: the request and the
// child's events carry the bytes (base/json_text.h's escape both ways), so the probe loads this
// copy and its mapped files are recognised as its own.
TEST_F(DoctorIsolation, ACopyInADirectoryWhoseNameIsNotUtf8) {
  const std::string odd = tmp_ / "caf\xe9/lib";
  install_forwarding_set("9.19.0", odd);
  json r = doctor({{"LD_LIBRARY_PATH", odd}});
  const json* copy = nullptr;
  for (const auto& c : r["copies"]) {
    if (c.value("lib_dir_bytes", "") == hex_bytes(odd)) copy = &c;
  }
  ASSERT_NE(copy, nullptr) << r.dump(1);
  EXPECT_EQ((*copy)["library_version"], "9.19.0") << copy->dump(1);
  EXPECT_EQ((*copy)["probe"]["isolated"], true) << copy->dump(1);
  for (const auto& f : r["findings"]) {
    if (f.value("subject_bytes", "") != hex_bytes(odd)) continue;
    EXPECT_NE(f["severity"], "error") << f.dump(1);
  }
}

// Acceptance on a machine with the CUDA 13.0 toolkit and its cuDNN 9.19: a stub 9.14 set first
// on LD_LIBRARY_PATH changes what programs load, not what the toolkit's copy is.
TEST(DoctorRealMachine, ToolkitCopyKeepsItsVersionWithAnotherCopyFirstOnLdLibraryPath) {
  const std::string lib = "/usr/local/cuda-13.0/lib";
  if (!std::filesystem::exists(lib + "/libcudnn.so.9")) GTEST_SKIP() << "no CUDA 13.0 toolkit with cuDNN here";
  TempDir tmp;
  install_stub_set("v9.14.0", tmp / "stub/lib");
  auto r = run_cli({"doctor", "--json"}, {{"HOME", tmp.path()}, {"LD_LIBRARY_PATH", tmp / "stub/lib"}});
  ASSERT_FALSE(r.json.is_null()) << r.out << r.err;
  std::string lib_dir = std::filesystem::canonical(lib).string();
  expect_healthy(r.json, lib_dir, "9.19.0", 13);
  const json* effect = finding(r.json, "env.redirects_cudnn");
  ASSERT_NE(effect, nullptr) << r.json.dump(1);
  EXPECT_EQ((*effect)["subject"], "LD_LIBRARY_PATH");
  EXPECT_EQ((*effect)["fix"][0], "unset LD_LIBRARY_PATH   # drops " + tmp / "stub/lib");
}

}  // namespace
}  // namespace cudnnup::testing
