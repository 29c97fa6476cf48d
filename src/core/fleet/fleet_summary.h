// `cudnnup fleet`'s reduction: many hosts' report readings, one at a time, into groups of hosts
// that load the same cuDNN, the majority group, the hosts that differ from it or have errors, and
// the reports that were not counted. Only a small record per host is kept, so 10,000 reports
// need about as little memory as 1,000 (docs/commands/fleet.md).
//
// A comparison with a lock file (issue 15, `cudnnup lock`) fits here as one more question per
// host ("loads what the lock names?"), next to the majority's.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "fleet/report_summary.h"

namespace cudnnup {

struct FleetHost {
  std::string host, file;
  size_t group = 0;  // index into FleetSummary::groups
  int errors = 0, warnings = 0, infos = 0;
  std::vector<std::string> error_ids;
};

struct FleetGroup {
  std::vector<LoadedCopy> loads;
  std::string label;               // describe_loads
  std::vector<size_t> hosts;       // indexes into FleetSummary::hosts, by host name
};

struct FleetProblem {
  ReportProblem kind = ReportProblem::kNone;
  std::vector<std::string> files;  // one file; for kDuplicate the counted one first, then the others
  std::string host;                // kDuplicate only
  std::string detail;
};

struct FleetSummary {
  size_t reports = 0;                // files read, counted or not
  std::vector<FleetHost> hosts;      // by host name
  std::vector<FleetGroup> groups;    // largest first, then by label
  bool majority_tied = false;        // groups[0] and groups[1] are as large: no host "differs"
  std::vector<FleetProblem> problems;  // in the order the files were given, duplicates last

  bool has_majority() const { return !groups.empty() && !majority_tied; }
  // Hosts outside the majority group (none while the majority is tied), by host name.
  std::vector<size_t> differing() const;
  std::vector<size_t> with_errors() const;  // hosts with error-level findings
  // 0 when every report was counted, all hosts load the same and none has errors; else 1.
  int exit_code() const;
};

class FleetReducer {
 public:
  // One file's reading; `file` is how the user named it (for messages only).
  void add(const std::string& file, ReportReading reading);
  // A file that could not be read at all (its reading is the problem).
  void add_problem(const std::string& file, ReportProblem kind, std::string detail);
  FleetSummary finish() &&;

 private:
  FleetSummary out_;
  std::map<std::vector<LoadedCopy>, size_t> group_of_;
  std::unordered_map<std::string, size_t> host_of_;           // host -> index in out_.hosts
  std::map<std::string, std::vector<std::string>> repeats_;   // host -> the files not counted
};

}  // namespace cudnnup
