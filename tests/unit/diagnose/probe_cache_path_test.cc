// Where the probe cache lives (core/diagnose/probe_cache.h, probe_cache_path): the XDG cache
// folder, never the store, and nowhere when it is turned off, on Windows or without a home.
#include <gtest/gtest.h>

#include "diagnose/probe_cache.h"

namespace cudnnup {
namespace {

Environment probe_cache_env(std::map<std::string, std::string> vars = {}) {
  Environment env;
  env.home = "/home/u";
  env.vars = std::move(vars);
  return env;
}

TEST(ProbeCachePath, FollowsXdgCacheHomeElseHomeCache) {
  EXPECT_EQ(probe_cache_path(probe_cache_env()), "/home/u/.cache/cudnnup/probes.json");
  EXPECT_EQ(probe_cache_path(probe_cache_env({{"XDG_CACHE_HOME", "/var/cache/u"}})), "/var/cache/u/cudnnup/probes.json");
  EXPECT_EQ(probe_cache_path(probe_cache_env({{"XDG_CACHE_HOME", "relative/dir"}})), "/home/u/.cache/cudnnup/probes.json")
      << "a relative XDG_CACHE_HOME is ignored, as the XDG specification says";
  EXPECT_EQ(probe_cache_path(probe_cache_env({{"CUDNNUP_HOME", "/store"}})), "/home/u/.cache/cudnnup/probes.json")
      << "not in the store: only install, use and uninstall change the store";
}

TEST(ProbeCachePath, NowhereWhenOffOnWindowsOrWithoutAHome) {
  EXPECT_EQ(probe_cache_path(probe_cache_env({{"CUDNNUP_NO_PROBE_CACHE", "1"}})), "");
  EXPECT_EQ(probe_cache_path(probe_cache_env({{"CUDNNUP_NO_PROBE_CACHE", "0"}})), "/home/u/.cache/cudnnup/probes.json");
  EXPECT_EQ(probe_cache_path(probe_cache_env({{"CUDNNUP_NO_PROBE_CACHE", ""}})), "/home/u/.cache/cudnnup/probes.json");
  Environment windows = probe_cache_env();
  windows.os = OsKind::kWindows;
  EXPECT_EQ(probe_cache_path(windows), "") << "Windows: every run probes";
  Environment homeless;
  EXPECT_EQ(probe_cache_path(homeless), "");
}

}  // namespace
}  // namespace cudnnup
