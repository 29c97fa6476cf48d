// Runs the doctor for a command that needs the machine's picture (doctor, explain, which, list):
// loads the rules (--db or built in), probes through child processes, returns the Report.
#pragma once

#include "app/cli/app_context.h"
#include "diagnose/doctor.h"
#include "base/model.h"
#include "facts/rules.h"

namespace cudnnup {

Result<Rules> load_rules(const AppContext& ctx);
Result<Report> collect_report(AppContext& ctx);
// The Report plus the loader model's answers (plain program, frameworks, `--for` target), for `doctor`.
// `fresh`: probe every copy again instead of reusing the probe cache's answers (doctor --fresh;
// --deep implies it).
Result<DoctorOutcome> collect_outcome(AppContext& ctx, bool deep = false, const std::string& for_target = {},
                                      bool fresh = false);

}  // namespace cudnnup
