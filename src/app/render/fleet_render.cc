#include "app/render/fleet_render.h"

#include <sstream>

#include "app/render/json_document.h"
#include "base/strings.h"

namespace cudnnup {

using ordered_json = nlohmann::ordered_json;

namespace {

// Text lists this many host names per line before "and N more" (--json lists them all).
constexpr size_t kHostsShown = 20;

ordered_json loads_json(const std::vector<FleetLoadedCopy>& loads) {
  ordered_json out = ordered_json::array();
  for (const FleetLoadedCopy& l : loads) {
    out.push_back({{"version", l.version.empty() ? ordered_json(nullptr) : ordered_json(l.version)},
                   {"cuda_major", l.cuda_major > 0 ? ordered_json(l.cuda_major) : ordered_json(nullptr)},
                   {"form", package_form_name(l.form)}});
  }
  return out;
}

std::string host_list(const FleetSummary& f, const std::vector<size_t>& hosts) {
  std::string out;
  for (size_t i = 0; i < hosts.size() && i < kHostsShown; ++i) out += (i ? ", " : "") + f.hosts[hosts[i]].host;
  if (hosts.size() > kHostsShown) out += " and " + std::to_string(hosts.size() - kHostsShown) + " more (--json lists all)";
  return out;
}

std::string counts_text(int errors, int warnings) {
  return plural(size_t(errors), "error") + (warnings > 0 ? ", " + plural(size_t(warnings), "warning") : "");
}

void groups_text(std::ostringstream& out, const FleetSummary& f, const Style& st) {
  out << st.bold("What a plain program loads") << "\n";
  if (f.groups.empty()) out << "  no host was counted\n";
  for (size_t g = 0; g < f.groups.size(); ++g) {
    const FleetGroup& group = f.groups[g];
    out << "  " << plural(group.hosts.size(), "host") << ": " << group.label;
    if (g == 0 && f.has_majority() && f.groups.size() > 1) out << "  " << st.dim("(the majority)");
    if (g == 0 && f.groups.size() == 1) out << "  " << st.ok() << " every host";
    out << "\n";
    if (g > 0 || f.majority_tied) out << "    " << host_list(f, group.hosts) << "\n";
  }
  if (f.majority_tied) out << "  " << st.warn() << " no majority: the largest groups are as large\n";
}

void problems_text(std::ostringstream& out, const FleetSummary& f, const Style& st) {
  out << "\n" << st.bold("Reports not counted") << ": " << f.problems.size() << "\n";
  for (const FleetProblem& p : f.problems) {
    std::string files;
    for (size_t i = 0; i < p.files.size(); ++i) files += (i ? ", " : "") + p.files[i];
    out << "  " << st.bad() << " " << files << ": " << report_problem_name(p.kind) << ": " << p.detail << "\n";
  }
}

void lock_text(std::ostringstream& out, const FleetSummary& f, const Style& st, bool quiet) {
  auto off = f.differing_from_lock();
  std::string lock = f.lock->file + " (cuDNN " + f.lock->cudnn_version + " for CUDA " + std::to_string(f.lock->cuda_major) + ")";
  if (off.empty()) {
    if (!quiet) out << "\n" << st.ok() << " every host loads what " << lock << " names\n";
    return;
  }
  out << "\n" << st.bold("Differ from the lock") << " " << lock << ": " << plural(off.size(), "host") << "\n";
  for (size_t h : off) {
    out << "  " << st.bad() << " " << f.hosts[h].host << ": " << f.groups[f.hosts[h].group].label << "  "
        << st.dim("[" + f.hosts[h].file + "]") << "\n";
  }
  out << "  " << st.dim("on a host, `cudnnup check` names the file or version that differs") << "\n";
}

}  // namespace

ordered_json fleet_to_json(const FleetSummary& f) {
  ordered_json groups = ordered_json::array();
  for (size_t g = 0; g < f.groups.size(); ++g) {
    ordered_json hosts = ordered_json::array();
    for (size_t h : f.groups[g].hosts) hosts.push_back(f.hosts[h].host);
    groups.push_back({{"label", f.groups[g].label}, {"loads", loads_json(f.groups[g].loads)},
                      {"majority", g == 0 && f.has_majority()}, {"hosts", hosts}});
  }
  ordered_json differing = ordered_json::array();
  for (size_t h : f.differing()) {
    differing.push_back({{"host", f.hosts[h].host}, {"file", f.hosts[h].file}, {"loads", f.groups[f.hosts[h].group].label}});
  }
  ordered_json errors = ordered_json::array();
  for (size_t i : f.with_errors()) {
    const FleetHost& h = f.hosts[i];
    errors.push_back({{"host", h.host}, {"file", h.file}, {"errors", h.errors}, {"warnings", h.warnings},
                      {"infos", h.infos}, {"error_ids", h.error_ids}});
  }
  ordered_json lock = nullptr;
  if (f.lock) {
    ordered_json off = ordered_json::array();
    for (size_t h : f.differing_from_lock()) {
      off.push_back({{"host", f.hosts[h].host}, {"file", f.hosts[h].file}, {"loads", f.groups[f.hosts[h].group].label}});
    }
    lock = {{"file", f.lock->file}, {"cudnn_version", f.lock->cudnn_version}, {"cuda_major", f.lock->cuda_major},
            {"differing_hosts", off}};
  }
  ordered_json problems = ordered_json::array();
  for (const FleetProblem& p : f.problems) {
    problems.push_back({{"kind", report_problem_name(p.kind)}, {"files", p.files},
                        {"host", p.host.empty() ? ordered_json(nullptr) : ordered_json(p.host)}, {"message", p.detail}});
  }
  return json_document("cudnnup.fleet/1", {},
                       {{"groups", groups},
                        {"majority", f.has_majority() ? ordered_json(f.groups[0].label) : ordered_json(nullptr)},
                        {"majority_tied", f.majority_tied},
                        {"differing_hosts", differing},
                        {"hosts_with_errors", errors},
                        {"lock", lock},
                        {"problems", problems},
                        {"summary", {{"reports", f.reports}, {"hosts", f.hosts.size()}, {"groups", f.groups.size()},
                                     {"differing", differing.size()},
                                     {"differing_from_lock", f.differing_from_lock().size()},
                                     {"with_errors", errors.size()},
                                     {"not_counted", f.problems.size()}, {"exit_code", f.exit_code()}}}});
}

std::string fleet_to_text(const FleetSummary& f, const Style& st, bool quiet) {
  std::ostringstream out;
  auto differing = f.differing();
  auto errors = f.with_errors();
  if (!quiet) {
    out << "Fleet: " << plural(f.reports, "report") << ", " << plural(f.hosts.size(), "host") << " counted, "
        << plural(f.groups.size(), "group") << "\n\n";
    groups_text(out, f, st);
  }
  if (!differing.empty()) {
    out << "\n" << st.bold("Differ from the majority") << ": " << plural(differing.size(), "host") << "\n";
    for (size_t h : differing) {
      out << "  " << st.warn() << " " << f.hosts[h].host << ": " << f.groups[f.hosts[h].group].label << "  "
          << st.dim("[" + f.hosts[h].file + "]") << "\n";
    }
  }
  if (f.lock) lock_text(out, f, st, quiet);
  if (!errors.empty() || !quiet) out << "\n" << st.bold("Hosts with errors") << ": " << errors.size() << "\n";
  for (size_t i : errors) {
    const FleetHost& h = f.hosts[i];
    std::string ids;
    for (const auto& id : h.error_ids) ids += (ids.empty() ? "" : ", ") + id;
    out << "  " << st.bad() << " " << h.host << ": " << counts_text(h.errors, h.warnings);
    if (!ids.empty()) out << " (" << ids << ")";
    out << "  " << st.dim("[" + h.file + "]") << "\n";
  }
  if (!f.problems.empty()) problems_text(out, f, st);
  if (!quiet && f.exit_code() == 0) out << "\n" << st.ok() << " every report counted, every host loads the same, no errors\n";
  return out.str();
}

}  // namespace cudnnup
