// The result of `cudnnup verify`: an ordered list of stages, each passed, failed or skipped,
// with the evidence it saw and, when it failed, a finding that says what to do.
//
// The stages, in order (docs/commands/verify.md):
//   toolkit -> headers -> library -> versions -> driver -> handle ->
//   conv.<fwd|bwd-data|bwd-filter>.<fp32|fp16|bf16>.<nchw|nhwc> -> teardown
// A stage whose inputs failed is skipped with the reason; a failure never hides later stages
// that do not depend on it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/json_reader.h"
#include "base/model.h"
#include "shell/shell_env.h"  // Shell

namespace cudnnup {

enum class StageStatus { kPass, kFail, kSkipped };
const char* stage_status_name(StageStatus status);  // "pass", "fail", "skipped"

struct StageResult {
  std::string id;       // "library", "conv.fwd.fp16.nhwc", ...
  std::string title;    // "Library and sub-libraries load from the copy"
  StageStatus status = StageStatus::kSkipped;
  std::string summary;  // one line: what was seen
  std::vector<std::string> evidence;
  std::optional<Finding> finding;  // set when the stage failed, and for warnings on a pass
  bool no_gpu = false;  // failed because there is no NVIDIA driver/GPU (exit kExitNoGpu)
  double seconds = 0;
};

StageResult stage_pass(std::string id, std::string title, std::string summary);
StageResult stage_skip(std::string id, std::string title, std::string why);
StageResult stage_fail(std::string id, std::string title, std::string summary, Finding finding);

struct VerifyReport {
  std::string copy;     // what the user named
  std::string lib_dir;  // the directory the libraries were loaded from
  int gpu = 0;
  std::vector<StageResult> stages;
  double seconds = 0;

  const StageResult* find(const std::string& id) const;
  bool passed() const;  // no stage failed
};

// 0 when nothing failed; kExitNoGpu (3) when the only failures are "no driver/GPU"; else 1.
int verify_exit_code(const VerifyReport& report);

// A finding's fix goes out three ways: "fix" as lines for `shell`, "fix_commands" (the argument
// vectors of its command steps) and "fix_steps" (base/fix.h's data form, which the parent reads
// back from the child: the child does not know the user's shell).
nlohmann::json verify_finding_to_json(const Finding& finding, Shell shell = Shell::kBash);
Finding verify_finding_from_json(const JsonValue& j);
nlohmann::json stage_to_json(const StageResult& stage, Shell shell = Shell::kBash);
StageResult stage_from_json(const JsonValue& j);  // types checked: the child loaded a foreign library
nlohmann::json verify_report_to_json(const VerifyReport& report, Shell shell = Shell::kBash);

}  // namespace cudnnup
