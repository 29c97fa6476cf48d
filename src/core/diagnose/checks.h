// The doctor's checks: records in, findings out. Thresholds and tables come from Rules (data);
// the code here only says how to compare. Each finding id is documented in docs/json-schema.md.
#pragma once

#include <vector>

#include "base/environment.h"
#include "base/model.h"
#include "facts/rules.h"

namespace cudnnup {

std::vector<Finding> check_driver(const Report& report, const Rules& rules, const Environment& env);
std::vector<Finding> check_toolkits(const Report& report, const Rules& rules, const Environment& env);
std::vector<Finding> check_copy(const CudnnCopy& copy, const Report& report, const Rules& rules,
                                const Environment& env);
// Problems between copies: two majors in one directory, no cuDNN at all, and on Windows shadowing
// through PATH (on Linux the loader model judges shadowing: diagnose/load_checks.h).
std::vector<Finding> check_copies_together(const Report& report, const Environment& env);

}  // namespace cudnnup
