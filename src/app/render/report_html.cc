#include "app/render/report_html.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "app/render/bench_render.h"
#include "app/render/html_page.h"
#include "base/json_reader.h"
#include "base/strings.h"

namespace cudnnup {
namespace {

using Values = std::vector<JsonValue>;

std::string code(const std::string& s) { return "<code>" + html_text(s) + "</code>"; }

HtmlMark severity_mark(const std::string& severity) {
  if (severity == "error") return HtmlMark::kError;
  if (severity == "warning") return HtmlMark::kWarning;
  return HtmlMark::kInfo;
}
const char* severity_class(const std::string& severity) {
  return severity == "error" ? "bad" : severity == "warning" ? "warn" : "info";
}
int severity_rank(const std::string& severity) { return severity == "error" ? 2 : severity == "warning" ? 1 : 0; }

// The checklist mark of a part of the machine: the worst finding about it, ok without one.
HtmlMark worst_mark(const Values& findings, const std::vector<std::string>& subjects) {
  int worst = -1;
  for (const auto& f : findings) {
    if (std::find(subjects.begin(), subjects.end(), f.string("subject")) == subjects.end()) continue;
    worst = std::max(worst, severity_rank(f.string("severity")));
  }
  return worst == 2 ? HtmlMark::kError : worst == 1 ? HtmlMark::kWarning : HtmlMark::kOk;
}

std::string list_items(const std::vector<std::string>& items, const char* cls = "") {
  if (items.empty()) return "";
  std::string out = std::string("<ul") + (*cls ? std::string(" class=\"") + cls + "\"" : "") + ">";
  for (const auto& i : items) out += "<li>" + html_text(i) + "</li>";
  return out + "</ul>\n";
}

// ---- the checklist: one line per layer of the machine, as the manual procedure goes ----


std::string driver_answer(const JsonValue& driver) {
  if (!driver.boolean("present", false)) return html_text(driver.string("problem", "no NVIDIA driver"));
  std::string out = "NVIDIA driver " + html_text(driver.string("version", "(version unknown)"));
  if (driver.has("cuda_version")) out += ", supports CUDA up to " + html_text(driver.string("cuda_version"));
  size_t gpus = driver.array("gpus").size();
  return out + ", " + std::to_string(gpus) + " GPU" + (gpus == 1 ? "" : "s");
}

std::string loads_answer(const JsonValue& which, HtmlMark* mark) {
  JsonValue res = which.object("resolution");
  JsonValue cudnn = which.object("cudnn");
  if (!res.boolean("found", false)) {
    *mark = HtmlMark::kError;
    return html_text(which.string("library")) + " does not load" +
           (res.has("error") ? ": " + html_text(res.string("error")) : std::string());
  }
  std::string out = html_text(which.string("library")) + " → " + code(res.string("canonical", res.string("path")));
  if (cudnn.has("version")) out += ", cuDNN " + html_text(cudnn.string("version"));
  out += " <span class=\"dim\">(" + html_text(res.string("rule")) + ")</span>";
  if (cudnn.boolean("mixed_copies", false) || cudnn.boolean("binding_mixed", false)) {
    *mark = HtmlMark::kError;
    out += ", <strong>mixes copies</strong>";
  } else if (cudnn.string("version_check") == "fails") {
    *mark = HtmlMark::kError;
    out += ", <strong>cuDNN's version check fails</strong>";
  }
  return out;
}

std::string checklist(const JsonValue& doc, const Values& findings, const JsonValue* verify, const JsonValue* bench) {
  std::string out = "<section id=\"checklist\"><h2>Checklist</h2><ul class=\"checklist\">\n";
  JsonValue driver = doc.object("driver");
  HtmlMark driver_mark = worst_mark(findings, {"driver"});
  if (!driver.boolean("present", false) && driver_mark == HtmlMark::kOk) driver_mark = HtmlMark::kWarning;
  out += html_check_line(driver_mark, "Driver", driver_answer(driver));

  Values toolkits = doc.array("toolkits");
  std::vector<std::string> roots, versions;
  for (const auto& t : toolkits) {
    roots.push_back(t.string("root"));
    versions.push_back("CUDA " + t.string("version", "?") + " in " + t.string("root"));
  }
  out += html_check_line(toolkits.empty() ? HtmlMark::kInfo : worst_mark(findings, roots), "CUDA toolkit",
                    toolkits.empty() ? "none found" : html_text(join(versions, "; ")));

  Values copies = doc.array("copies");
  std::vector<std::string> dirs;
  for (const auto& c : copies) dirs.push_back(c.string("lib_dir"));
  dirs.push_back("cudnn");
  out += html_check_line(copies.empty() ? HtmlMark::kError : worst_mark(findings, dirs), "cuDNN copies",
                    std::to_string(copies.size()) + " found");

  const char* loads_key = doc.has("windows_loads") ? "windows_loads" : "plain_program";
  Values loads = doc.array(loads_key);
  if (loads.empty()) out += html_check_line(HtmlMark::kError, "What loads", "nothing: no cuDNN copy was found");
  for (const auto& w : loads) {
    HtmlMark mark = HtmlMark::kOk;
    std::string answer = loads_answer(w, &mark);
    out += html_check_line(mark, "What a plain program loads", answer);
  }

  Values frameworks = doc.array("frameworks");
  std::vector<std::string> verdicts;
  HtmlMark fw_mark = frameworks.empty() ? HtmlMark::kNone : HtmlMark::kOk;
  for (const auto& f : frameworks) {
    verdicts.push_back(f.string("framework") + " " + f.string("version") + ": " + f.string("verdict"));
    if (f.has("passes") && !f.boolean("passes", true)) fw_mark = HtmlMark::kError;
  }
  out += html_check_line(fw_mark, "Frameworks",
                    frameworks.empty() ? "none found in " + std::to_string(doc.array("python_environments").size()) +
                                             " Python environments"
                                       : html_text(join(verdicts, "; ")));
  if (verify) {
    long long rc = verify->integer("exit_code", 1, 0, 255);
    out += html_check_line(rc == 0 ? HtmlMark::kOk : rc == 3 ? HtmlMark::kWarning : HtmlMark::kError, "Verify",
                      rc == 0   ? "every stage passed on " + code(verify->string("lib_dir"))
                      : rc == 3 ? "no GPU here: the stages before the driver passed"
                                : "a stage failed (below)");
  }
  if (bench) {
    size_t errors = 0;
    Values rows = bench->array("rows");
    for (const auto& r : rows) errors += r.has("error");
    out += html_check_line(errors ? HtmlMark::kError : HtmlMark::kOk, "Bench",
                      std::to_string(rows.size()) + " cases, " + std::to_string(errors) + " failed");
  }
  JsonValue summary = doc.object("summary");
  long long errors = summary.integer("errors", 0, 0, 1 << 30), warnings = summary.integer("warnings", 0, 0, 1 << 30);
  out += html_check_line(errors ? HtmlMark::kError : warnings ? HtmlMark::kWarning : HtmlMark::kOk, "Findings",
                    std::to_string(errors) + " errors, " + std::to_string(warnings) + " warnings (below)");
  return out + "</ul></section>\n";
}

// ---- the sections ----

std::string findings_section(Values findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const JsonValue& a, const JsonValue& b) {
    return severity_rank(a.string("severity")) > severity_rank(b.string("severity"));
  });
  std::string out = "<section id=\"findings\"><h2>Findings</h2>\n";
  if (findings.empty()) out += "<p>" + html_mark(HtmlMark::kOk) + "nothing to report</p>\n";
  for (const auto& f : findings) {
    std::string severity = f.string("severity");
    out += std::string("<div class=\"finding ") + severity_class(severity) + "\"><h3>" + html_mark(severity_mark(severity)) +
           html_text(f.string("title")) + " <span class=\"dim\">" + html_text(f.string("id")) + "</span></h3>\n";
    if (f.has("subject")) out += "<p class=\"dim\">about " + code(f.string("subject")) + "</p>\n";
    if (f.has("detail")) out += "<p>" + html_text(f.string("detail")) + "</p>\n";
    out += list_items(f.strings("evidence"), "dim");
    std::vector<std::string> fixes = f.strings("fix");
    if (!fixes.empty()) out += "<p>Fix:</p>";
    for (const auto& fix : fixes) out += "<pre>" + html_text(fix) + "</pre>\n";
    out += "</div>\n";
  }
  return out + "</section>\n";
}

