#include "app/render/report_json.h"

#include "shell/fix_render.h"

namespace cudnnup {

using ordered_json = nlohmann::ordered_json;

namespace {
ordered_json version_or_null(const Version& v) { return v.known() ? ordered_json(v.str()) : ordered_json(nullptr); }
}  // namespace

FindingCounts count_findings(const std::vector<Finding>& findings) {
  FindingCounts c;
  for (const auto& f : findings) {
    if (f.severity == Severity::kError) ++c.errors;
    else if (f.severity == Severity::kWarning) ++c.warnings;
    else ++c.infos;
  }
  return c;
}

ordered_json finding_to_json(const Finding& f, Shell shell) {
  ordered_json steps = ordered_json::array();
  for (const auto& s : f.fix) steps.push_back(ordered_json(fix_step_to_json(s)));
  return {{"id", f.id},           {"severity", severity_name(f.severity)}, {"subject", f.subject},
          {"title", f.title},     {"detail", f.detail},                     {"evidence", f.evidence},
          {"fix", render_fix(f.fix, shell)}, {"fix_commands", fix_commands(f.fix)}, {"fix_steps", steps}};
}

ordered_json copy_to_json(const CudnnCopy& c) {
  ordered_json libs = ordered_json::array();
  for (const auto& l : c.libraries) {
    libs.push_back({{"component", l.component},
                    {"path", l.path},
                    {"real_path", l.real_path},
                    {"major", l.major},
                    {"version_from_name", version_or_null(l.version_from_name)},
                    {"soname", l.soname},
                    {"size", l.size},
                    {"is_link", l.is_link},
                    {"dangling", l.dangling},
                    {"problems", l.problems}});
  }
  ordered_json probe = nullptr;
  if (c.probe.attempted) {
    probe = {{"loaded", c.probe.loaded},
             {"failure", c.probe.failure},
             {"version", version_or_null(c.probe.version)},
             {"version_number", c.probe.version_number},
             {"cudart_version", version_or_null(c.probe.cudart_version)},
             {"max_device_version", c.probe.max_device_version},
             {"mapped_files", c.probe.mapped_files},
             {"isolated", c.probe.isolated},
             {"isolation_problem", c.probe.isolation_problem},
             {"cached_from", c.probe.cached_from.empty() ? ordered_json(nullptr) : ordered_json(c.probe.cached_from)}};
  }
  return {{"root", c.root},
          {"lib_dir", c.lib_dir},
          {"include_dir", c.include_dir},
          {"form", package_form_name(c.form)},
          {"package", c.package},
          {"found_via", c.found_via},
          {"version", version_or_null(c.library_version.known() ? c.library_version : c.header_version)},
          {"library_version", version_or_null(c.library_version)},
          {"library_version_source", c.library_version_source},
          {"header_version", version_or_null(c.header_version)},
          {"header_path", c.header_path},
          {"cuda_major", c.cuda_major == 0 ? ordered_json(nullptr) : ordered_json(c.cuda_major)},
          {"cuda_major_source", c.cuda_major_source},
          {"libraries", libs},
          {"probe", probe}};
}

ordered_json report_to_json(const Report& r, int exit_code, const std::string& host, Shell shell) {
  ordered_json gpus = ordered_json::array();
  for (const auto& g : r.driver.gpus) {
    gpus.push_back({{"index", g.index},
                    {"name", g.name},
                    {"compute_capability", version_or_null(g.compute_capability)},
                    {"memory_bytes", g.memory_bytes}});
  }
  ordered_json toolkits = ordered_json::array();
  for (const auto& t : r.toolkits) {
    toolkits.push_back({{"root", t.root},
                        {"aliases", t.aliases},
                        {"version", version_or_null(t.version)},
                        {"version_source", t.version_source},
                        {"nvcc", t.nvcc},
                        {"found_via", t.found_via}});
  }
  ordered_json copies = ordered_json::array();
  for (const auto& c : r.copies) copies.push_back(copy_to_json(c));
  ordered_json findings = ordered_json::array();
  for (const auto& f : r.findings) findings.push_back(finding_to_json(f, shell));
  ordered_json issues = ordered_json::array();
  for (const auto& i : r.scan_issues) issues.push_back({{"path", i.path}, {"message", i.message}});
  FindingCounts counts = count_findings(r.findings);
  return {{"schema", "cudnnup.doctor/1"},
          {"cudnnup_version", CUDNNUP_VERSION},
          {"os", r.os},
          {"host", host},
          {"rules_version", r.rules_version},
          {"driver",
           {{"present", r.driver.present},
            {"version", r.driver.version_text.empty() ? ordered_json(nullptr) : ordered_json(r.driver.version_text)},
            {"cuda_version", version_or_null(r.driver.cuda_version)},
            {"source", r.driver.source},
            {"libcuda_path", r.driver.libcuda_path},
            {"nvml_path", r.driver.nvml_path},
            {"problem", r.driver.problem},
            {"gpus", gpus}}},
          {"toolkits", toolkits},
          {"copies", copies},
          {"findings", findings},
          {"fix_shell", shell_name(shell)},
          {"summary", {{"errors", counts.errors}, {"warnings", counts.warnings}, {"infos", counts.infos},
                       {"exit_code", exit_code}}},
          {"searched_dirs", r.searched_dirs},
          {"scan_issues", issues}};
}

}  // namespace cudnnup
