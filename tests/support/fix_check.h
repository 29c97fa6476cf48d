// "Every fix runs": checks a cudnnup command that a fix prints (base/fix.h) against the real
// command line (app/cli/cli_definition.h), as main() parses it, plus the refusals `install` makes
// before it looks at anything (a release, not a major; a CUDA major unless a toolkit is named).
#pragma once

#include <string>
#include <vector>

namespace cudnnup::testing {

// Why cudnnup would refuse this argument vector as a usage error; "" when it accepts it.
// argv[0] must be "cudnnup".
std::string cli_refusal(const std::vector<std::string>& argv);

// The command's path ("install", "cache clean") as the real command line reads argv; "" when
// it reads none.
std::string cli_command_path(const std::vector<std::string>& argv);

}  // namespace cudnnup::testing
