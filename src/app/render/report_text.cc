#include "app/render/report_text.h"

#include <algorithm>
#include <sstream>

#include "app/render/report_json.h"
#include "base/paths.h"
#include "base/strings.h"
#include "shell/fix_render.h"

namespace cudnnup {
namespace {

std::string mark(const Style& s, Severity worst, bool any) {
  if (!any) return s.ok();
  if (worst == Severity::kError) return s.bad();
  if (worst == Severity::kWarning) return s.warn();
  return s.info();
}


void print_findings(std::ostringstream& o, const Style& s, const std::vector<const Finding*>& list, Shell shell) {
  for (const Finding* f : list) {
    std::string m = f->severity == Severity::kError ? s.bad() : f->severity == Severity::kWarning ? s.warn() : s.info();
    o << "      " << m << " " << f->title << "\n";
    if (!f->detail.empty()) o << "        " << f->detail << "\n";
    for (const auto& e : f->evidence) o << "        " << s.dim(e) << "\n";
    for (const auto& fix : render_fix(f->fix, shell)) o << "        fix: " << fix << "\n";
  }
}

std::vector<const Finding*> findings_for(const Report& r, const std::string& subject) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings) {
    if (f.subject == subject) out.push_back(&f);
  }
  return out;
}

Severity worst_of(const std::vector<const Finding*>& list) {
  Severity w = Severity::kInfo;
  for (const Finding* f : list) {
    if (int(f->severity) > int(w)) w = f->severity;
  }
  return w;
}

bool has_problem(const std::vector<const Finding*>& list) {
  for (const Finding* f : list) {
    if (f->severity != Severity::kInfo) return true;
  }
  return false;
}

}  // namespace

std::string render_report_text(const Report& r, const Style& s, bool windows, bool quiet, const UserShell& shell) {
  std::ostringstream o;
  auto native = [&](const std::string& p) { return paths::to_native(p, windows); };
  o << s.bold("cudnnup doctor") << s.dim("  (" + r.os + ", rules " + r.rules_version + ")") << "\n\n";

  o << s.bold("Driver") << "\n";
  auto driver_findings = findings_for(r, "driver");
  if (r.driver.present) {
    o << "  " << mark(s, worst_of(driver_findings), has_problem(driver_findings)) << " NVIDIA driver "
      << (r.driver.version_text.empty() ? "(version unknown)" : r.driver.version_text);
    if (r.driver.cuda_version.known()) o << ", supports CUDA up to " << r.driver.cuda_version.str();
    o << s.dim("  [" + r.driver.source + "]") << "\n";
    for (const auto& g : r.driver.gpus) {
      o << "      GPU " << g.index << ": " << g.name << ", compute capability " << g.compute_capability.str() << ", "
        << (g.memory_bytes >> 20) << " MiB\n";
    }
  } else {
    o << "  " << s.warn() << " no NVIDIA driver\n";
  }
  print_findings(o, s, driver_findings, shell.shell);

  o << "\n" << s.bold("CUDA toolkits") << "\n";
  if (r.toolkits.empty()) o << "  " << s.info() << " none found\n";
  for (const auto& t : r.toolkits) {
    auto fs = findings_for(r, t.root);
    if (quiet && !has_problem(fs)) continue;
    o << "  " << mark(s, worst_of(fs), has_problem(fs)) << " CUDA " << (t.version.known() ? t.version.str() : "?") << "  "
      << native(t.root);
    if (!t.aliases.empty()) o << s.dim("  (also " + join(t.aliases, ", ") + ")");
    if (!t.nvcc.empty()) o << s.dim("  nvcc");
    o << "\n";
    print_findings(o, s, fs, shell.shell);
  }

  o << "\n" << s.bold("cuDNN copies") << "\n";
  std::vector<std::string> shown;
  for (const auto& c : r.copies) {
    auto fs = findings_for(r, c.lib_dir);
    bool already = std::find(shown.begin(), shown.end(), c.lib_dir) != shown.end();
    if (quiet && !has_problem(fs)) continue;
    Version v = c.library_version.known() ? c.library_version : c.header_version;
    o << "  " << mark(s, worst_of(fs), has_problem(fs)) << " cuDNN " << (v.known() ? v.str() : "?") << "  "
      << native(c.lib_dir) << s.dim("  [" + std::string(package_form_name(c.form)) +
                                    (c.cuda_major ? ", CUDA " + std::to_string(c.cuda_major) : "") +
                                    (c.package.empty() ? "" : ", " + c.package) + "]")
      << "\n";
    std::string header = c.header_version.known() ? c.header_version.str() : "none";
    std::string lib = c.library_version.known() ? c.library_version.str() + " (" + c.library_version_source + ")" : "unknown";
    o << "      header " << header << ", library " << lib;
    if (c.probe.version_number) o << s.dim(", cudnnGetVersion() = " + std::to_string(c.probe.version_number));
    // A reused answer says when its child ran (the probe cache; --fresh probes again).
    if (!c.probe.cached_from.empty()) o << s.dim(" (probed " + c.probe.cached_from + ", files unchanged since)");
    o << "\n";
    o << "      " << s.dim("found via " + join(c.found_via, ", ")) << "\n";
    if (!already) print_findings(o, s, fs, shell.shell);
    shown.push_back(c.lib_dir);
  }
  if (r.copies.empty()) o << "  " << s.bad() << " none found\n";
  auto general = findings_for(r, "cudnn");
  print_findings(o, s, general, shell.shell);

  // Findings about something without a line above (PATH, a framework's environment, an install's
  // folder, the DLL a process would load): listed here, so that the text leaves none out.
  std::vector<const Finding*> rest;
  for (const auto& f : r.findings) {
    bool placed = f.subject == "driver" || f.subject == "cudnn";
    for (const auto& t : r.toolkits) placed = placed || f.subject == t.root;
    for (const auto& c : r.copies) placed = placed || f.subject == c.lib_dir;
    if (!placed && !(quiet && f.severity == Severity::kInfo)) rest.push_back(&f);
  }
  if (!rest.empty()) {
    o << "\n" << s.bold("Other findings") << "\n";
    print_findings(o, s, rest, shell.shell);
  }

  if (!r.scan_issues.empty()) {
    o << "\n" << s.bold("Could not look in") << "\n";
    for (const auto& i : r.scan_issues) o << "  " << s.warn() << " " << native(i.path) << ": " << i.message << "\n";
  }
  FindingCounts n = count_findings(r.findings);
  o << "\n" << (n.errors ? s.bad() : n.warnings ? s.warn() : s.ok()) << " " << n.errors << " error"
    << (n.errors == 1 ? "" : "s") << ", " << n.warnings << " warning" << (n.warnings == 1 ? "" : "s") << "\n";
  bool any_fix = std::any_of(r.findings.begin(), r.findings.end(), [](const Finding& f) { return !f.fix.empty(); });
  if (any_fix) o << s.dim(describe_user_shell(shell)) << "\n";
  return o.str();
}

}  // namespace cudnnup
