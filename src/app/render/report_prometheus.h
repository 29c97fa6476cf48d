// `cudnnup doctor --format prometheus`: the doctor report as metrics in Prometheus' text
// exposition format (version 0.0.4), for node_exporter's textfile collector. The metrics and
// their labels are listed in docs/commands/doctor.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "diagnose/doctor.h"

namespace cudnnup {

// A label value as the exposition format writes it between double quotes: backslash, double
// quote and newline escaped. The format wants UTF-8, and paths are any bytes: a byte that does
// not start valid UTF-8 is written as the four characters \xNN, as the text output shows it.
std::string prometheus_label_value(std::string_view value);

// `doctor_exit_code`: what plain `cudnnup doctor` exits with for this report (0, or 1 with errors);
// `now_unix_seconds`: when this run happened.
std::string render_report_prometheus(const DoctorOutcome& outcome, int doctor_exit_code, int64_t now_unix_seconds);

}  // namespace cudnnup
