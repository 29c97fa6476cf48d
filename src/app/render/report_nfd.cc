#include "app/render/report_nfd.h"

#include <sstream>

#include "app/render/plain_program_load.h"
#include "app/render/report_json.h"

namespace cudnnup {

namespace {

bool label_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// One label line, or a comment saying which label was left out. The comment names only our own
// label, never the machine's bytes, and does not begin with "# +", which NFD reads as a directive.
void label(std::ostringstream& out, const std::string& name, std::string_view value) {
  if (auto v = nfd_label_value(value)) {
    out << kNfdLabelPrefix << name << "=" << *v << "\n";
  } else {
    out << "# " << name << " left out: its value is not a valid Kubernetes label value\n";
  }
}

}  // namespace

std::optional<std::string> nfd_label_value(std::string_view value) {
  if (value.empty()) return std::string();
  if (value.size() > 63 || !label_alnum(value.front()) || !label_alnum(value.back())) return std::nullopt;
  for (char c : value) {
    if (!label_alnum(c) && c != '-' && c != '_' && c != '.') return std::nullopt;
  }
  return std::string(value);
}

std::string render_report_nfd(const DoctorOutcome& outcome, int doctor_exit_code) {
  std::ostringstream out;
  out << "# cuDNN labels written by cudnnup doctor --format nfd (docs/commands/doctor.md)\n";
  auto loads = plain_program_loads(outcome);
  label(out, "cudnn.present", loads.empty() ? "false" : "true");
  if (!loads.empty()) {
    // What a program linked with plain -lcudnn gets: the highest major that loads.
    const PlainProgramLoad& load = loads.front();
    if (load.version.known()) {
      label(out, "cudnn.version", load.version.str());
      label(out, "cudnn.major", std::to_string(load.version.major()));
    }
    if (load.cuda_major > 0) label(out, "cudnn.cuda-major", std::to_string(load.cuda_major));
  }
  label(out, "cudnn.healthy", doctor_exit_code == 0 ? "true" : "false");
  label(out, "cudnn.copies", std::to_string(outcome.report.copies.size()));
  label(out, "cudnn.errors", std::to_string(count_findings(outcome.report.findings).errors));
  return out.str();
}

}  // namespace cudnnup
