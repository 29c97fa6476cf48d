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
// to /usr/bin:/bin when not given.
CliResult run_cli(const std::vector<std::string>& args, std::map<std::string, std::string> env = {});

}  // namespace cudnnup::testing