std::string copies_section(const Values& copies) {
  std::string out = "<section id=\"copies\"><h2>cuDNN copies</h2>\n";
  if (copies.empty()) return out + "<p>" + html_mark(HtmlMark::kError) + "none found</p></section>\n";
  out += "<table><tr><th>cuDNN</th><th>where</th><th>form</th><th>CUDA</th><th>header / library</th><th>found via</th></tr>\n";
  for (const auto& c : copies) {
    long long cuda = c.integer("cuda_major", 0, 0, 1000);
    out += "<tr><td>" + html_text(c.string("version", "?")) + "</td><td>" + code(c.string("lib_dir")) +
           (c.has("package") ? "<br><span class=\"dim\">" + html_text(c.string("package")) + "</span>" : "") + "</td><td>" +
           html_text(c.string("form")) + "</td><td>" + (cuda ? std::to_string(cuda) : "?") + "</td><td>" +
           html_text(c.string("header_version", "none")) + " / " + html_text(c.string("library_version", "unknown")) +
           "<br><span class=\"dim\">" + html_text(c.string("library_version_source")) + "</span></td><td>" +
           html_text(join(c.strings("found_via"), ", ")) + "</td></tr>\n";
  }
  out += "</table>\n";
  for (const auto& c : copies) {
    out += "<details><summary>files of " + html_text(c.string("lib_dir")) + "</summary><table>"
           "<tr><th>file</th><th>component</th><th>size</th><th>problems</th></tr>";
    for (const auto& l : c.array("libraries")) {
      out += "<tr><td>" + code(l.string("path")) + "</td><td>" + html_text(l.string("component")) + "</td><td>" +
             std::to_string(l.unsigned_integer("size", 0)) + "</td><td>" + html_text(join(l.strings("problems"), "; ")) +
             "</td></tr>";
    }
    out += "</table></details>\n";
  }
  return out + "</section>\n";
}

