// The doctor Report as a checklist for people: ✓ / ! / ✗ per component, the fix under each problem.
#pragma once

#include <string>

#include "app/render/style.h"
#include "base/model.h"

namespace cudnnup {

std::string render_report_text(const Report& r, const Style& style, bool windows, bool quiet);

}  // namespace cudnnup
