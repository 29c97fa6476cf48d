// A host's `cudnnup --json doctor` report reaches `cudnnup fleet` from another machine (a shared
// volume, a file srun wrote). Whatever the bytes, the reader returns a reading and never throws;
// a counted report has a host name within the bounds fleet promises and versions that parse; and
// the reading of a report does not depend on what came before it (the reducer keeps nothing else).
#include "base/version.h"
#include "fleet/fleet_summary.h"
#include "fleet/report_summary.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes = cudnnup::fuzz::bytes_of(data, size);
  cudnnup::ReportReading r = cudnnup::read_doctor_report(bytes);
  if (r.problem == cudnnup::ReportProblem::kNone) {
    const std::string& host = r.summary.host;
    if (host.empty() || host.size() > 253) cudnnup::fuzz::violation("a counted report has a host name out of bounds: " + host);
    for (char c : host) {  // what reaches a page, a label or a file name: letters, digits, - . _
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
      if (!ok) cudnnup::fuzz::violation("a counted report's host name holds a character no host name has");
    }
    for (const auto& l : r.summary.loads) {
      if (!l.version.empty() && !cudnnup::Version::parse(l.version)) cudnnup::fuzz::violation("a loaded version that is not one: " + l.version);
    }
    (void)cudnnup::describe_loads(r.summary.loads);
  } else if (r.detail.empty()) {
    cudnnup::fuzz::violation(std::string("a report not counted without a reason: ") + cudnnup::report_problem_name(r.problem));
  }
  // Twice, through the reducer: the same input gives one host and one duplicate, or two problems.
  cudnnup::FleetReducer fleet(cudnnup::FleetLockTarget{"cudnn.lock", "9.19.0.56", 13});
  fleet.add("a.json", cudnnup::read_doctor_report(bytes));
  fleet.add("b.json", cudnnup::read_doctor_report(bytes));
  cudnnup::FleetSummary f = std::move(fleet).finish();
  size_t expected_hosts = r.problem == cudnnup::ReportProblem::kNone ? 1 : 0;
  if (f.hosts.size() != expected_hosts || f.problems.size() != 2 - expected_hosts) {
    cudnnup::fuzz::violation("reading the same report twice did not give the same answer");
  }
  return 0;
}
