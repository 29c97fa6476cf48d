// Shared by the explain tests: the built-in catalogue (a test fails when it does not parse) and
// the explanation that recognised a catalogue entry.
#pragma once

#include <string>

#include "explain/explain.h"

namespace cudnnup::testing {

const ErrorCatalogue& catalogue();
// The explanation that recognised `id`: as its own entry, or folded into another one.
const Explanation* find_match(const ExplainReport& report, const std::string& id);

}  // namespace cudnnup::testing
