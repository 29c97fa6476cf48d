#include "app/render/report_prometheus.h"

#include <cstdio>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "app/render/plain_program_load.h"
#include "app/render/report_json.h"
#include "base/utf8.h"
#include "diagnose/finding_text.h"

namespace cudnnup {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

std::string version_label(const Version& v) { return v.known() ? v.str() : "unknown"; }
std::string cuda_major_label(int major) { return major > 0 ? std::to_string(major) : "unknown"; }

std::string series(const std::string& name, const Labels& labels) {
  std::string out = name;
  if (labels.empty()) return out;
  out += "{";
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i) out += ",";
    out += labels[i].first + "=\"" + prometheus_label_value(labels[i].second) + "\"";
  }
  return out + "}";
}

// HELP and TYPE once per metric family, before its samples, as the format requires.
void family(std::ostringstream& out, const std::string& name, const std::string& help) {
  out << "# HELP " << name << " " << help << "\n# TYPE " << name << " gauge\n";
}

void copy_metrics(std::ostringstream& out, const Report& r) {
  family(out, "cudnnup_copy_info", "A cuDNN copy cudnnup doctor found (always 1; the labels say which).");
  // Two copies never share a library folder, but a duplicate series would make the whole file
  // unreadable to Prometheus, so one is written at most once whatever discovery returns.
  std::set<std::string> written;
  for (const CudnnCopy& c : r.copies) {
    std::string line = series("cudnnup_copy_info", {{"path", c.lib_dir},
                                                    {"root", c.root},
                                                    {"version", version_label(effective_version(c))},
                                                    {"cuda_major", cuda_major_label(c.cuda_major)},
                                                    {"form", package_form_name(c.form)}});
    if (written.insert(line).second) out << line << " 1\n";
  }
  family(out, "cudnnup_copies", "How many cuDNN copies cudnnup doctor found.");
  out << "cudnnup_copies " << r.copies.size() << "\n";
}

void loaded_metrics(std::ostringstream& out, const DoctorOutcome& outcome) {
  family(out, "cudnnup_loaded_copy_info",
         "The cuDNN copy a plain program linked with -lcudnn loads, per library name (always 1).");
  for (const PlainProgramLoad& load : plain_program_loads(outcome)) {
    const Resolution& res = load.which->resolution;
    out << series("cudnnup_loaded_copy_info", {{"library", load.which->library},
                                               {"path", res.canonical.empty() ? res.path : res.canonical},
                                               {"version", version_label(load.version)},
                                               {"cuda_major", cuda_major_label(load.cuda_major)}})
        << " 1\n";
  }
}

void finding_metrics(std::ostringstream& out, const Report& r) {
  FindingCounts counts = count_findings(r.findings);
  family(out, "cudnnup_findings", "Findings of cudnnup doctor by severity (every severity, also when 0).");
  out << "cudnnup_findings{severity=\"error\"} " << counts.errors << "\n";
  out << "cudnnup_findings{severity=\"warning\"} " << counts.warnings << "\n";
  out << "cudnnup_findings{severity=\"info\"} " << counts.infos << "\n";
}

}  // namespace

std::string prometheus_label_value(std::string_view value) {
  std::string out;
  for (size_t i = 0; i < value.size();) {
    size_t n = utf8_sequence_length(value, i);
    if (n == 0) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\\\x%02x", static_cast<unsigned char>(value[i]));
      out += hex;
      ++i;
      continue;
    }
    char c = value[i];
    if (n == 1 && c == '\\') out += "\\\\";
    else if (n == 1 && c == '"') out += "\\\"";
    else if (n == 1 && c == '\n') out += "\\n";
    else out.append(value.substr(i, n));
    i += n;
  }
  return out;
}

std::string render_report_prometheus(const DoctorOutcome& outcome, int doctor_exit_code, int64_t now_unix_seconds) {
  const Report& r = outcome.report;
  std::ostringstream out;
  family(out, "cudnnup_info", "The cudnnup that wrote these metrics and its rules data (always 1).");
  out << series("cudnnup_info", {{"version", CUDNNUP_VERSION}, {"rules_version", r.rules_version}}) << " 1\n";
  copy_metrics(out, r);
  loaded_metrics(out, outcome);
  finding_metrics(out, r);
  family(out, "cudnnup_doctor_exit_code",
         "What plain cudnnup doctor exits with on this machine: 0 no errors, 1 errors found (docs/exit-codes.md).");
  out << "cudnnup_doctor_exit_code " << doctor_exit_code << "\n";
  family(out, "cudnnup_last_run_timestamp_seconds", "When cudnnup doctor wrote these metrics, in seconds since the Unix epoch.");
  out << "cudnnup_last_run_timestamp_seconds " << now_unix_seconds << "\n";
  return out.str();
}

}  // namespace cudnnup
