// JSON and text renderings of loader answers (`which`), shared with `doctor`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "loader/frameworks.h"
#include "binfmt/proc_maps.h"
#include "loader/which.h"

namespace cudnnup {

nlohmann::ordered_json resolution_to_json(const Resolution& r);
nlohmann::ordered_json which_report_to_json(const WhichReport& w);
nlohmann::ordered_json framework_report_to_json(const FrameworkReport& f);
nlohmann::ordered_json process_report_to_json(const ProcessCudnnReport& p);

// Text for people; `verbose` also lists candidates that were missing.
std::string which_report_to_text(const WhichReport& w, bool verbose, bool color);
std::string framework_report_to_text(const FrameworkReport& f, bool verbose, bool color);
std::string process_report_to_text(const ProcessCudnnReport& p, bool color);

}  // namespace cudnnup
