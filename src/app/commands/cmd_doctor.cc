// `cudnnup doctor`: everything relevant on this machine, what is wrong, and how to fix it.
#include <algorithm>
#include <chrono>
#include <iostream>

#include "app/cli/usage_errors.h"
#include "app/cli/commands.h"
#include "app/commands/doctor_runner.h"
#include "app/cli/exit_codes.h"
#include "app/cli/whole_output.h"
#include "app/commands/bench_run.h"
#include "app/commands/verify_run.h"
#include "app/render/report_html.h"
#include "app/render/report_json.h"
#include "app/render/report_nfd.h"
#include "app/render/report_prometheus.h"
#include "app/render/report_text.h"
#include "app/child/framework_probe.h"
#include "app/render/which_render.h"
#include "base/paths.h"
#include "loader/frameworks.h"
#include "facts/finding_ids.h"
#include "base/json_text.h"
#include "platform/system.h"

namespace cudnnup {
namespace {

struct DoctorOptions {
  bool probe_frameworks = false;
  int probe_timeout_s = 120;
  bool deep = false;
  bool fresh = false;      // --fresh: no answer from the probe cache
  std::string for_target;  // --for PATH|FRAMEWORK
  // --format html only:
  std::vector<std::string> from;  // saved doctor/verify/bench JSON to show
  bool with_verify = false;
  bool with_bench = false;
};

// Saved reports are at most this large (a doctor report of a busy machine is ~100 KiB).
constexpr uint64_t kMaxSavedReportBytes = 16 << 20;

// --for: a framework name as given, else the path made absolute; a path that is not there is a
// usage error (exit 2) rather than a silent empty answer.
Result<std::string> resolve_for_target(const AppContext& ctx, const std::string& target) {
  if (target.empty()) return target;
  const auto& known = known_frameworks();
  if (std::find(known.begin(), known.end(), target) != known.end() && !ctx.fs->exists(target)) return target;
  std::string path = paths::is_absolute(target) ? target : paths::join(ctx.env.cwd, target);
  if (!ctx.fs->is_file(path)) {
    return make_error(ErrorCode::kUsage,
                      "--for " + target + ": no such program or shared object (give its path, or a framework name: "
                      "torch, tensorflow, jax, onnxruntime, paddle)",
                      path);
  }
  return path;
}

// A probe that disagrees with the prediction is a finding: the model missed something real.
void add_probe_findings(const std::vector<FrameworkProbe>& probes, Report& report) {
  for (const auto& p : probes) {
    if (p.agrees) continue;
    Finding f;
    f.id = p.ran ? finding_id::kFrameworkProbeDisagrees : finding_id::kFrameworkProbeFailed;
    f.severity = p.ran ? Severity::kWarning : Severity::kInfo;
    f.subject = p.interpreter;
    f.title = p.ran ? p.framework + " really loaded something other than predicted"
                    : p.framework + " could not be probed: " + p.failure;
    f.evidence = p.disagreements;
    for (const auto& m : p.mapped) f.evidence.push_back("mapped " + m);
    if (p.ran) f.fix = {fix::cudnnup({"which", "--for", p.framework, "--python", p.interpreter, "--probe", "-v"})};
    report.findings.push_back(f);
  }
}

// The `cudnnup.doctor/1` document (docs/json-schema.md): --json prints it, --format html renders it.
nlohmann::ordered_json doctor_document(const AppContext& ctx, const DoctorOutcome& outcome,
                                       const std::vector<FrameworkProbe>& probes, const DoctorOptions& opts, int code) {
  auto doc = report_to_json(outcome.report, code, host_name(), fix_shell(ctx));
  doc["plain_program"] = nlohmann::ordered_json::array();
  for (const auto& w : outcome.plain_program) doc["plain_program"].push_back(which_report_to_json(w));
  if (!opts.for_target.empty()) {
    doc["for_program"] = nlohmann::ordered_json::array();
    for (const auto& w : outcome.for_program) doc["for_program"].push_back(which_report_to_json(w));
  }
  if (ctx.env.windows()) {
    doc["windows_loads"] = nlohmann::ordered_json::array();
    for (const auto& w : outcome.windows_loads) doc["windows_loads"].push_back(which_report_to_json(w));
  }
  doc["python_environments"] = outcome.python_envs;
  doc["frameworks"] = nlohmann::ordered_json::array();
  for (const auto& f : outcome.frameworks) doc["frameworks"].push_back(framework_report_to_json(f));
  if (opts.probe_frameworks) {
    doc["framework_probes"] = nlohmann::ordered_json::array();
    for (const auto& p : probes) doc["framework_probes"].push_back(framework_probe_to_json(p));
  }
  return doc;
}

// --from FILE: a saved doctor, verify or bench report, told apart by its schema.
Status add_saved_report(const AppContext& ctx, const std::string& file, bool* have_doctor, HtmlReportInputs& in) {
  auto contents = ctx.fs->read_regular(file, kMaxSavedReportBytes, /*follow_link=*/true);
  if (!contents) return make_error(ErrorCode::kUsage, "--from " + file + ": " + contents.error().message, file);
  HtmlSource source{contents->bytes, file};
  std::string schema = json_document_schema(source.text);
  auto twice = [&](const char* what) {
    return make_error(ErrorCode::kUsage, "--from " + file + ": a second " + what + " report (give one of each)", file);
  };
  if (schema == "cudnnup.doctor/1") {
    if (*have_doctor) return twice("doctor");
    *have_doctor = true;
    in.doctor = std::move(source);
  } else if (schema == "cudnnup.verify/1") {
    if (in.verify) return twice("verify");
    in.verify = std::move(source);
  } else if (schema == "cudnnup.bench/1") {
    if (in.bench) return twice("bench");
    in.bench = std::move(source);
  } else {
    return make_error(ErrorCode::kUsage,
                      "--from " + file + ": not a saved `cudnnup --json doctor`, `verify` or `bench` report" +
                          (schema.empty() ? std::string(" (not JSON with a \"schema\")") : " (its schema is " + schema + ")"),
                      file);
  }
  return Ok{};
}

// The doctor HTML page. `in` holds the doctor report (this machine's or a saved one) and any saved
// verify/bench report; verify and bench run here when asked and not given.
int print_html(AppContext& ctx, const DoctorOptions& opts, HtmlReportInputs in) {
  Shell shell = fix_shell(ctx);
  if (opts.with_verify && !in.verify) {
    VerifyOptions verify;
    auto run = run_verify_stages(ctx, verify);
    // A machine where verify cannot even pick a copy still gets its page; the reason is said.
    if (!run) std::cerr << "cudnnup: --with-verify: " << run.error().message << "\n";
    else in.verify = HtmlSource{dump_json(verify_run_to_json(*run, shell), 0), "this machine"};
  }
  if (opts.with_bench && !in.bench) {
    BenchOptions bench;
    BenchRun run = run_bench_cases(ctx, bench);
    if (run.failure) std::cerr << "cudnnup: --with-bench: " << run.failure->message << "\n";
    else in.bench = HtmlSource{dump_json(run.doc, 0), "this machine"};
  }
  in.generated = utc_now_text();
  auto page = render_doctor_html(in);
  if (!page) return report_error(ctx, page.error());
  return print_whole_output(ctx, page->html, page->doctor_exit_code);
}

int run_doctor_command(AppContext& ctx, const DoctorOptions& opts) {
  auto for_target = resolve_for_target(ctx, opts.for_target);
  if (!for_target) return report_error(ctx, for_target.error());
  if (ctx.env.windows() && !for_target->empty()) {
    return report_error(ctx, make_error(ErrorCode::kUsage,
                                        "doctor --for models Linux programs; on Windows use cudnnup which --for"));
  }
  const bool html = ctx.options.format == OutputFormat::kHtml;
  if (!html && (!opts.from.empty() || opts.with_verify || opts.with_bench)) {
    return report_error(ctx, make_error(ErrorCode::kUsage, "--from, --with-verify and --with-bench go with --format html"));
  }
  // Saved reports are read (and refused) before anything runs; a saved doctor report replaces
  // examining this machine.
  HtmlReportInputs saved;
  bool saved_doctor = false;
  for (const auto& file : opts.from) {
    if (auto st = add_saved_report(ctx, file, &saved_doctor, saved); !st) return report_error(ctx, st.error());
  }
  if (html && saved_doctor) return print_html(ctx, opts, std::move(saved));
  auto outcome = collect_outcome(ctx, opts.deep, *for_target, opts.fresh);
  if (!outcome) return report_error(ctx, outcome.error());
  Report& report = outcome->report;
  std::vector<FrameworkProbe> probes;
  if (opts.probe_frameworks && ctx.env.windows()) {
    std::cerr << "cudnnup: note: --probe-frameworks reads each process's /proc/self/maps and runs on Linux only; "
                 "the frameworks below are predictions\n";
  } else if (opts.probe_frameworks) {
    probes = probe_frameworks(outcome->frameworks, opts.probe_timeout_s * 1000);
    add_probe_findings(probes, report);
  }
  FindingCounts counts = count_findings(report.findings);
  int code = counts.errors > 0 ? kExitProblems : kExitOk;
  // A collector (node_exporter's textfile directory, NFD's features.d) wants the file also when
  // doctor finds problems, and those are in the file: exit 0 once it is written, so that
  // `doctor --format prometheus > f.tmp && mv f.tmp f.prom` replaces it (docs/exit-codes.md).
  if (ctx.options.format == OutputFormat::kPrometheus) {
    auto now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch());
    return print_whole_output(ctx, render_report_prometheus(*outcome, code, now.count()), kExitOk);
  }
  if (ctx.options.format == OutputFormat::kNfd) return print_whole_output(ctx, render_report_nfd(*outcome, code), kExitOk);
  if (html) {
    saved.doctor = {dump_json(doctor_document(ctx, *outcome, probes, opts, code), 0), "this machine"};
    return print_html(ctx, opts, std::move(saved));
  }
  if (ctx.options.json) {
    std::cout << dump_json(doctor_document(ctx, *outcome, probes, opts, code), 2) << std::endl;
    return code;
  }
  std::cout << render_report_text(report, Style{ctx.color}, ctx.env.windows(), ctx.options.quiet, user_shell(ctx));
  if (ctx.options.quiet) return code;
  if (!outcome->windows_loads.empty()) {
    std::cout << "\n" << Style{ctx.color}.bold("What loads") << "\n";
    for (const auto& w : outcome->windows_loads) std::cout << which_report_to_text(w, false, ctx.color);
  }
  if (!ctx.env.windows()) {
    // Every part of the checklist is shown, also when it found nothing, so that "nothing" is
    // an answer rather than a missing line.
    std::cout << "\n" << Style{ctx.color}.bold("What loads") << "\n";
    if (outcome->plain_program.empty()) std::cout << "  nothing: no cuDNN copy was found\n";
    for (const auto& w : outcome->plain_program) std::cout << which_report_to_text(w, false, ctx.color);
    for (const auto& w : outcome->for_program) std::cout << which_report_to_text(w, false, ctx.color);
  }
  std::cout << "\n" << Style{ctx.color}.bold("Frameworks") << "\n";
  size_t envs = outcome->python_envs.size();
  if (outcome->frameworks.empty()) {
    std::cout << "  none found in " << envs << " Python environment" << (envs == 1 ? "" : "s") << "\n";
  }
  for (const auto& f : outcome->frameworks) std::cout << framework_report_to_text(f, false, ctx.color);
  if (opts.probe_frameworks && !ctx.env.windows()) {
    std::cout << "\n" << Style{ctx.color}.bold("What the frameworks really loaded (--probe-frameworks)") << "\n";
    if (probes.empty()) std::cout << "  no framework with a CUDA build found\n";
    for (const auto& p : probes) std::cout << framework_probe_to_text(p, ctx.color);
  }
  return code;
}

}  // namespace

