// The doctor Report as JSON, schema "cudnnup.doctor/1" (docs/json-schema.md). Other commands
// that embed machine facts (explain, which, list) reuse these pieces.
#pragma once

#include <nlohmann/json.hpp>

#include "base/model.h"

namespace cudnnup {

struct FindingCounts {
  int errors = 0, warnings = 0, infos = 0;
};
FindingCounts count_findings(const std::vector<Finding>& findings);

nlohmann::ordered_json finding_to_json(const Finding& f);
nlohmann::ordered_json copy_to_json(const CudnnCopy& c);
nlohmann::ordered_json report_to_json(const Report& r, int exit_code);

}  // namespace cudnnup
