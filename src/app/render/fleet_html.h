// `cudnnup fleet --format html`: the drift summary as one page to share (html_page.h: inline CSS
// and SVG, nothing fetched, no script, a CSP that allows neither). Host names, file names and
// versions come from other machines' reports: every one is escaped.
#pragma once

#include <string>

#include "fleet/fleet_summary.h"

namespace cudnnup {

// `generated`: when the page was made, shown as given ("2026-12-04 02:10 UTC").
std::string render_fleet_html(const FleetSummary& fleet, const std::string& generated);

}  // namespace cudnnup
