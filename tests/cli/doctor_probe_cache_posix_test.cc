// Doctor's probe cache end to end (core/diagnose/probe_cache.h): the real binary and its real
// probe child, a stub cuDNN 9 copy whose shim forwards its version calls to the graph library as
// the real one does. A second run reuses the first run's answer and reports the same; a changed
// copy is probed again and its new version shown; --fresh and CUDNNUP_NO_PROBE_CACHE work as
// documented.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "diagnose/probe_cache.h"
#include "support/fixture_libs.h"
#include "support/run_cli.h"

namespace cudnnup::testing {
namespace {

using nlohmann::json;

class DoctorProbeCache : public ::testing::Test {
 protected:
  void SetUp() override {
    lib_ = tmp_ / "copy/lib";
    install_forwarding_set("9.19.0", lib_);
    make_dirs(tmp_ / "home");  // the cache is made in an existing home only
    // Answers about files changed within the last kSettleNs are not kept (the kernel's change
    // times are coarse): let the new copy settle once.
    std::this_thread::sleep_for(std::chrono::nanoseconds(ProbeCache::kSettleNs + 100'000'000));
  }
  json doctor(const std::vector<std::string>& extra_args = {}, std::map<std::string, std::string> extra_env = {}) {
    std::map<std::string, std::string> env = {{"HOME", tmp_ / "home"}, {"CUDNNUP_HOME", tmp_ / "store"},
                                              {"LD_LIBRARY_PATH", lib_}};
    for (auto& [k, v] : extra_env) env[k] = v;
    std::vector<std::string> args = {"--json", "doctor"};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    CliResult r = run_cli(args, env);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
    return r.json;
  }
  // The copy's entry, and its probe's cached_from taken out (the one field that may differ).
  json the_copy(const json& report, json* cached_from = nullptr) {
    for (const auto& c : report["copies"]) {
      if (c["lib_dir"] == std::filesystem::canonical(lib_).string()) {
        json copy = c;
        if (cached_from) *cached_from = copy["probe"]["cached_from"];
        copy["probe"].erase("cached_from");
        return copy;
      }
    }
    ADD_FAILURE() << "the copy " << lib_ << " is not listed:\n" << report.dump(1);
    return json{};
  }
  std::string cache_file() const { return tmp_ / "home/.cache/cudnnup/probes.json"; }
  TempDir tmp_;
  std::string lib_;
};

TEST_F(DoctorProbeCache, ASecondRunReusesTheAnswerAndReportsTheSame) {
  json first = doctor();
  json cached_from;
  json first_copy = the_copy(first, &cached_from);
  EXPECT_TRUE(cached_from.is_null()) << "the first run probes";
  EXPECT_EQ(first_copy["library_version"], "9.19.0");
  ASSERT_TRUE(std::filesystem::exists(cache_file()));

  json second = doctor();
  json second_copy = the_copy(second, &cached_from);
  EXPECT_TRUE(cached_from.is_string()) << second_copy.dump(1);
  EXPECT_EQ(second_copy, first_copy) << "the same answer, mapped files and all";
  // The whole report is the same but for the cache's stamps.
  for (json* r : {&first, &second}) {
    for (auto& c : (*r)["copies"]) {
      if (c["probe"].is_object()) c["probe"].erase("cached_from");
    }
  }
  EXPECT_EQ(second, first);

  json fresh = doctor({"--fresh"});
  the_copy(fresh, &cached_from);
  EXPECT_TRUE(cached_from.is_null()) << "--fresh probes again";
}

TEST_F(DoctorProbeCache, AChangedCopyIsProbedAgainAndItsNewVersionShown) {
  doctor();
  json before_change = doctor();
  json cached_from;
  the_copy(before_change, &cached_from);
  ASSERT_TRUE(cached_from.is_string());
  // The graph library (which answers the version calls) replaced by 9.14's, as a botched manual
  // copy would: same names, other bytes.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // a tick of the kernel's coarse clock
  TempDir other;
  install_forwarding_set("9.14.0", other / "lib", false);
  copy_file(other / "lib/libcudnn_graph.so.9", lib_ + "/libcudnn_graph.so.9");
  json after = doctor();
  json copy = the_copy(after, &cached_from);
  EXPECT_TRUE(cached_from.is_null()) << "probed again";
  EXPECT_EQ(copy["probe"]["version"], "9.14.0") << copy.dump(1);
}

TEST_F(DoctorProbeCache, CanBeTurnedOff) {
  json r = doctor({}, {{"CUDNNUP_NO_PROBE_CACHE", "1"}});
  json cached_from;
  the_copy(r, &cached_from);
  EXPECT_TRUE(cached_from.is_null());
  EXPECT_FALSE(std::filesystem::exists(tmp_ / "home/.cache")) << "nothing written";
  r = doctor({}, {{"CUDNNUP_NO_PROBE_CACHE", "1"}});
  the_copy(r, &cached_from);
  EXPECT_TRUE(cached_from.is_null()) << "nothing reused";
}

TEST_F(DoctorProbeCache, FollowsXdgCacheHome) {
  doctor({}, {{"XDG_CACHE_HOME", tmp_ / "xdg"}});
  EXPECT_TRUE(std::filesystem::exists(tmp_ / "xdg/cudnnup/probes.json"));
  EXPECT_FALSE(std::filesystem::exists(cache_file()));
}

}  // namespace
}  // namespace cudnnup::testing
