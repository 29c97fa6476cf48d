// Text rendering of a verify report for people.
#pragma once

#include <string>

#include "gpu/verify_model.h"

namespace cudnnup {

// Fixes are written for `shell` (shell/fix_render.h).
std::string render_verify_text(const VerifyReport& report, bool color, bool quiet, Shell shell);

}  // namespace cudnnup