std::string which_block(const JsonValue& w) {
  JsonValue res = w.object("resolution");
  std::string out = "<h3>" + html_text(w.string("target")) + "</h3>\n<p>" + html_text(w.string("how_requested")) + " " +
                    code(w.string("library")) + " → " +
                    (res.boolean("found", false) ? code(res.string("canonical", res.string("path")))
                                                 : "<strong>does not load</strong>") +
                    "</p>\n<p>Why: <strong>" + html_text(res.string("rule")) + "</strong> " + html_text(res.string("rule_detail")) +
                    "</p>\n";
  if (res.has("error")) out += "<p>" + html_text(res.string("error")) + "</p>\n";
  out += "<p class=\"dim\">" + html_text(w.string("loader")) + "</p>\n";
  Values candidates = res.array("candidates");
  if (!candidates.empty()) {
    out += "<table><tr><th>candidate</th><th>rule</th><th>from</th><th>outcome</th></tr>";
    for (const auto& c : candidates) {
      out += "<tr><td>" + code(c.string("path")) + "</td><td>" + html_text(c.string("rule")) + "</td><td>" +
             html_text(c.string("source")) + "</td><td>" + html_text(c.string("outcome")) + "</td></tr>";
    }
    out += "</table>\n";
  }
  JsonValue cudnn = w.object("cudnn");
  out += list_items(cudnn.strings("version_check_detail"));
  std::vector<std::string> files = w.strings("loaded_cudnn_files");
  if (!files.empty()) out += "<details><summary>" + std::to_string(files.size()) + " cuDNN files mapped</summary>" + list_items(files) + "</details>\n";
  out += list_items(w.strings("hazards"));
  out += list_items(res.strings("notes"), "dim");
  out += list_items(w.strings("notes"), "dim");
  out += list_items(w.strings("problems"));
  return out;
}

