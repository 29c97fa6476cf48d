#include "app/render/verify_render.h"

#include <cstdio>

#include "base/terminal_text.h"
#include "gpu/verify_model.h"
#include "shell/fix_render.h"

namespace cudnnup {

namespace {

std::string stage_mark(StageStatus status, bool color) {
  switch (status) {
    case StageStatus::kPass: return paint("PASS", "32", color);
    case StageStatus::kFail: return paint("FAIL", "31;1", color);
    case StageStatus::kSkipped: return paint("SKIP", "33", color);
  }
  return "?";
}

}  // namespace

std::string render_verify_text(const VerifyReport& r, bool color, bool quiet, Shell shell) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "cudnnup verify: %s (GPU %d)\n", r.lib_dir.c_str(), r.gpu);
  out += line;
  const StageResult* first_failure = nullptr;
  for (size_t i = 0; i < r.stages.size(); ++i) {
    const StageResult& s = r.stages[i];
    if (s.status == StageStatus::kFail && !first_failure) first_failure = &s;
    if (quiet && s.status != StageStatus::kFail) continue;
    // A run of stages skipped for the same reason prints as one line.
    size_t run = 1;
    while (s.status == StageStatus::kSkipped && i + run < r.stages.size() &&
           r.stages[i + run].status == StageStatus::kSkipped && r.stages[i + run].summary == s.summary) {
      ++run;
    }
    if (run >= 3) {
      std::snprintf(line, sizeof line, "  %s  %s ... %s (%zu stages)  %s\n", stage_mark(s.status, color).c_str(), s.id.c_str(),
                    r.stages[i + run - 1].id.c_str(), run, s.summary.c_str());
      out += line;
      i += run - 1;
      continue;
    }
    std::snprintf(line, sizeof line, "  %s  %-26s %s", stage_mark(s.status, color).c_str(), s.id.c_str(), s.summary.c_str());
    out += line;
    if (s.seconds >= 0.0005) {
      std::snprintf(line, sizeof line, "  (%.3f s)", s.seconds);
      out += line;
    }
    out += "\n";
    if (s.finding && (s.status == StageStatus::kFail || s.finding->severity != Severity::kInfo)) {
      const Finding& f = *s.finding;
      out += "        " + paint(std::string(severity_name(f.severity)) + ": " + f.title, "1", color) + "\n";
      if (!f.detail.empty()) out += "        " + f.detail + "\n";
      for (const auto& e : f.evidence) out += "          - " + e + "\n";
      for (const auto& fix : render_fix(f.fix, shell)) out += "        fix: " + fix + "\n";
    }
  }
  int code = verify_exit_code(r);
  if (code == 0) {
    std::snprintf(line, sizeof line, "Result: %s in %.2f s\n", paint("all stages passed", "32;1", color).c_str(), r.seconds);
  } else if (code == 3) {
    std::snprintf(line, sizeof line, "Result: %s (exit 3) in %.2f s\n",
                  paint("no NVIDIA driver/GPU", "33;1", color).c_str(), r.seconds);
  } else {
    std::snprintf(line, sizeof line, "Result: %s at stage %s (exit 1) in %.2f s\n", paint("FAILED", "31;1", color).c_str(),
                  first_failure ? first_failure->id.c_str() : "?", r.seconds);
  }
  out += line;
  return out;
}

}  // namespace cudnnup
