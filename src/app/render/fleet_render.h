// `cudnnup fleet`'s output: the drift summary as text for a person and as the `cudnnup.fleet/1`
// JSON document (docs/schema/fleet-1.schema.json).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "app/render/style.h"
#include "fleet/fleet_summary.h"

namespace cudnnup {

nlohmann::ordered_json fleet_to_json(const FleetSummary& fleet);
// `quiet`: only what needs attention (differing hosts, errors, reports not counted).
std::string fleet_to_text(const FleetSummary& fleet, const Style& style, bool quiet);

}  // namespace cudnnup
