// `cudnnup doctor`: everything relevant on this machine, what is wrong, and how to fix it.
#include <iostream>

#include "app/commands.h"
#include "app/doctor_runner.h"
#include "app/exit_codes.h"
#include "app/report_json.h"
#include "app/report_text.h"

namespace cudnnup {
namespace {

int run_doctor_command(AppContext& ctx) {
  auto report = collect_report(ctx);
  if (!report) return report_error(ctx, report.error());
  FindingCounts counts = count_findings(report->findings);
  int code = counts.errors > 0 ? kExitProblems : kExitOk;
  if (ctx.options.json) {
    std::cout << report_to_json(*report, code).dump(2) << std::endl;
  } else {
    std::cout << render_report_text(*report, Style{ctx.color}, ctx.env.windows(), ctx.options.quiet);
  }
  return code;
}

}  // namespace

void add_doctor_command(CLI::App& app, CommandAction& action) {
  auto* cmd = app.add_subcommand(
      "doctor",
      "Find the NVIDIA driver, every CUDA toolkit and every cuDNN copy, and say what is wrong and how to fix it");
  cmd->footer(
      "Looks in: CUDA_HOME/CUDA_PATH, nvcc on PATH, /usr/local/cuda*, LD_LIBRARY_PATH, the system library\n"
      "directories, Python venvs and conda envs (PATH, VIRTUAL_ENV, CONDA_PREFIX, ~/.conda/environments.txt),\n"
      "and cudnnup's store. Libraries are loaded only in a child process.\n\n"
      "Exit codes: 0 no errors (warnings allowed), 1 errors found, 2 usage or tool error.\n"
      "Examples:\n  cudnnup doctor\n  cudnnup doctor --json | jq '.findings[] | select(.severity==\"error\")'");
  cmd->callback([&action] { action = run_doctor_command; });
}

}  // namespace cudnnup