std::string loads_section(const JsonValue& doc) {
  std::string out = "<section id=\"loads\"><h2>What loads, and why</h2>\n";
  Values all = doc.array("plain_program");
  for (auto& w : doc.array("for_program")) all.push_back(w);
  for (auto& w : doc.array("windows_loads")) all.push_back(w);
  if (all.empty()) out += "<p>nothing: no cuDNN copy was found</p>\n";
  for (const auto& w : all) out += which_block(w);
  return out + "</section>\n";
}

std::string frameworks_section(const JsonValue& doc) {
  Values frameworks = doc.array("frameworks");
  std::string out = "<section id=\"frameworks\"><h2>Frameworks</h2>\n";
  if (frameworks.empty()) {
    return out + "<p>none found in " + std::to_string(doc.array("python_environments").size()) +
           " Python environments</p></section>\n";
  }
  out += "<table><tr><th>framework</th><th>environment</th><th>built for cuDNN</th><th>loads</th><th>verdict</th></tr>\n";
  for (const auto& f : frameworks) {
    JsonValue load = f.object("load").object("resolution");
    out += "<tr><td>" + html_text(f.string("framework") + " " + f.string("version") + " " + f.string("variant")) + "</td><td>" +
           code(f.string("env_prefix")) + "</td><td>" + html_text(f.string("built_cudnn", "?")) + "</td><td>" +
           code(load.string("canonical", load.string("path"))) + " " + html_text(f.string("loaded_cudnn")) + "</td><td>" +
           html_text(f.string("verdict")) + "</td></tr>\n";
  }
  return out + "</table></section>\n";
}

std::string verify_section(const JsonValue& verify) {
  std::string out = "<section id=\"verify\"><h2>Verify</h2>\n<p>" + code(verify.string("lib_dir")) + " " +
                    html_text(verify.string("chosen_because")) + "</p>\n";
  for (const auto& run : verify.array("runs")) {
    out += "<h3>GPU " + std::to_string(run.integer("gpu", 0, 0, 1 << 20)) + "</h3><table>"
           "<tr><th>stage</th><th>result</th><th>summary</th><th>seconds</th></tr>\n";
    for (const auto& s : run.array("stages")) {
      std::string status = s.string("status");
      HtmlMark mark = status == "pass" ? HtmlMark::kOk : status == "fail" ? HtmlMark::kError : HtmlMark::kNone;
      out += "<tr><td>" + html_text(s.string("title", s.string("id"))) + "</td><td>" + html_mark(mark) + html_text(status) +
             "</td><td>" + html_text(s.string("summary")) + list_items(s.strings("evidence"), "dim") + "</td><td>" +
             format_number("%.3f", s.number("seconds", 0.0)) + "</td></tr>\n";
    }
    out += "</table>\n";
  }
  return out + "</section>\n";
}

std::string bench_section(const JsonValue& bench) {
  std::vector<BenchPlotRow> plot;
  std::string table = "<table><tr><th>case</th><th>ms</th><th>TFLOP/s</th><th>peak</th><th>engine</th></tr>\n";
  for (const auto& r : bench.array("rows")) {
    BenchPlotRow p;
    p.label = r.string("shape") + " " + r.string("type") + " " + r.string("layout");
    p.tflops = r.number("tflops", 0.0);
    if (r.has("pytorch_tflops")) p.pytorch_tflops = r.number("pytorch_tflops", 0.0);
    p.peak_tflops = r.number("peak_tflops", 0.0);
    table += "<tr><td>" + html_text(p.label) + "</td><td>" +
             (r.has("error") ? html_text("error: " + r.string("error")) : format_number("%.4f", r.number("ms", 0.0))) + "</td><td>" +
             format_number("%.1f", p.tflops) + "</td><td>" + format_number("%.1f", p.peak_tflops) + "</td><td>" +
             std::to_string(r.integer("engine", -1, -1, 1 << 30)) + "</td></tr>\n";
    plot.push_back(std::move(p));
  }
  JsonValue peak = bench.object("peak");
  std::string title = "Forward convolution TFLOP/s: cuDNN " + bench.string("cudnn_version") + " on " +
                      bench.object("gpu").string("name");
  // render_bench_plot_svg escapes its own text (XML), so the strings go in raw.
  return "<section id=\"bench\"><h2>Bench</h2>\n" +
         render_bench_plot_svg(title, peak.string("source", "unknown for this GPU"), plot) + table +
         "</table></section>\n";
}

