// Output that a collector or a shared page takes as one file: `cudnnup doctor --format prometheus
// > f.tmp && mv f.tmp f`, `cudnnup fleet --format html > fleet.html`.
#pragma once

#include <string>

#include "app/cli/app_context.h"

namespace cudnnup {

// Writes `text` to standard output. The shell replaces the file only on exit 0, so a write that
// failed (a full disk) is exit 2 with a message, never a truncated file put in place; else `code`.
int print_whole_output(AppContext& ctx, const std::string& text, int code);

// "2026-12-04 02:10 UTC": when a page was made, for whoever reads it later.
std::string utc_now_text();

}  // namespace cudnnup
