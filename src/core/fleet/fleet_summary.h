// `cudnnup fleet`'s reduction: many hosts' report readings, one at a time, into groups of hosts
// that load the same cuDNN, the majority group, the hosts that differ from it or have errors, and
// the reports that were not counted. Only a small record per host is kept, so 10,000 reports
// need about as little memory as 1,000 (docs/commands/fleet.md).
//
// Given a lock (`fleet --lock cudnn.lock`), each host is also asked "does a plain program load
// what the lock names?", next to "does it load what the majority loads?".
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fleet/report_summary.h"

namespace cudnnup {

// What a lock names, as far as a host's report can tell: the cuDNN version and CUDA major of the
// copy that loads. The form is not compared: the same files may be a store copy on one host and a
// toolkit merge on another, and `cudnnup check` on the host compares them file by file.
struct FleetLockTarget {
  std::string file;            // the lock, as the user named it (for messages)
  std::string cudnn_version;   // "9.19.0.56"
  int cuda_major = 0;
  // A copy a host loads is the locked one when its CUDA major is the lock's and the two versions
  // name one release (versions_name_each_other: a report or a lock may know only "9.19.0").
  bool matches(const FleetLoadedCopy& copy) const;
  bool matches(const std::vector<FleetLoadedCopy>& loads) const;  // some loaded copy matches
};

struct FleetHost {
  std::string host, file;
  size_t group = 0;  // index into FleetSummary::groups
  bool matches_lock = true;  // false only when a lock was given and the host loads another copy
  int errors = 0, warnings = 0, infos = 0;
  std::vector<std::string> error_ids;
};

struct FleetGroup {
  std::vector<FleetLoadedCopy> loads;
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
  std::optional<FleetLockTarget> lock;  // fleet --lock

  bool has_majority() const { return !groups.empty() && !majority_tied; }
  // Hosts outside the majority group (none while the majority is tied), by host name.
  std::vector<size_t> differing() const;
  std::vector<size_t> with_errors() const;  // hosts with error-level findings
  std::vector<size_t> differing_from_lock() const;  // none without a lock
  // 0 when every report was counted, all hosts load the same (and what the lock names, if one was
  // given) and none has errors; else 1.
  int exit_code() const;
};

class FleetReducer {
 public:
  FleetReducer() = default;
  explicit FleetReducer(FleetLockTarget lock) { out_.lock = std::move(lock); }
  // One file's reading; `file` is how the user named it (for messages only).
  void add(const std::string& file, ReportReading reading);
  // A file that could not be read at all (its reading is the problem).
  void add_problem(const std::string& file, ReportProblem kind, std::string detail);
  FleetSummary finish() &&;

 private:
  FleetSummary out_;
  std::map<std::vector<FleetLoadedCopy>, size_t> group_of_;
  std::unordered_map<std::string, size_t> host_of_;           // host -> index in out_.hosts
  std::map<std::string, std::vector<std::string>> repeats_;   // host -> the files not counted
};

}  // namespace cudnnup
