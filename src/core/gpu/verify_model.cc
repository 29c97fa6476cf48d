#include "gpu/verify_model.h"

#include "shell/fix_render.h"

namespace cudnnup {

using nlohmann::json;

const char* stage_status_name(StageStatus status) {
  switch (status) {
    case StageStatus::kPass: return "pass";
    case StageStatus::kFail: return "fail";
    case StageStatus::kSkipped: return "skipped";
  }
  return "?";
}

StageResult stage_pass(std::string id, std::string title, std::string summary) {
  StageResult s;
  s.id = std::move(id);
  s.title = std::move(title);
  s.status = StageStatus::kPass;
  s.summary = std::move(summary);
  return s;
}

StageResult stage_skip(std::string id, std::string title, std::string why) {
  StageResult s;
  s.id = std::move(id);
  s.title = std::move(title);
  s.status = StageStatus::kSkipped;
  s.summary = std::move(why);
  return s;
}

StageResult stage_fail(std::string id, std::string title, std::string summary, Finding finding) {
  StageResult s;
  s.id = std::move(id);
  s.title = std::move(title);
  s.status = StageStatus::kFail;
  s.summary = std::move(summary);
  if (finding.subject.empty()) finding.subject = s.id;
  s.finding = std::move(finding);
  return s;
}

const StageResult* VerifyReport::find(const std::string& id) const {
  for (const auto& s : stages) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

bool VerifyReport::passed() const {
  for (const auto& s : stages) {
    if (s.status == StageStatus::kFail) return false;
  }
  return true;
}

int verify_exit_code(const VerifyReport& report) {
  bool no_gpu = false;
  for (const auto& s : report.stages) {
    if (s.status != StageStatus::kFail) continue;
    if (!s.no_gpu) return 1;  // kExitProblems
    no_gpu = true;
  }
  return no_gpu ? 3 : 0;  // kExitNoGpu : kExitOk
}

namespace {

Severity severity_from_name(const std::string& name) {
  if (name == "error") return Severity::kError;
  if (name == "warning") return Severity::kWarning;
  return Severity::kInfo;
}

}  // namespace

json verify_finding_to_json(const Finding& f, Shell shell) {
  json steps = json::array();
  for (const auto& s : f.fix) steps.push_back(fix_step_to_json(s));
  return json{{"id", f.id},         {"severity", severity_name(f.severity)},
              {"subject", f.subject}, {"title", f.title},
              {"detail", f.detail}, {"evidence", f.evidence},
              {"fix", render_fix(f.fix, shell)}, {"fix_commands", fix_commands(f.fix)},
              {"fix_steps", steps}};
}

Finding verify_finding_from_json(const JsonValue& j) {
  Finding f;
  f.id = j.string("id");
  f.severity = severity_from_name(j.string("severity", "info"));
  f.subject = j.string("subject");
  f.title = j.string("title");
  f.detail = j.string("detail");
  f.evidence = j.strings("evidence");
  for (const auto& s : j.array("fix_steps")) f.fix.push_back(fix_step_from_json(s));
  return f;
}

json stage_to_json(const StageResult& s, Shell shell) {
  json j{{"id", s.id},           {"title", s.title},       {"status", stage_status_name(s.status)},
         {"summary", s.summary}, {"evidence", s.evidence}, {"seconds", s.seconds}};
  if (s.no_gpu) j["no_gpu"] = true;
  j["finding"] = s.finding ? verify_finding_to_json(*s.finding, shell) : json(nullptr);
  return j;
}

StageResult stage_from_json(const JsonValue& j) {
  StageResult s;
  s.id = j.string("id");
  s.title = j.string("title");
  std::string status = j.string("status", "skipped");
  s.status = status == "pass" ? StageStatus::kPass : status == "fail" ? StageStatus::kFail : StageStatus::kSkipped;
  s.summary = j.string("summary");
  s.evidence = j.strings("evidence");
  s.seconds = j.number("seconds", 0.0);
  s.no_gpu = j.boolean("no_gpu", false);
  if (j.has("finding")) s.finding = verify_finding_from_json(j.object("finding"));
  return s;
}

json verify_report_to_json(const VerifyReport& r, Shell shell) {
  json stages = json::array();
  for (const auto& s : r.stages) stages.push_back(stage_to_json(s, shell));
  return json{{"schema", "cudnnup.verify/1"},
              {"copy", r.copy},
              {"lib_dir", r.lib_dir},
              {"gpu", r.gpu},
              {"passed", r.passed()},
              {"exit_code", verify_exit_code(r)},
              {"seconds", r.seconds},
              {"stages", stages}};
}

}  // namespace cudnnup
