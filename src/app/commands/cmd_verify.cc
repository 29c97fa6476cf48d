// `cudnnup verify`: does a cuDNN copy work on this machine's GPU, stage by stage
// (docs/commands/verify.md). The parent checks the toolkit and headers, then runs the verify child
// (task "verify" of `cudnnup __child`, app/child/verify_task.cc) in the copy's own loader
// environment; the child loads the copy, the driver and a GPU and reports each stage on its event
// channel. The run counts only when every stage reported its result and the child finished
// (core/child/protocol.h); a crash, a hang or an early exit is a failed stage, never a pass.
#include <nlohmann/json.hpp>
#include <chrono>
#include <cstdio>
#include <climits>
#include <iostream>

#include "app/cli/usage_errors.h"
#include "app/child/child_runner.h"
#include "app/commands/store_access.h"
#include "app/child/copy_loader.h"
#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"
#include "app/cli/help_words.h"
#include "app/commands/doctor_runner.h"
#include "app/commands/verify_run.h"
#include "app/render/verify_render.h"
#include "shell/fix_render.h"
#include "child/loader_environment.h"
#include "gpu/verify_checks.h"
#include "gpu/verify_gpu.h"
#include "gpu/verify_locate.h"
#include "platform/process.h"
#include "base/numbers.h"
#include "base/json_reader.h"
#include "base/json_text.h"

