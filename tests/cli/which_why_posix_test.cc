// One end-to-end test per class of loader mistake, on fixture trees, through the
// cudnnup binary (so CUDNNUP_TEST_BINARY can point them at another build: each fails on the
// build before the fix, docs/loader-differential.md). Where a real process can show the truth
// (the loader probes of tests/fixtures/loader.cmake) the test compares with it; frameworks are
// checked against what their own loading code does (loader/framework_*.cc).
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

// The cuDNN files a real process maps, by component, from the loader probe's output.
std::map<std::string, std::string> real_load(const std::string& probe, const std::vector<std::string>& args,
                                             const std::map<std::string, std::string>& env, const std::string& cwd) {
  std::vector<std::string> argv = {probe};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions o;
  o.env = env;
  o.cwd = cwd;
  auto r = run_process(argv, o);
  EXPECT_TRUE(r && r->exited_normally());
  std::map<std::string, std::string> out;
  if (!r) return out;
  std::istringstream lines(r->out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("mapped ", 0) != 0) continue;
    std::string base = fs::path(line.substr(7)).filename().string();
    if (base.rfind("libcudnn", 0) != 0) continue;
    out[base.rfind("libcudnn_", 0) == 0 ? base.substr(9, base.find(".so") - 9) : "cudnn"] = canonical(line.substr(7));
  }
  return out;
}

class WhyLoader : public ::testing::Test {
 protected:
  std::map<std::string, std::string> env(std::map<std::string, std::string> more = {}) {
    more.emplace("PATH", "/usr/bin:/bin");
    more.emplace("HOME", tmp_ / "home");
    more.emplace("NO_COLOR", "1");
    return more;
  }
  TempDir tmp_;
};

// "An empty LD_LIBRARY_PATH entry (:x, x::y, x:) means the current directory to glibc."
TEST_F(WhyLoader, EmptyLdLibraryPathEntriesMeanTheCurrentDirectory) {
  make_loading_copy("9.14.0", tmp_ / "work");
  make_loading_copy("9.19.0", tmp_ / "other/lib");
  copy_file(loader_fixture("bin/probe_dlopen"), tmp_ / "bin/probe");
  for (std::string llp : {":" + tmp_ / "other/lib", tmp_ / "x::" + tmp_ / "other/lib", tmp_ / "x:"}) {
    auto e = env({{"LD_LIBRARY_PATH", llp}});
    auto truth = real_load(tmp_ / "bin/probe", {"libcudnn.so.9"}, e, tmp_ / "work");
    ASSERT_EQ(truth["cudnn"], canonical(tmp_ / "work/libcudnn.so.9")) << llp;
    auto r = run_cli({"--json", "which", "--for", tmp_ / "bin/probe"}, e, tmp_ / "work");
    ASSERT_TRUE(r.json.is_object()) << r.out << r.err;
    EXPECT_EQ(r.json["resolution"]["canonical"], truth["cudnn"]) << "LD_LIBRARY_PATH=" << llp;
  }
}

// "A preloaded foreign libcudnn_graph.so.9 binds the sub-libraries' own DT_NEEDED even though
// their files come from the right copy."
TEST_F(WhyLoader, APreloadedForeignGraphLibraryIsABindingLevelMix) {
  make_loading_copy("9.19.0", tmp_ / "right/lib");
  // The right copy carries versioned names too, so the shim finds its own graph by them.
  for (const std::string c : {"graph", "ops", "cnn", "adv", "heuristic", "engines_precompiled", "engines_runtime_compiled"}) {
    fs::rename(tmp_ / "right/lib/libcudnn_" + c + ".so.9", tmp_ / "right/lib/libcudnn_" + c + ".so.9.19.0");
    make_symlink("libcudnn_" + c + ".so.9.19.0", tmp_ / "right/lib/libcudnn_" + c + ".so.9");
  }
  make_loading_copy("9.14.0", tmp_ / "foreign/lib");
  copy_file(loader_fixture("bin/probe_dlopen"), tmp_ / "bin/probe");
  auto e = env({{"LD_LIBRARY_PATH", tmp_ / "right/lib"}, {"LD_PRELOAD", tmp_ / "foreign/lib/libcudnn_graph.so.9"}});
  auto r = run_cli({"--json", "which", "--for", tmp_ / "bin/probe"}, e, tmp_.path());
  ASSERT_TRUE(r.json.is_object()) << r.out << r.err;
  EXPECT_EQ(r.json["resolution"]["canonical"], canonical(tmp_ / "right/lib/libcudnn.so.9"));
  ASSERT_TRUE(r.json["cudnn"].is_object());
  EXPECT_TRUE(r.json["cudnn"]["mixed_copies"].get<bool>());
  EXPECT_EQ(r.json["cudnn"]["version_check"], "fails") << "ops 9.19.0 binds the preloaded graph 9.14.0";
  EXPECT_EQ(r.exit_code, 1);
}

