#include "fleet/fleet_summary.h"

#include <algorithm>
#include <numeric>

#include "base/version.h"

namespace cudnnup {

bool FleetLockTarget::matches(const FleetLoadedCopy& copy) const {
  if (copy.cuda_major != cuda_major) return false;
  auto locked = Version::parse(cudnn_version);
  auto loaded = Version::parse(copy.version);
  if (!locked || !loaded) return false;
  return versions_name_each_other(*locked, *loaded);
}

bool FleetLockTarget::matches(const std::vector<FleetLoadedCopy>& loads) const {
  return std::any_of(loads.begin(), loads.end(), [this](const FleetLoadedCopy& c) { return matches(c); });
}

std::vector<size_t> FleetSummary::differing() const {
  std::vector<size_t> out;
  if (!has_majority()) return out;
  for (size_t i = 0; i < hosts.size(); ++i) {
    if (hosts[i].group != 0) out.push_back(i);
  }
  return out;
}

std::vector<size_t> FleetSummary::with_errors() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < hosts.size(); ++i) {
    if (hosts[i].errors > 0) out.push_back(i);
  }
  return out;
}

std::vector<size_t> FleetSummary::differing_from_lock() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < hosts.size(); ++i) {
    if (!hosts[i].matches_lock) out.push_back(i);
  }
  return out;
}

int FleetSummary::exit_code() const {
  bool agree = groups.size() <= 1;
  return agree && problems.empty() && with_errors().empty() && differing_from_lock().empty() ? 0 : 1;
}

void FleetReducer::add(const std::string& file, ReportReading reading) {
  ++out_.reports;
  if (reading.problem != ReportProblem::kNone) {
    out_.problems.push_back(FleetProblem{reading.problem, {file}, {}, std::move(reading.detail)});
    return;
  }
  ReportSummary& s = reading.summary;
  if (host_of_.count(s.host)) {
    // The first report of a host counts; which one is right cannot be told from the files.
    repeats_[s.host].push_back(file);
    return;
  }
  auto [group, added] = group_of_.try_emplace(s.loads, out_.groups.size());
  if (added) out_.groups.push_back(FleetGroup{s.loads, describe_loads(s.loads), {}});
  host_of_.emplace(s.host, out_.hosts.size());
  out_.groups[group->second].hosts.push_back(out_.hosts.size());
  bool matches_lock = !out_.lock || out_.lock->matches(s.loads);
  out_.hosts.push_back(FleetHost{std::move(s.host), file, group->second, matches_lock, s.errors, s.warnings,
                                 s.infos, std::move(s.error_ids)});
}

void FleetReducer::add_problem(const std::string& file, ReportProblem kind, std::string detail) {
  ++out_.reports;
  out_.problems.push_back(FleetProblem{kind, {file}, {}, std::move(detail)});
}

FleetSummary FleetReducer::finish() && {
  FleetSummary& s = out_;
  for (auto& [host, files] : repeats_) {
    FleetProblem p{ReportProblem::kDuplicate, {s.hosts[host_of_.at(host)].file}, host, {}};
    p.files.insert(p.files.end(), files.begin(), files.end());
    p.detail = "host " + host + " has " + std::to_string(p.files.size()) +
               " reports; the first is counted: gather one report per host (srun --output=%N.json)";
    s.problems.push_back(std::move(p));
  }
  // Hosts by name, groups largest first: the same output whatever order the files came in.
  std::vector<size_t> by_name(s.hosts.size());
  std::iota(by_name.begin(), by_name.end(), 0);
  std::sort(by_name.begin(), by_name.end(), [&](size_t a, size_t b) { return s.hosts[a].host < s.hosts[b].host; });
  std::vector<size_t> group_order(s.groups.size());
  std::iota(group_order.begin(), group_order.end(), 0);
  std::sort(group_order.begin(), group_order.end(), [&](size_t a, size_t b) {
    const FleetGroup &x = s.groups[a], &y = s.groups[b];
    return x.hosts.size() != y.hosts.size() ? x.hosts.size() > y.hosts.size() : x.label < y.label;
  });
  std::vector<size_t> new_group(s.groups.size());
  for (size_t i = 0; i < group_order.size(); ++i) new_group[group_order[i]] = i;

  std::vector<FleetHost> hosts;
  hosts.reserve(s.hosts.size());
  std::vector<FleetGroup> groups;
  for (size_t g : group_order) groups.push_back(FleetGroup{std::move(s.groups[g].loads), std::move(s.groups[g].label), {}});
  for (size_t i : by_name) {
    FleetHost h = std::move(s.hosts[i]);
    h.group = new_group[h.group];
    groups[h.group].hosts.push_back(hosts.size());
    hosts.push_back(std::move(h));
  }
  s.hosts = std::move(hosts);
  s.groups = std::move(groups);
  s.majority_tied = s.groups.size() > 1 && s.groups[0].hosts.size() == s.groups[1].hosts.size();
  return std::move(s);
}

}  // namespace cudnnup
