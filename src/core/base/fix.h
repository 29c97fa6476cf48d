// The data form of fix steps (base/fix_step.h): data/error_catalogue.json, the verify child's
// protocol and JSON output read and write steps this way.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/fix_step.h"

namespace cudnnup {

class JsonValue;

// The data form, shared by data/error_catalogue.json and the verify child's protocol: an object
// with exactly one of "cudnnup" / "run" / "sudo" (arrays of words), "set" (+ "value"), "unset",
// "shell", "step" (strings), and optionally "note" and "eval" (docs/commands/explain.md).
nlohmann::json fix_step_to_json(const FixStep& step);
// Records an error on `j` (the reader's first error) when it is not such an object.
FixStep fix_step_from_json(const JsonValue& j);

}  // namespace cudnnup
