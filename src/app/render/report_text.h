// The doctor Report as a checklist for people: ✓ / ! / ✗ per component, the fix under each problem.
#pragma once

#include <string>

#include "app/render/style.h"
#include "base/model.h"
#include "shell/user_shell.h"

namespace cudnnup {

// Fixes are written for `shell`; a line at the end says for which shell and why, when there are any.
std::string render_report_text(const Report& r, const Style& style, bool windows, bool quiet, const UserShell& shell);

}  // namespace cudnnup