namespace cudnnup {
namespace {

using nlohmann::json;

// ------------------------------------------------------------------------------------------
// parent side

// Every stage the child reports, in order, so a run that ends early can mark the rest as not run.
std::vector<std::pair<std::string, std::string>> child_stage_ids() {
  std::vector<std::pair<std::string, std::string>> ids = {
      {"library", "Library and sub-libraries load from the copy"},
      {"versions", "Versions agree (header, library, CUDA runtime, driver, GPU)"},
      {"driver", "CUDA driver: context on the GPU"},
      {"handle", "cudnnCreate and cudnnSetStream"}};
  for (const auto& c : default_conv_checks()) ids.emplace_back(c.id(), c.title());
  ids.emplace_back("teardown", "Clean teardown (cudnnDestroy, stream, context)");
  ids.emplace_back("modules", "Every cuDNN file mapped during the run came from the copy");
  return ids;
}

struct ChildStages {
  std::vector<StageResult> stages;
  int device_count = 0;
};

// The child's problem as a failed stage: a crash or hang is verify.child.crashed, a run that ended
// without reporting everything (exit 0 early, a stage left open, a damaged channel) is
// verify.child.incomplete. Either fails the run.
StageResult problem_stage(const ChildProblem& p) {
  std::string id = p.stage.empty() ? "child" : p.stage;
  std::string title = id;
  for (const auto& [sid, stitle] : child_stage_ids()) {
    if (sid == id) title = stitle;
  }
  Finding f{p.crashed ? "verify.child.crashed" : "verify.child.incomplete",
            Severity::kError,
            id,
            p.crashed ? "Loading or running this cuDNN copy stopped the verify process"
                      : "The verify process ended without reporting every stage",
            p.crashed ? "A library that crashes or hangs the process is damaged, built for another CPU or driver, or "
                        "mixed with another copy."
                      : "Something in the process (a library's initialisation, most likely) ended it before verify "
                        "finished, so no stage after it can be trusted to have passed.",
            p.evidence,
            {fix::step("Reinstall the copy, then run this check again."),
             fix::cudnnup({"doctor"}, "which files and versions this copy is made of")}};
  return stage_fail(id, title, p.summary, f);
}

ChildStages run_verify_child(const AppContext& ctx, const std::string& lib_dir, int gpu, const VerifyOptions& opt,
                             const std::optional<Version>& header, const std::optional<Version>& toolkit) {
  json request{{"lib_dir", lib_dir}, {"gpu", gpu}, {"libcuda", pick_libcuda(ctx, opt.libcuda)}, {"isolated", true}};
  if (header) request["header_version"] = header->str();
  if (toolkit) request["toolkit_version"] = toolkit->str();
  ChildRunOptions options;
  options.timeout_ms = opt.timeout_s * 1000;
  options.env = child_loader_environment(ctx.env, lib_dir);
  options.what = "the verify process";
  for (const auto& [id, title] : child_stage_ids()) options.required_stages.push_back(id);
  ChildRun run = run_child("verify", std::move(request), options);

  ChildStages out;
  for (const auto& id : run.transcript.ended) {
    const json* result = run.transcript.stage_result(id);
    if (!result) continue;
    // The child loaded a library anyone may have built: its reports are read with types checked,
    // and one that does not read is a failed stage, never a pass.
    JsonReader reader("the verify process's report of stage " + id);
    StageResult stage = stage_from_json(reader.read_object(*result));
    if (!reader.ok()) {
      stage = stage_fail(id, id, reader.status().error().message,
                         Finding{"verify.child.incomplete", Severity::kError, id, "The verify process's report does not read",
                                 reader.status().error().message, {}, {fix::step("Run the check again.")}});
    }
    out.stages.push_back(std::move(stage));
  }
  if (const json* answer = run.transcript.result()) {
    JsonReader reader("the verify process's result");
    out.device_count = static_cast<int>(reader.read_object(*answer).integer("device_count", 0, 0, INT_MAX));
  }
  if (run.problem) {
    // The stage it was in is replaced by the failure; the ones it never reached are listed.
    StageResult failed = problem_stage(*run.problem);
    for (auto it = out.stages.begin(); it != out.stages.end(); ++it) {
      if (it->id == failed.id) {
        out.stages.erase(it);
        break;
      }
    }
    out.stages.push_back(failed);
    for (const auto& [sid, stitle] : child_stage_ids()) {
      bool seen = false;
      for (const auto& s : out.stages) seen = seen || s.id == sid;
      if (!seen) out.stages.push_back(stage_skip(sid, stitle, "not run: the verify process ended early"));
    }
  }
  return out;
}

// The copy to verify and why it is that one: --copy; else --version V, the first copy doctor
// finds (in loader search order) whose version matches; else the version selected here (store
// selection: CUDNNUP_VERSION, pin file, global default); else "" (the usual places).
struct PickedCopy {
  std::string dir;
  std::string chosen_by;  // "--copy", "--version", "selection", "default"
  std::string reason;     // for people: "cuDNN 9.19.0.56+cuda13 (the global default)"
};

Result<PickedCopy> pick_copy(AppContext& ctx, const VerifyOptions& opt) {
  if (!opt.copy.empty()) return PickedCopy{opt.copy, "--copy", "the copy given with --copy"};
  if (!opt.version.empty()) {
    auto wanted = Version::parse(opt.version);
    if (!wanted) {
      return make_error(ErrorCode::kUsage, "--version takes a version like 9, 9.19 or 9.19.0, not '" + opt.version + "'");
    }
    auto report = collect_report(ctx);
    if (!report) return report.error();
    std::string available;
    for (const auto& c : report->copies) {
      Version v = c.library_version.known() ? c.library_version : c.header_version;
      if (v.known() && v.has_prefix(*wanted)) return PickedCopy{c.lib_dir, "--version", "the first cuDNN " + opt.version + " found"};
      available += (available.empty() ? "" : ", ") + v.str() + " (" + c.lib_dir + ")";
    }
    return make_error(ErrorCode::kNotFound, "no cuDNN " + opt.version + " on this machine; copies found: " +
                                                (available.empty() ? "none" : available));
  }
  auto store = read_store(ctx);
  if (!store) return store.error();
  auto request = selection_request(ctx, *store);
  if (!request) return request.error();
  if (request->source == SelectionSource::kNone) {
    return PickedCopy{"", "default", "no version is selected (`cudnnup use`), so the first copy in the usual places"};
  }
  if (request->system()) {
    return PickedCopy{"", "default", "system is selected (" + request->describe() + "), so the first copy in the usual places"};
  }
  auto selection = selected_version(ctx, *store);
  if (!selection) return selection.error();
  return PickedCopy{VersionDirs::of(selection->dir, ctx.env.windows()).loader_dir(), "selection",
                    "cuDNN " + selection->id.id + ", " + selection->request.describe()};
}

// Toolkit and headers, here in the parent: they only read files and run nvcc.
std::vector<StageResult> front_stages(const AppContext& ctx, const std::string& lib_dir, std::optional<Version>* toolkit,
                                      std::optional<Version>* header) {
  std::vector<StageResult> front;
  auto t0 = std::chrono::steady_clock::now();
  ToolkitFacts tf;
  tf.nvcc_path = find_nvcc(*ctx.fs, ctx.env);
  if (!tf.nvcc_path.empty()) {
    ProcessOptions po;
    po.timeout_ms = 20000;
    auto r = run_process({tf.nvcc_path, "--version"}, po);
    if (r && r->exited_normally() && r->exit_code == 0) {
      tf.ran = true;
      tf.output = r->out;
    } else {
      tf.error = r ? r->describe_failure() + (r->err.empty() ? "" : ": " + r->err) : r.error().message;
    }
  }
  front.push_back(check_toolkit(tf, toolkit));
  front.back().seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  t0 = std::chrono::steady_clock::now();
  HeaderFacts hf;
  hf.searched = header_candidates(lib_dir);
  for (const auto& candidate : hf.searched) {
    if (!ctx.fs->is_file(candidate)) continue;
    auto text = ctx.fs->read_file(candidate, 1 << 20);
    if (!text) continue;
    hf.path = candidate;
    hf.text = *text;
    break;
  }
  front.push_back(check_headers(hf, header));
  front.back().seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return front;
}

}  // namespace

Result<VerifyRun> run_verify_stages(AppContext& ctx, const VerifyOptions& opt) {
  auto start = std::chrono::steady_clock::now();
  const bool windows = ctx.env.windows();
  auto picked = pick_copy(ctx, opt);
  if (!picked) return picked.error();
  const std::string& copy_dir = picked->dir;
  int first_gpu = 0;
  bool all_gpus = opt.gpu == "all";
  if (!all_gpus) {
    auto gpu = checked_int(opt.gpu);
    if (!gpu) {
      return make_error(ErrorCode::kUsage, "--gpu takes a GPU number (0, 1, ...) or 'all', not '" + opt.gpu + "'");
    }
    first_gpu = *gpu;
  }
  Result<CopyLocation> loc = make_error(ErrorCode::kNotFound, "");
  if (!copy_dir.empty()) {
    loc = locate_copy(*ctx.fs, copy_dir, windows);
    if (!loc) return loc.error();
  } else {
    for (const auto& dir : default_copy_dirs(ctx.env)) {
      loc = locate_copy(*ctx.fs, dir, windows);
      if (loc) break;
    }
    if (!loc) {
      return make_error(ErrorCode::kNotFound,
                        "no cuDNN copy found in the usual places; name one with --copy PATH "
                        "(`cudnnup doctor` lists the copies on this machine)");
    }
  }

  std::optional<Version> toolkit, header;
  std::vector<StageResult> front = front_stages(ctx, loc->lib_dir, &toolkit, &header);

  VerifyRun out;
  out.lib_dir = loc->lib_dir;
  out.chosen_by = picked->chosen_by;
  out.reason = picked->reason;
  int gpu = first_gpu;
  int gpu_count = 1;
  do {
    VerifyReport report;
    report.copy = opt.copy.empty() ? loc->lib_dir : opt.copy;
    report.lib_dir = loc->lib_dir;
    report.gpu = gpu;
    report.stages = front;
    ChildStages child = run_verify_child(ctx, loc->lib_dir, gpu, opt, header, toolkit);
    for (auto& s : child.stages) report.stages.push_back(std::move(s));
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (all_gpus) gpu_count = child.device_count;
    out.reports.push_back(std::move(report));
    ++gpu;
  } while (all_gpus && gpu < gpu_count);

  out.exit_code = kExitOk;
  for (const auto& r : out.reports) {
    int code = verify_exit_code(r);
    if (code == kExitProblems || (code == kExitNoGpu && out.exit_code == kExitOk)) out.exit_code = code;
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

nlohmann::json verify_run_to_json(const VerifyRun& run, Shell shell) {
  json runs = json::array();
  for (const auto& r : run.reports) runs.push_back(verify_report_to_json(r, shell));
  return json{{"schema", "cudnnup.verify/1"}, {"copy", run.reports.front().copy}, {"lib_dir", run.lib_dir},
              {"chosen_by", run.chosen_by}, {"chosen_because", run.reason},
              {"runs", runs}, {"fix_shell", shell_name(shell)}, {"exit_code", run.exit_code}, {"seconds", run.seconds}};
}

namespace {

int run_verify(AppContext& ctx, const VerifyOptions& opt) {
  auto run = run_verify_stages(ctx, opt);
  if (!run) return report_error(ctx, run.error());
  Shell shell = fix_shell(ctx);
  if (ctx.options.json) {
    std::cout << dump_json(verify_run_to_json(*run, shell), 2) << std::endl;
  } else {
    if (!ctx.options.quiet) std::cout << "Verifying " << run->reason << ": " << shown_path(ctx, run->lib_dir) << "\n";
    for (const auto& r : run->reports) std::cout << render_verify_text(r, ctx.color, ctx.options.quiet, shell);
  }
  return run->exit_code;
}

}  // namespace

void add_verify_command(CLI::App& app, CommandAction& action) {
  static VerifyOptions opt;
  auto* cmd = app.add_subcommand(
      "verify",
      "Check that a cuDNN copy works on this machine's GPU, stage by stage");
  cmd->footer(
      "Stages: toolkit (nvcc) -> headers (cudnn_version.h) -> library (the copy loads as programs load it, in its\n"
      "own loader environment: the shim, its sub-libraries, the whole API, nothing from another copy) -> versions\n"
      "(header, library, CUDA runtime, driver and GPU agree) -> driver (a context on the GPU) -> handle ->\n"
      "convolutions forward, backward-data and backward-filter in fp32, fp16 and bf16, NCHW and NHWC, and one\n"
      "per type through the graph API, each compared with a CPU reference -> teardown -> modules (every cuDNN\n"
      "file mapped during the run came from the copy). Each stage passes, fails (with the evidence and a fix) or\n"
      "is skipped; the run passes only when every stage reported. The GPU work runs in a child process, so a\n"
      "crashing library is reported, not fatal.\n\n"
      "Without --copy or --version it verifies the version selected here (`cudnnup current`), else the first\n"
      "copy in the usual places, and says which it chose.\n\n"
      "Examples:\n"
      "  cudnnup verify\n"
      "  cudnnup verify --copy " + help_words().verify_copy_example + "\n"
      "  cudnnup verify --copy " + help_words().pip_copy_example + " --json\n\n"
      "Exit codes: 0 every stage passed or was skipped; 1 a stage failed, or the child ended before reporting\n"
      "every stage; 2 bad arguments; 3 no NVIDIA driver/GPU here (everything before the driver stage passed).");
  cmd->add_option("--copy", opt.copy,
                  "The cuDNN copy: its lib directory, its root (lib/, lib64/, bin/ are tried) or the shim file. "
                  "Default: the selected version, else the first copy in " + help_words().default_copy_places)
      ->type_name("PATH");
  cmd->add_option("--version", opt.version, "Verify the installed copy of this cuDNN version (needs doctor's copy list)");
  cmd->add_option("--gpu", opt.gpu, "GPU number to test, or 'all' (default 0)");
  cmd->add_option("--libcuda", opt.libcuda, "Use this CUDA driver library instead of searching the usual places")
      ->type_name("FILE");
  cmd->add_option("--timeout", opt.timeout_s, "Seconds before a hanging child is stopped (default 120; 1 to 86400)")
      ->check(timeout_seconds());
  cmd->callback([&action] { action = [](AppContext& ctx) { return run_verify(ctx, opt); }; });

}

}  // namespace cudnnup
