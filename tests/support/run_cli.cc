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
  // Printed commands follow the shell cudnnup was started from, which for a test is whatever ran
  // the test program: name one, so the output does not depend on it. A test of the choice itself
  // passes CUDNNUP_SHELL="" (empty counts as unset).
#ifdef _WIN32
  if (!env.count("CUDNNUP_SHELL")) env["CUDNNUP_SHELL"] = "cmd";
#else
  if (!env.count("CUDNNUP_SHELL")) env["CUDNNUP_SHELL"] = "bash";
#endif
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
