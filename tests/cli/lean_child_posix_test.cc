// The lean child executable (app/child/child_main.cc): doctor starts one per copy, so it must
// start cheaply (only glibc beside it), be the program doctor really starts, and give the same
// answers as the `cudnnup __child` fallback that runs when it is not installed beside cudnnup.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "binfmt/elf.h"
#include "platform/process.h"
#include "platform/real_filesystem.h"
#include "support/fixture_libs.h"
#include "support/run_cli.h"

namespace cudnnup::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string lean_child_binary() { return (fs::path(CUDNNUP_BINARY).parent_path() / "cudnnup-child").string(); }

TEST(LeanChild, NeedsNoSharedLibraryBeyondGlibc) {
  auto real = make_real_filesystem();
  const std::string path = lean_child_binary();
  auto info = real->stat(path);
  ASSERT_TRUE(info.ok()) << path << " was not built beside " << CUDNNUP_BINARY;
  auto elf = parse_elf([&](uint64_t off, size_t n) { return real->read_range(path, off, n); }, info->size);
  ASSERT_TRUE(elf.ok()) << elf.error().message;
  const std::set<std::string> glibc = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
                                       "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"};
  ASSERT_FALSE(elf->needed.empty());
  for (const auto& lib : elf->needed) EXPECT_TRUE(glibc.count(lib)) << path << " needs " << lib;
#if CUDNNUP_HAVE_INSTALL
  // The full cudnnup does need more (libarchive, libcurl...): the check above can fail.
  auto full_info = real->stat(CUDNNUP_BINARY);
  ASSERT_TRUE(full_info.ok());
  auto full = parse_elf([&](uint64_t off, size_t n) { return real->read_range(CUDNNUP_BINARY, off, n); }, full_info->size);
  ASSERT_TRUE(full.ok());
  bool beyond_glibc = false;
  for (const auto& lib : full->needed) beyond_glibc |= !glibc.count(lib);
  EXPECT_TRUE(beyond_glibc);
#endif
}

TEST(LeanChild, RefusesToRunWithoutARequest) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{}, {"__child"}, {"doctor"}, {"__child", "{}", "x"}}) {
    std::string command = lean_child_binary();
    for (const auto& a : args) command += " '" + a + "'";
    EXPECT_EQ(WEXITSTATUS(std::system((command + " 2>/dev/null").c_str())), 2) << command;
  }
}

// The request is read through the typed reader by both entry points: a field of the wrong type
// is a usage error that names it, not an exception inside a task.
TEST(LeanChild, AWronglyTypedRequestIsAUsageErrorNamingTheField) {
  const std::string request = R"({"protocol": "cudnnup.child/1", "task": "probe-cudnn", "events": "-", "library": 5})";
  for (const std::string& program : {lean_child_binary(), std::string(CUDNNUP_BINARY)}) {
    ProcessOptions options;
    options.env = std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}};
    auto r = run_process({program, "__child", request}, options);
    ASSERT_TRUE(r.ok()) << program;
    EXPECT_TRUE(r->exited_normally()) << program;
    EXPECT_EQ(r->exit_code, 2) << program << ": " << r->err;
    EXPECT_NE(r->err.find("'library'"), std::string::npos) << program << ": " << r->err;
    EXPECT_EQ(r->err.find("internal error"), std::string::npos) << program << ": " << r->err;
  }
}

// A cudnnup of its own in a folder: a hard link (the same file, so the binary under test) or,
// across filesystems, a copy.
std::string lone_cudnnup(const std::string& dir) {
  const std::string self = dir + "/cudnnup";
  std::error_code ec;
  fs::create_hard_link(CUDNNUP_BINARY, self, ec);
  if (ec) fs::copy_file(CUDNNUP_BINARY, self);
  return self;
}

json copies_of(const CliResult& r) { return r.json.value("copies", json::array()); }

class LeanChildDoctor : public ::testing::Test {
 protected:
  void SetUp() override {
    install_forwarding_set("9.19.0", tmp_ / "a/lib");
    install_forwarding_set("9.14.0", tmp_ / "b/lib");
    make_dirs(tmp_ / "bin");
    binary_ = lone_cudnnup(tmp_ / "bin");
  }
  CliResult doctor() {
    const char* given = std::getenv("CUDNNUP_TEST_BINARY");  // put back what the caller set
    const std::string saved = given ? given : "";
    setenv("CUDNNUP_TEST_BINARY", binary_.c_str(), 1);
    auto r = run_cli({"doctor", "--json"}, {{"HOME", tmp_.path()}, {"LD_LIBRARY_PATH", tmp_ / "b/lib:" + tmp_ / "a/lib"}});
    if (given) setenv("CUDNNUP_TEST_BINARY", saved.c_str(), 1); else unsetenv("CUDNNUP_TEST_BINARY");
    EXPECT_FALSE(r.json.is_null()) << r.out << r.err;
    return r;
  }
  TempDir tmp_;
  std::string binary_;
};

TEST_F(LeanChildDoctor, IsTheProgramDoctorStartsAndAgreesWithTheFallback) {
  // Beside this cudnnup, a lean child that records each start and then runs the real one.
  const std::string log = tmp_ / "starts.log";
  const std::string lean = tmp_ / "bin/cudnnup-child";
  write_text(lean, "#!/bin/sh\necho \"$1\" >> '" + log + "'\nexec '" + lean_child_binary() + "' \"$@\"\n");
  ASSERT_EQ(chmod(lean.c_str(), 0755), 0);
  CliResult with_lean = doctor();
  std::ifstream in(log);
  std::string first;
  ASSERT_TRUE(std::getline(in, first)) << "doctor never started " << lean;
  EXPECT_EQ(first, "__child");
  const json copies = copies_of(with_lean);
  // Each copy was probed, in isolation, and gave its own version: the lean child did the work.
  for (const auto& [dir, version] : {std::pair{tmp_ / "a/lib", "9.19.0"}, std::pair{tmp_ / "b/lib", "9.14.0"}}) {
    const json* copy = nullptr;
    for (const auto& c : copies) {
      if (c.value("lib_dir", "") == dir) copy = &c;
    }
    ASSERT_NE(copy, nullptr) << dir << "\n" << with_lean.json.dump(1);
    EXPECT_EQ((*copy)["library_version"], version) << copy->dump(1);
    EXPECT_EQ((*copy)["probe"]["isolated"], true) << copy->dump(1);
  }

  // Without it, cudnnup runs the same tasks itself (`cudnnup __child`): the same answers.
  fs::remove(lean);
  CliResult fallback = doctor();
  EXPECT_EQ(copies_of(fallback), copies);
  EXPECT_EQ(fallback.json["findings"], with_lean.json["findings"]);
  EXPECT_EQ(fallback.exit_code, with_lean.exit_code);
}

}  // namespace
}  // namespace cudnnup::testing
