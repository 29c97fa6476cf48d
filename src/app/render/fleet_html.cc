#include "app/render/fleet_html.h"

#include <algorithm>

#include "app/render/html_page.h"
#include "base/strings.h"

namespace cudnnup {
namespace {

// A page stays readable (and a few MB at most) with 10,000 hosts: each list shows this many
// names, then how many more; `fleet --json` has them all.
constexpr size_t kHostsListed = 200;
// The bar chart shows the largest groups; the rest are one bar.
constexpr size_t kBarsShown = 12;



std::string more_line(size_t total, size_t shown) {
  if (total <= shown) return "";
  return "<p class=\"dim\">and " + std::to_string(total - shown) + " more (<code>cudnnup fleet --json</code> lists all)</p>\n";
}

std::string host_names(const FleetSummary& f, const std::vector<size_t>& hosts) {
  std::string out;
  for (size_t i = 0; i < hosts.size() && i < kHostsListed; ++i) out += (i ? ", " : "") + html_text(f.hosts[hosts[i]].host);
  if (hosts.size() > kHostsListed) out += " <span class=\"dim\">and " + std::to_string(hosts.size() - kHostsListed) + " more</span>";
  return out;
}

std::string lock_name(const FleetLockTarget& lock) {
  return html_text(lock.file) + " (cuDNN " + html_text(lock.cudnn_version) + " for CUDA " + std::to_string(lock.cuda_major) + ")";
}

std::string fleet_checklist(const FleetSummary& f) {
  std::string out = "<section id=\"checklist\"><h2>Checklist</h2><ul class=\"checklist\">\n";
  size_t differing = f.differing().size(), errors = f.with_errors().size();
  std::string loads = f.groups.empty()          ? "no host was counted"
                      : f.groups.size() == 1    ? "every host loads " + html_text(f.groups[0].label)
                      : f.majority_tied         ? "no majority: the largest groups are as large"
                                                : plural(differing, "host") + " differ from the majority, " +
                                                      html_text(f.groups[0].label);
  out += html_check_line(f.groups.size() == 1 ? HtmlMark::kOk : f.groups.empty() ? HtmlMark::kError : HtmlMark::kWarning,
                    "What a plain program loads", loads);
  if (f.lock) {
    size_t off = f.differing_from_lock().size();
    out += html_check_line(off ? HtmlMark::kError : HtmlMark::kOk, "The lock",
                      off ? plural(off, "host") + (off == 1 ? " loads" : " load") + " something other than what " +
                                lock_name(*f.lock) + " names"
                          : "every host loads what " + lock_name(*f.lock) + " names");
  }
  out += html_check_line(errors ? HtmlMark::kError : HtmlMark::kOk, "Errors",
                    errors ? plural(errors, "host") + " with error-level findings" : "no host has error-level findings");
  out += html_check_line(f.problems.empty() ? HtmlMark::kOk : HtmlMark::kError, "Reports",
                    std::to_string(f.reports) + " read, " + std::to_string(f.hosts.size()) + " counted" +
                        (f.problems.empty() ? "" : ", " + std::to_string(f.problems.size()) + " not counted (below)"));
  return out + "</ul></section>\n";
}

// One horizontal bar per group, as wide as its share of the hosts.
std::string groups_svg(const FleetSummary& f) {
  if (f.groups.empty()) return "";
  // One bar per group; past kBarsShown, the rest share the last bar (unless that is one group).
  size_t bars = f.groups.size() <= kBarsShown + 1 ? f.groups.size() : kBarsShown;
  size_t rest = 0;
  for (size_t g = bars; g < f.groups.size(); ++g) rest += f.groups[g].hosts.size();
  size_t rows = bars + (rest ? 1 : 0);
  const int row = 26, label_w = 430, bar_w = 380, width = label_w + bar_w + 70;
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"" + std::to_string(width) +
                    "\" height=\"" + std::to_string(rows * row + 8) + "\" viewBox=\"0 0 " + std::to_string(width) + " " +
                    std::to_string(rows * row + 8) + "\"><title>Hosts per group</title>\n";
  size_t total = f.hosts.size();
  auto bar = [&](size_t i, const std::string& label, size_t n, const char* color) {
    int y = int(i) * row + 4;
    int w = total ? std::max(2, int(double(n) / double(total) * bar_w)) : 0;
    out += "<text x=\"0\" y=\"" + std::to_string(y + 17) + "\" font-size=\"13\" font-family=\"sans-serif\">" +
           html_text(label.size() > 60 ? label.substr(0, 57) + "..." : label) + "</text>";
    out += "<rect x=\"" + std::to_string(label_w) + "\" y=\"" + std::to_string(y + 3) + "\" width=\"" + std::to_string(w) +
           "\" height=\"18\" fill=\"" + color + "\"/>";
    out += "<text x=\"" + std::to_string(label_w + w + 6) + "\" y=\"" + std::to_string(y + 17) +
           "\" font-size=\"13\" font-family=\"sans-serif\">" + std::to_string(n) + "</text>\n";
  };
  for (size_t g = 0; g < bars; ++g) {
    bar(g, f.groups[g].label, f.groups[g].hosts.size(), g == 0 && f.has_majority() ? "#2e7d32" : "#b26a00");
  }
  if (rest) bar(bars, std::to_string(f.groups.size() - bars) + " more groups", rest, "#8c959f");
  return out + "</svg>\n";
}

std::string groups_section(const FleetSummary& f) {
  std::string out = "<section id=\"groups\"><h2>What a plain program loads</h2>\n" + groups_svg(f);
  out += "<table><tr><th>loads</th><th class=\"n\">hosts</th><th>which</th></tr>\n";
  for (size_t g = 0; g < f.groups.size(); ++g) {
    const FleetGroup& group = f.groups[g];
    out += "<tr><td>" + html_text(group.label) + (g == 0 && f.has_majority() ? " <span class=\"dim\">(the majority)</span>" : "") +
           "</td><td class=\"n\">" + std::to_string(group.hosts.size()) + "</td><td>" + host_names(f, group.hosts) + "</td></tr>\n";
  }
  return out + "</table></section>\n";
}

std::string host_rows(const FleetSummary& f, const std::vector<size_t>& hosts) {
  std::string out = "<table><tr><th>host</th><th>loads</th><th>report</th></tr>\n";
  for (size_t i = 0; i < hosts.size() && i < kHostsListed; ++i) {
    const FleetHost& h = f.hosts[hosts[i]];
    out += "<tr><td>" + html_text(h.host) + "</td><td>" + html_text(f.groups[h.group].label) + "</td><td><code>" + html_text(h.file) +
           "</code></td></tr>\n";
  }
  return out + "</table>\n" + more_line(hosts.size(), kHostsListed);
}

std::string differing_section(const FleetSummary& f) {
  std::string out;
  auto differing = f.differing();
  if (!differing.empty()) {
    out += "<section id=\"differing\"><h2>Differ from the majority: " + plural(differing.size(), "host") + "</h2>\n" +
           host_rows(f, differing) + "</section>\n";
  }
  auto off_lock = f.differing_from_lock();
  if (f.lock && !off_lock.empty()) {
    out += "<section id=\"lock\"><h2>Differ from the lock: " + plural(off_lock.size(), "host") + "</h2>\n<p>" +
           lock_name(*f.lock) + "; on a host, <code>cudnnup check</code> says which file or version differs.</p>\n" +
           host_rows(f, off_lock) + "</section>\n";
  }
  return out;
}

std::string errors_section(const FleetSummary& f) {
  auto errors = f.with_errors();
  if (errors.empty()) return "";
  std::string out = "<section id=\"errors\"><h2>Hosts with errors: " + std::to_string(errors.size()) + "</h2>\n"
                    "<table><tr><th>host</th><th class=\"n\">errors</th><th class=\"n\">warnings</th><th>findings</th><th>report</th></tr>\n";
  for (size_t i = 0; i < errors.size() && i < kHostsListed; ++i) {
    const FleetHost& h = f.hosts[errors[i]];
    out += "<tr><td>" + html_text(h.host) + "</td><td>" + std::to_string(h.errors) + "</td><td>" + std::to_string(h.warnings) +
           "</td><td>" + html_text(join(h.error_ids, ", ")) + "</td><td><code>" + html_text(h.file) + "</code></td></tr>\n";
  }
  return out + "</table>\n" + more_line(errors.size(), kHostsListed) +
         "<p class=\"dim\">On a host, <code>cudnnup doctor</code> explains each finding and its fix.</p></section>\n";
}

std::string problems_section(const FleetSummary& f) {
  if (f.problems.empty()) return "";
  std::string out = "<section id=\"problems\"><h2>Reports not counted: " + std::to_string(f.problems.size()) + "</h2>\n"
                    "<table><tr><th>report</th><th>why</th><th>what to do</th></tr>\n";
  for (size_t i = 0; i < f.problems.size() && i < kHostsListed; ++i) {
    const FleetProblem& p = f.problems[i];
    out += "<tr><td><code>" + html_text(join(p.files, ", ")) + "</code></td><td>" + html_text(report_problem_name(p.kind)) +
           "</td><td>" + html_text(p.detail) + "</td></tr>\n";
  }
  return out + "</table>\n" + more_line(f.problems.size(), kHostsListed) + "</section>\n";
}

}  // namespace

std::string render_fleet_html(const FleetSummary& f, const std::string& generated) {
  std::string body = "<header><h1>cuDNN on " + plural(f.hosts.size(), "host") + "</h1><p>cudnnup fleet: " +
                     plural(f.reports, "report") + ", " + plural(f.groups.size(), "group") +
                     (generated.empty() ? "" : ", " + html_text(generated)) + "</p></header>\n<main>\n";
  body += fleet_checklist(f) + groups_section(f) + differing_section(f) + errors_section(f) + problems_section(f);
  body += "</main>\n";
  return html_document("cuDNN on " + plural(f.hosts.size(), "host") + " (cudnnup fleet)", body);
}

}  // namespace cudnnup