void add_doctor_command(CLI::App& app, CommandAction& action) {
  offer_formats("doctor", {OutputFormat::kText, OutputFormat::kJson, OutputFormat::kPrometheus, OutputFormat::kNfd,
                           OutputFormat::kHtml});
  auto* cmd = app.add_subcommand(
      "doctor",
      "Find the NVIDIA driver, every CUDA toolkit and every cuDNN copy, and say what is wrong and how to fix it");
  cmd->footer(
      "Looks in: CUDA_HOME/CUDA_PATH, nvcc on PATH, /usr/local/cuda*, LD_LIBRARY_PATH, the system library\n"
      "directories, Python venvs and conda envs (PATH, VIRTUAL_ENV, CONDA_PREFIX, ~/.conda/environments.txt),\n"
      "and cudnnup's store. Libraries are loaded only in a child process.\n\n"
      "Files cudnnup installed (store versions, `install --into` merges) are checked against their install\n"
      "manifest: missing, emptied or resized files are reported (antivirus quarantine on Windows). --deep\n"
      "also compares every file's sha256 (reads every installed byte: seconds, not milliseconds).\n\n"
      "The \"What loads\" section predicts, without loading anything, the copy a plain program linked with\n"
      "-lcudnn gets and the copy each framework gets (cudnnup which explains each in detail), and with --for\n"
      "what that program gets. What LD_LIBRARY_PATH and LD_PRELOAD change there, and any mix of copies, are\n"
      "findings of their own, with the variable and entry to change; each copy is judged by a probe that\n"
      "runs without them (only the copy's own directory to search) and names every file it mapped. A probe's\n"
      "answer is kept in $XDG_CACHE_HOME/cudnnup/probes.json (~/.cache/cudnnup) and reused for up to a day\n"
      "while none of the files it depended on changed (same inode, size and change time); --fresh (or\n"
      "--deep) probes every copy again, CUDNNUP_NO_PROBE_CACHE=1 turns the cache off, and deleting the\n"
      "file is always safe.\n\n"
      "--format prometheus writes metrics for node_exporter's textfile collector, --format nfd node labels for\n"
      "Node Feature Discovery's features.d (docs/commands/doctor.md has a systemd timer and a DaemonSet).\n"
      "--format html writes one self-contained page to share (no script, nothing fetched): the checklist, the\n"
      "findings and fixes, the copies, what loads and why; --with-verify and --with-bench add those runs, and\n"
      "--from FILE renders saved `--json` reports of doctor, verify or bench instead of running them.\n\n"
      "Exit codes: 0 no errors (warnings allowed), 1 errors found, 2 usage or tool error; with --format\n"
      "prometheus or nfd, 0 whenever the file is written (its problems are in it), 2 when it is not.\n"
      "Examples:\n  cudnnup doctor\n  cudnnup doctor --for ./train\n  cudnnup doctor --format html --with-verify > report.html\n"
      "  cudnnup doctor --format html --from host1.json --from bench.json > host1.html\n  cudnnup doctor --json | jq '.findings[] | select(.severity==\"error\")'");
  auto opts = std::make_shared<DoctorOptions>();
  cmd->add_flag("--probe-frameworks", opts->probe_frameworks,
                "Also start each framework's Python (PyTorch, TensorFlow, JAX, ONNX Runtime) in a child process, ask "
                "which cuDNN it really loaded, and compare with the prediction (takes seconds per framework)");
  cmd->add_flag("--deep", opts->deep,
                "Also compare the sha256 of every file cudnnup installed with its install manifest (slow: reads them all)");
  cmd->add_flag("--fresh", opts->fresh,
                "Probe every copy again in a child process instead of reusing the answers kept from earlier runs "
                "for files that have not changed");
  cmd->add_option("--for", opts->for_target,
                  "Also report what this program or shared object (or framework: torch, tensorflow, jax, onnxruntime, "
                  "paddle) loads under this environment");
  cmd->add_option("--probe-timeout", opts->probe_timeout_s, "Seconds each framework probe may take (1 to 86400)")
      ->default_val(120)
      ->check(timeout_seconds());
  cmd->add_option("--from", opts->from,
                  "With --format html: a saved `cudnnup --json doctor`, `verify --json` or `bench --json` report to "
                  "show (repeat for several; a doctor report replaces examining this machine)")
      ->type_name("FILE");
  cmd->add_flag("--with-verify", opts->with_verify,
                "With --format html: also run `cudnnup verify` on the selected copy and show its stages");
  cmd->add_flag("--with-bench", opts->with_bench,
                "With --format html: also run `cudnnup bench` (GPU: minutes) and plot it");
  cmd->callback([&action, opts] { action = [opts](AppContext& ctx) { return run_doctor_command(ctx, *opts); }; });
}

}  // namespace cudnnup