// "A mix of sub-libraries of the SAME version from another copy is predicted to fail": cuDNN
// compares versions, not directories, so it works.
TEST_F(WhyLoader, SubLibrariesOfTheSameVersionFromAnotherCopyPassCudnnsCheck) {
  copy_file(loader_fixture("bin/probe_rpath"), tmp_ / "app/bin/probe");
  make_loading_copy("9.19.0", tmp_ / "app/rp");
  make_loading_copy("9.19.0", tmp_ / "other/lib");
  auto e = env({{"LD_LIBRARY_PATH", tmp_ / "other/lib"}});
  auto truth = real_load(tmp_ / "app/bin/probe", {}, e, tmp_.path());
  ASSERT_EQ(fs::path(truth["graph"]).parent_path(), canonical(tmp_ / "other/lib")) << "the real ld.so mixes them";
  auto r = run_cli({"--json", "which", "--for", tmp_ / "app/bin/probe"}, e, tmp_.path());
  ASSERT_TRUE(r.json.is_object()) << r.out << r.err;
  EXPECT_TRUE(r.json["cudnn"]["mixed_copies"].get<bool>());
  EXPECT_EQ(r.json["cudnn"]["version_check"], "passes");
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

// "cudnn.shadowed can name a winner that glibc never searches (/lib64, /usr/lib64,
// /usr/local/lib on a Debian multiarch system)." A stub copy is put in /usr/lib64 in a private
// mount namespace; doctor must not count it as on the search path.
TEST_F(WhyLoader, DoctorDoesNotCountDirectoriesLdSoNeverSearches) {
  ProcessOptions probe;
  probe.env = std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}};
  auto ns = run_process({"unshare", "-m", "true"}, probe);
  if (!ns || ns->exit_code != 0) GTEST_SKIP() << "no private mount namespace (unshare -m needs root)";
  if (!fs::exists("/usr/lib/x86_64-linux-gnu")) GTEST_SKIP() << "not a Debian multiarch system";
  make_loading_copy("9.14.0", tmp_ / "lib64", false);
  // /lib64 is /usr/lib64 on a merged-/usr system: keep the dynamic loader reachable.
  if (fs::exists("/usr/lib64/ld-linux-x86-64.so.2")) {
    make_symlink(fs::read_symlink("/usr/lib64/ld-linux-x86-64.so.2").string(), tmp_ / "lib64/ld-linux-x86-64.so.2");
  }
  make_loading_copy("9.19.0", tmp_ / "first/lib");
  std::vector<std::string> argv = {"unshare", "-m", "/bin/sh", "-c", "mount --bind \"$0\" /usr/lib64 && exec \"$@\"",
                                   tmp_ / "lib64", testing::cudnnup_binary(), "--json", "doctor"};
  ProcessOptions o;
  o.env = env({{"LD_LIBRARY_PATH", tmp_ / "first/lib"}});
  o.timeout_ms = 120000;
  auto r = run_process(argv, o);
  ASSERT_TRUE(r && r->exited_normally()) << (r ? r->err : "");
  auto doc = nlohmann::json::parse(r->out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << r->out << r->err;
  // Doctor scans /usr/lib64 for copies, so the copy there is listed: the checks below are about a
  // copy doctor knows, not one it missed.
  bool listed = false;
  for (const auto& c : doc["copies"]) listed |= c["lib_dir"] == "/usr/lib64";
  ASSERT_TRUE(listed) << doc["copies"].dump(1);
  // No finding about what programs load puts it on the search path.
  for (const auto& f : doc["findings"]) {
    if (f["id"] != "cudnn.shadowed" && f["id"] != "env.redirects_cudnn" && f["id"] != "loader.mixed_copies") continue;
    EXPECT_EQ(f.dump().find("/usr/lib64"), std::string::npos) << "ld.so never searches /usr/lib64 here, yet doctor says: "
                                                               << f.dump(1);
  }
}

}  // namespace
}  // namespace cudnnup
#endif  // CUDNNUP_FIXTURE_DIR
