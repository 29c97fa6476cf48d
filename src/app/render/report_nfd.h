// `cudnnup doctor --format nfd`: the doctor report as a feature file of Node Feature
// Discovery's local source (nfd-worker reads /etc/kubernetes/node-feature-discovery/features.d/),
// one `name=value` node label per line. The labels are listed in docs/commands/doctor.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "diagnose/doctor.h"

namespace cudnnup {

// The prefix of every label: NFD's own namespace, which nfd-master always allows (other
// *.kubernetes.io namespaces it denies), written out rather than left for NFD to add.
inline constexpr const char* kNfdLabelPrefix = "feature.node.kubernetes.io/";

// `value` when Kubernetes accepts it as a label value (at most 63 characters of [A-Za-z0-9-_.],
// beginning and ending with a letter or digit, or empty); nullopt when it does not, so that a value
// taken from the machine is left out rather than written invalid.
std::optional<std::string> nfd_label_value(std::string_view value);

// `doctor_exit_code`: what plain `cudnnup doctor` exits with for this report (0, or 1 with errors).
std::string render_report_nfd(const DoctorOutcome& outcome, int doctor_exit_code);

}  // namespace cudnnup
