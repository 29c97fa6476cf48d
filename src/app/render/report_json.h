// The doctor Report as JSON, schema "cudnnup.doctor/1" (docs/json-schema.md). Other commands
// that embed machine facts (explain, which, list) reuse these pieces.
#pragma once

#include <nlohmann/json.hpp>

#include "base/model.h"
#include "shell/shell_env.h"  // Shell

namespace cudnnup {

struct FindingCounts {
  int errors = 0, warnings = 0, infos = 0;
};
FindingCounts count_findings(const std::vector<Finding>& findings);

// "fix" as lines for `shell` (shell/fix_render.h), "fix_commands" the argument vectors of its command
// steps, "fix_steps" every step in base/fix.h's data form.
nlohmann::ordered_json finding_to_json(const Finding& f, Shell shell);
nlohmann::ordered_json copy_to_json(const CudnnCopy& c);
// `host`: the machine's host name (platform/system.h), which `cudnnup fleet` groups reports by.
// Every finding's "fix" lines are written for `shell`, named in "fix_shell".
nlohmann::ordered_json report_to_json(const Report& r, int exit_code, const std::string& host, Shell shell);

}  // namespace cudnnup
