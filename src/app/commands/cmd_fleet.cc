// `cudnnup fleet REPORT.json... | DIR`: many hosts' `cudnnup --json doctor` reports, gathered by
// whatever the site runs (srun, ansible, a DaemonSet), reduced to a drift summary. Each file is
// read, reduced to its host's small record and dropped before the next (core/fleet/), so memory
// stays flat however many hosts there are. The reports are only data: nothing in them is opened.
#include <algorithm>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"
#include "app/cli/output_format.h"
#include "app/cli/whole_output.h"
#include "app/render/fleet_html.h"
#include "app/render/fleet_render.h"
#include "base/json_text.h"
#include "base/paths.h"
#include "fleet/fleet_summary.h"
#include "install/cudnn_lock.h"

namespace cudnnup {
namespace {

// The report files an argument names: itself, or a directory's *.json files (not its
// subdirectories), by name so the output does not depend on the directory's order.
Result<std::vector<std::string>> report_files(const AppContext& ctx, const std::string& arg) {
  auto info = ctx.fs->stat(arg);
  if (!info) {
    return make_error(ErrorCode::kUsage, arg + ": no such report file or directory (give doctor JSON files or a directory of them)", arg);
  }
  if (info->type != FileType::kDirectory) return std::vector<std::string>{arg};
  auto entries = ctx.fs->list_dir(arg);
  if (!entries) return entries.error();
  std::vector<std::string> files;
  for (const DirEntry& e : *entries) {
    if (e.type == FileType::kDirectory || !e.name.ends_with(".json")) continue;
    files.push_back(paths::join(arg, e.name));
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    return make_error(ErrorCode::kUsage, arg + " holds no *.json report (save each host's `cudnnup --json doctor` there)", arg);
  }
  return files;
}

// One file into the reducer; a file that cannot be read is listed, not fatal.
void add_report(const AppContext& ctx, const std::string& file, FleetReducer& fleet) {
  auto info = ctx.fs->stat(file);
  if (info && info->type == FileType::kRegular && info->size > kMaxReportBytes) {
    fleet.add_problem(file, ReportProblem::kTooLarge,
                      "larger than the " + std::to_string(kMaxReportBytes >> 20) + " MiB a doctor report may be: not read");
    return;
  }
  auto contents = ctx.fs->read_regular(file, kMaxReportBytes, /*follow_link=*/true);
  if (!contents) {
    fleet.add_problem(file, ReportProblem::kUnreadable, contents.error().message);
    return;
  }
  fleet.add(file, read_doctor_report(contents->bytes));
}

struct FleetOptions {
  std::vector<std::string> reports;
  std::string lock;  // --lock FILE
};

// --lock FILE: what the hosts are compared with, read as the untrusted file it is (cudnn_lock.h).
Result<FleetReducer> make_reducer(const AppContext& ctx, const FleetOptions& opt) {
  if (opt.lock.empty()) return FleetReducer{};
  auto lock = read_lock_file(*ctx.fs, opt.lock);
  if (!lock) return make_error(ErrorCode::kUsage, "--lock " + lock.error().message, opt.lock);
  // A report says what a plain program loads; a pip wheel is what frameworks load, which only
  // `cudnnup check` on the host sees.
  if (lock->form == kLockFormPip) {
    return make_error(ErrorCode::kUsage, "--lock " + opt.lock + " names a pip wheel, which frameworks load and a plain program "
                                             "does not: a doctor report cannot show it; run `cudnnup check` on each host "
                                             "(srun, ansible) instead", opt.lock);
  }
  return FleetReducer{FleetLockTarget{opt.lock, lock->cudnn_version, lock->cuda_major}};
}

int run_fleet(AppContext& ctx, const FleetOptions& opt) {
  std::vector<std::vector<std::string>> inputs;
  for (const auto& arg : opt.reports) {  // every argument checked before any report is read
    auto files = report_files(ctx, arg);
    if (!files) return report_error(ctx, files.error());
    inputs.push_back(std::move(*files));
  }
  auto made = make_reducer(ctx, opt);
  if (!made) return report_error(ctx, made.error());
  FleetReducer& reducer = *made;
  for (const auto& files : inputs) {
    for (const auto& file : files) add_report(ctx, file, reducer);
  }
  FleetSummary fleet = std::move(reducer).finish();
  if (ctx.options.format == OutputFormat::kHtml) {
    return print_whole_output(ctx, render_fleet_html(fleet, utc_now_text()), fleet.exit_code());
  }
  if (ctx.options.json) {
    std::cout << dump_json(fleet_to_json(fleet), 2) << std::endl;
  } else {
    std::cout << fleet_to_text(fleet, Style{ctx.color}, ctx.options.quiet);
  }
  return fleet.exit_code();
}

}  // namespace

void add_fleet_command(CLI::App& app, CommandAction& action) {
  auto* cmd = app.add_subcommand("fleet", "Compare many hosts' doctor reports: who loads which cuDNN, who differs, who has errors");
  auto opt = std::make_shared<FleetOptions>();
  cmd->add_option("reports", opt->reports, "Doctor JSON files (`cudnnup --json doctor` of each host), or directories of *.json")
      ->type_name("REPORT.json|DIR")
      ->required();
  cmd->add_option("--lock", opt->lock, "Also list the hosts that do not load the cuDNN this cudnn.lock names (version, CUDA major)")
      ->type_name("FILE");
  offer_formats("fleet", {OutputFormat::kText, OutputFormat::kJson, OutputFormat::kHtml});
  cmd->footer(
      "Gather one file per host with what the site already runs, e.g.\n"
      "  srun -N400 --output=%N.json cudnnup --json doctor     (one file per node: outputs do not interleave)\n"
      "  ansible all -m command -a 'cudnnup --json doctor'    (save each host's stdout as HOST.json)\n"
      "Hosts are grouped by what a plain program loads there (version, CUDA major, form), from each\n"
      "report's own fields; the host name is the report's \"host\". Malformed, truncated, duplicate and\n"
      "older-schema reports are listed, never counted. A report may be at most 16 MiB.\n"
      "--lock cudnn.lock (`cudnnup lock`) also lists the hosts whose plain program loads another cuDNN\n"
      "version or CUDA major than the lock names; `cudnnup check` on such a host names the file.\n"
      "--format html writes one self-contained page to share (no script, nothing fetched).\n\n"
      "Exit codes: 0 every report counted, every host loads the same (and what --lock names) and none\n"
      "has errors; 1 hosts differ, have errors, or a report was not counted; 2 usage (a path that is\n"
      "not there, a directory without *.json, a lock that cannot be read or is not one).\n"
      "Examples:\n  cudnnup fleet reports/\n  cudnnup fleet --json node*.json | jq '.differing_hosts'\n"
      "  cudnnup fleet --lock cudnn.lock --format html reports/ > fleet.html");
  cmd->callback([&action, opt] { action = [opt](AppContext& ctx) { return run_fleet(ctx, *opt); }; });
}

}  // namespace cudnnup
