// JSON and text for `cudnnup which` on Windows (core/which_windows.h), shared with doctor's
// "What loads". The JSON keeps the Linux shape (docs/commands/which.md) where the ideas match:
// target, target_kind, library, how_requested, resolution{found, path, rule, candidates},
// cudnn{mixed_copies, sub_libraries}, notes, problems; plus search_mode, search_dirs and, for
// each candidate, problem and win32_error.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "loader/windows/which_windows.h"

namespace cudnnup {

nlohmann::ordered_json dll_resolution_to_json(const DllResolution& r);
nlohmann::ordered_json windows_which_to_json(const WindowsWhichReport& w);
std::string windows_which_to_text(const WindowsWhichReport& w, bool verbose, bool color);

}  // namespace cudnnup
