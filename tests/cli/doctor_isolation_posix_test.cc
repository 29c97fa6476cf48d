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

const json* listed_copy_in(const json& report, const std::string& lib_dir) {
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
  const json* c = listed_copy_in(r, lib_dir);
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

// The copy an empty entry reaches is listed with its own numbers, and what the entry does to
// programs is a finding whose fix drops that entry. With a system copy (the ld.so cache) that is
// env.redirects_cudnn about LD_LIBRARY_PATH; without one, the environment's two copies shadow each
// other (cudnn.shadowed) and the same fix applies. Warnings only: exit code 0. The build before
// the fix dropped empty entries, so B's copy was neither predicted nor listed.
TEST_F(DoctorIsolation, TheCopyAnEmptyEntryReachesIsListedAndTheEntryIsTheFinding) {
  const std::string empty = "the empty entry (the current directory)";
  for (const std::string& llp : {":" + a_, tmp_ / "x::" + a_}) {
    json r = doctor({{"LD_LIBRARY_PATH", llp}}, b_);
    expect_healthy(r, b_, "9.14.0", 12);
    expect_healthy(r, a_, "9.19.0", 13);
    const json* f = finding(r, "env.redirects_cudnn");
    if (f) {
      EXPECT_EQ((*f)["subject"], "LD_LIBRARY_PATH") << f->dump(1);
    } else {
      f = finding(r, "cudnn.shadowed");
      ASSERT_NE(f, nullptr) << "LD_LIBRARY_PATH=" << llp << "\n" << r.dump(1);
      EXPECT_EQ((*f)["subject"], b_) << f->dump(1);
    }
    EXPECT_NE(f->dump().find("cuDNN 9.14.0 in " + b_), std::string::npos) << f->dump(1);
    std::string kept = llp == ":" + a_ ? a_ : tmp_ / "x:" + a_;
    EXPECT_EQ((*f)["fix"][0], "export LD_LIBRARY_PATH=" + *shell_quote(Shell::kBash, kept) + "   # drops " + empty)
        << f->dump(1);
    EXPECT_EQ(exit_code_, 0) << r.dump(1);
  }
  // "a:": A wins and B, reached through the trailing entry, is the copy it shadows.
  json r = doctor({{"LD_LIBRARY_PATH", a_ + ":"}}, b_);
  expect_healthy(r, b_, "9.14.0", 12);
  expect_healthy(r, a_, "9.19.0", 13);
  const json* shadowed = finding(r, "cudnn.shadowed");
  ASSERT_NE(shadowed, nullptr) << r.dump(1);
  EXPECT_NE(shadowed->dump().find("shadowed: cuDNN 9.14.0 in " + b_), std::string::npos) << shadowed->dump(1);
  EXPECT_EQ(exit_code_, 0) << r.dump(1);
}

// The harmful advice: a CUDA 13.0 toolkit tree with its cuDNN 9.19 (forwarding shim, headers) and
// a 9.14 copy first on LD_LIBRARY_PATH. The toolkit's copy stays 9.19 for CUDA 13, nothing says
// its headers or CUDA major disagree, and no fix reinstalls into the toolkit or touches its
// headers. The build before the fix probed it under the user's LD_LIBRARY_PATH: "cuDNN 9.14.0
// built for CUDA 12", a header/library mismatch, and 9.14.0 --cuda 13 --into the toolkit.
TEST_F(DoctorIsolation, AToolkitsCopyGetsNoAdviceFromAnotherCopyOnLdLibraryPath) {
  const std::string tk = tmp_ / "cuda-13.0";
  write_text(tk + "/include/cuda.h", "#define CUDA_VERSION 13000\n");
  write_text(tk + "/version.json", R"({"cuda": {"name": "CUDA SDK", "version": "13.0.88"}})");
  install_forwarding_set("9.19.0", tk + "/lib64");
  json r = doctor({{"CUDA_HOME", tk}, {"LD_LIBRARY_PATH", b_}});
  const std::string lib = tk + "/lib64";
  expect_healthy(r, lib, "9.19.0", 13);
  const json* c = listed_copy_in(r, lib);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ((*c)["form"], "toolkit");
  EXPECT_EQ((*c)["header_version"], "9.19.0");
  for (const auto& f : r["findings"]) {
    if (f["subject"] == lib || f["subject"] == tk) {
      EXPECT_NE(f["id"], "cudnn.header_library_mismatch") << f.dump(1);
      EXPECT_NE(f["id"], "cudnn.cuda_major_mismatch") << f.dump(1);
    }
    for (const auto& line : f["fix"]) {
      std::string s = line;
      EXPECT_EQ(s.find("--into " + tk), std::string::npos) << s;
      EXPECT_EQ(s.find(tk + "/include"), std::string::npos) << s;
    }
  }
}

// A pip wheel's copy (nvidia/cudnn/lib with its dist-info) in the active venv, with a 9.14 copy
// first on LD_LIBRARY_PATH: healthy with its own numbers, and no fix reinstalls its package. The
// build before the fix probed it under LD_LIBRARY_PATH and reported 9.14.0 for CUDA 12 against the
// nvidia-cudnn-cu13 9.19 wheel.
TEST_F(DoctorIsolation, APipWheelsCopyIsProbedInIsolation) {
  const std::string venv = tmp_ / "venv";
  write_text(venv + "/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\n");
  const std::string site = venv + "/lib/python3.11/site-packages";
  install_forwarding_set("9.19.0", site + "/nvidia/cudnn/lib");
  make_dirs(site + "/nvidia_cudnn_cu13-9.19.0.56.dist-info");
  json r = doctor({{"VIRTUAL_ENV", venv}, {"LD_LIBRARY_PATH", b_}});
  const std::string lib = site + "/nvidia/cudnn/lib";
  expect_healthy(r, lib, "9.19.0", 13);
  const json* c = listed_copy_in(r, lib);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ((*c)["form"], "pip");
  EXPECT_EQ((*c)["package"], "nvidia-cudnn-cu13 9.19.0.56");
  for (const auto& f : r["findings"]) {
    EXPECT_NE(f["subject"], site) << f.dump(1);
    if (f["subject"] == lib) {
      EXPECT_EQ(f["id"], "cudnn.shadowed") << f.dump(1);
    }
    for (const auto& line : f["fix"]) {
      EXPECT_EQ(line.get<std::string>().find("nvidia-cudnn-cu13"), std::string::npos) << f.dump(1);
    }
  }
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
