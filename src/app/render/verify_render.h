// Text rendering of a verify report for people.
#pragma once

#include <string>

#include "gpu/verify_model.h"

namespace cudnnup {

std::string render_verify_text(const VerifyReport& report, bool color, bool quiet);

}  // namespace cudnnup
