// Runs the real cudnnup binary in a child process for end-to-end tests.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace cudnnup::testing {

struct CliResult {
  int exit_code = -1;
  std::string out, err;
  nlohmann::json json;  // parsed stdout when it is JSON, else null
};

// `env` replaces the environment entirely (tests describe the machine they want); PATH defaults
// to /usr/bin:/bin and CUDNNUP_SHELL to bash (cmd on Windows) when not given. `cwd`: the child's working directory (default: ours).
// CUDNNUP_TEST_BINARY, when set, names another cudnnup build to run instead (to see which
// end-to-end tests an older build fails: docs/loader-differential.md).
CliResult run_cli(const std::vector<std::string>& args, std::map<std::string, std::string> env = {},
                  const std::string& cwd = {});

// The binary run_cli starts.
std::string cudnnup_binary();

}  // namespace cudnnup::testing
