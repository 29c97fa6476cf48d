// The loader environment of a cuDNN probe child (runs on every OS).
#include <gtest/gtest.h>

#include "app/child/child_prober.h"

namespace cudnnup {
namespace {

TEST(IsolatedProbeEnvironment, NoInheritedLoaderVariablesAndOnlyTheCopysDirectory) {
  Environment env;
  env.vars = {{"PATH", "/usr/bin"},
              {"HOME", "/home/u"},
              {"LD_LIBRARY_PATH", "/opt/old/lib::"},
              {"LD_PRELOAD", "/opt/old/lib/libcudnn_graph.so.9"},
              {"LD_AUDIT", "/tmp/audit.so"},
              {"LD_BIND_NOW", "1"}};
  auto vars = isolated_probe_environment(env, "/usr/local/cuda-13.0/lib");
  EXPECT_EQ(vars, (std::map<std::string, std::string>{{"HOME", "/home/u"},
                                                      {"LD_LIBRARY_PATH", "/usr/local/cuda-13.0/lib"},
                                                      {"PATH", "/usr/bin"}}));
}

TEST(IsolatedProbeEnvironment, WindowsKeepsItsVariablesTheChildRestrictsItsOwnSearch) {
  Environment env;
  env.os = OsKind::kWindows;
  env.vars = {{"PATH", "C:/old/bin;C:/Windows/System32"}, {"SYSTEMROOT", "C:/Windows"}};
  EXPECT_EQ(isolated_probe_environment(env, "C:/cudnn/bin"), env.vars);
}

}  // namespace
}  // namespace cudnnup