std::string environment_section(const JsonValue& doc) {
  std::string out = "<section id=\"looked\"><h2>Where cudnnup looked</h2>\n";
  out += "<details><summary>" + std::to_string(doc.array("searched_dirs").size()) + " library directories</summary>" +
         list_items(doc.strings("searched_dirs")) + "</details>\n";
  out += "<details><summary>" + std::to_string(doc.array("python_environments").size()) +
         " Python environments</summary>" + list_items(doc.strings("python_environments")) + "</details>\n";
  std::vector<std::string> issues;
  for (const auto& i : doc.array("scan_issues")) issues.push_back(i.string("path") + ": " + i.string("message"));
  if (!issues.empty()) out += "<h3>Could not look in</h3>" + list_items(issues);
  return out + "</section>\n";
}

// Parses one input, which must carry `schema`; a failure names its origin.
struct Parsed {
  std::unique_ptr<JsonReader> reader;
  JsonValue value;
};
Result<Parsed> parse(const HtmlSource& source, const std::string& schema) {
  auto reader = std::make_unique<JsonReader>(source.origin);
  JsonValue value = reader->parse_object(source.text);
  if (!reader->ok()) return reader->status().error();
  std::string got = value.string("schema");
  if (got != schema) {
    return make_error(ErrorCode::kUsage,
                      source.origin + " is not a " + schema + " document (its schema is '" + got + "')", source.origin);
  }
  return Parsed{std::move(reader), value};
}

}  // namespace

std::string json_document_schema(const std::string& text) {
  auto doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("schema") || !doc["schema"].is_string()) return "";
  return doc["schema"].get<std::string>();
}

Result<HtmlReport> render_doctor_html(const HtmlReportInputs& in) {
  auto doctor = parse(in.doctor, "cudnnup.doctor/1");
  if (!doctor) return doctor.error();
  std::optional<Parsed> verify, bench;
  if (in.verify) {
    auto v = parse(*in.verify, "cudnnup.verify/1");
    if (!v) return v.error();
    verify = std::move(*v);
  }
  if (in.bench) {
    auto b = parse(*in.bench, "cudnnup.bench/1");
    if (!b) return b.error();
    bench = std::move(*b);
  }
  const JsonValue& doc = doctor->value;
  std::string host = doc.string("host", "this machine");
  Values findings = doc.array("findings");
  std::string body = "<header><h1>cuDNN on " + html_text(host) + "</h1><p>cudnnup " + html_text(doc.string("cudnnup_version")) +
                     " doctor, " + html_text(doc.string("os")) + ", rules " + html_text(doc.string("rules_version")) +
                     (in.generated.empty() ? "" : ", " + html_text(in.generated)) + " · from " + html_text(in.doctor.origin) +
                     "</p></header>\n<main>\n";
  body += checklist(doc, findings, verify ? &verify->value : nullptr, bench ? &bench->value : nullptr);
  body += findings_section(findings);
  body += copies_section(doc.array("copies"));
  body += loads_section(doc);
  body += frameworks_section(doc);
  if (verify) body += verify_section(verify->value);
  if (bench) body += bench_section(bench->value);
  body += environment_section(doc);
  body += "</main>\n";
  // A field of the wrong type anywhere: refused, naming it, rather than a page that hides it.
  for (const JsonReader* r : {doctor->reader.get(), verify ? verify->reader.get() : nullptr,
                              bench ? bench->reader.get() : nullptr}) {
    if (r && !r->ok()) return r->status().error();
  }
  int exit_code = doc.object("summary").integer("errors", 0, 0, 1 << 30) > 0 ? 1 : 0;
  return HtmlReport{html_document("cuDNN on " + host + " (cudnnup doctor)", body), exit_code};
}

}  // namespace cudnnup
