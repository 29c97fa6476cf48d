#include "support/run_cli.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "platform/process.h"

namespace cudnnup::testing {

std::string cudnnup_binary() {
  const char* other = std::getenv("CUDNNUP_TEST_BINARY");
  return other && *other ? other : CUDNNUP_BINARY;
}

CliResult run_cli(const std::vector<std::string>& args, std::map<std::string, std::string> env, const std::string& cwd) {
  std::vector<std::string> argv = {cudnnup_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  if (!env.count("PATH")) env["PATH"] = "/usr/bin:/bin";
  ProcessOptions options;
  options.env = env;
  options.timeout_ms = 60000;
  options.cwd = cwd;
  CliResult r;
  auto result = run_process(argv, options);
  if (!result) {
    ADD_FAILURE() << "cannot run cudnnup: " << result.error().message;
    return r;
  }
  r.exit_code = result->exited_normally() ? result->exit_code : -1;
  r.out = result->out;
  r.err = result->err;
  r.json = nlohmann::json::parse(r.out, nullptr, false);
  if (r.json.is_discarded()) r.json = nullptr;
  return r;
}

}  // namespace cudnnup::testing
