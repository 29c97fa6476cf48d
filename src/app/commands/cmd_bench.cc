// `cudnnup bench`: forward-convolution speed of a cuDNN copy on this GPU, choosing each engine the
// way PyTorch does (backend-API heuristics INSTANT then fallback, PyTorch's engine filter, then
// timing the candidates), each result checked against the CPU reference before its time counts,
// with the GPU's datasheet peak for scale and PyTorch's numbers beside it when given
// (docs/commands/bench.md). The GPU work runs in the bench child (task "bench" of
// `cudnnup __child`, app/child/bench_task.cc), in the copy's own loader environment.
#include <nlohmann/json.hpp>
#include <climits>
#include <cstdint>
#include <iostream>
#include <map>

#include "app/cli/usage_errors.h"
#include "app/child/child_runner.h"
#include "app/child/copy_loader.h"
#include "app/cli/commands.h"
#include "shell/fix_render.h"
#include "app/cli/exit_codes.h"
#include "app/commands/bench_run.h"
#include "app/commands/store_access.h"
#include "app/render/bench_render.h"
#include "base/json_reader.h"
#include "base/json_text.h"
#include "base/paths.h"
#include "child/loader_environment.h"
#include "gpu/bench_model.h"
#include "gpu/verify_locate.h"

namespace cudnnup {
namespace {

using nlohmann::json;


int list_cases(const std::vector<BenchShape>& shapes) {
  // The cases as data, for bench/pytorch_conv.py: both sides measure exactly these.
  json cases = json::array();
  for (const auto& c : bench_cases(shapes)) {
    const ConvShape& s = c.shape.shape;
    cases.push_back({{"key", c.key()}, {"name", c.shape.name}, {"n", s.n}, {"c", s.c}, {"h", s.h}, {"w", s.w},
                     {"k", s.k}, {"r", s.r}, {"s", s.s}, {"pad", s.pad_h}, {"stride", s.stride_h},
                     {"type", data_type_name(c.type)}, {"layout", layout_name(c.layout)}});
  }
  std::cout << dump_json(json{{"schema", "cudnnup.bench-cases/1"}, {"cases", cases}}, 2) << std::endl;
  return kExitOk;
}

// A bench that could not run; the exit code says which kind it was (3: no driver/GPU, 1: the copy
// or a case failed). The command prints it as the error document like every other failure.
BenchRun failed_run(const std::string& message, int code) {
  BenchRun run;
  run.failure = make_error(code == kExitNoGpu ? ErrorCode::kNotFound : ErrorCode::kUnsupported, message);
  run.exit_code = code;
  return run;
}
BenchRun failed_run(const Error& error) {
  BenchRun run;
  run.failure = error;
  run.exit_code = exit_code_for(error);
  return run;
}

// The rows of the cases the child reported, in case order. The child has loaded a library
// anyone may have built, so its reports are read with types checked (a field of the wrong type
// reads as its fallback; *problem says which).
std::vector<BenchRow> rows_from(const ChildTranscript& t, const std::vector<BenchCase>& cases, std::string* problem) {
  std::vector<BenchRow> rows;
  for (const auto& c : cases) {
    const json* doc = t.stage_result("case " + c.key());
    if (!doc) continue;
    JsonReader reader("the bench process's report of case " + c.key());
    JsonValue j = reader.read_object(*doc);
    BenchRow r;
    r.bench = c;
    r.ms = j.number("ms", 0.0);
    r.tflops = j.number("tflops", 0.0);
    r.engine = j.integer("engine", -1, -1, INT64_MAX);
    r.engine_notes = j.string("engine_notes");
    r.tensor_cores = j.boolean("tensor_cores", true);
    r.candidates = static_cast<int>(j.integer("candidates", 0, 0, INT_MAX));
    r.check = j.string("check");
    r.note = j.string("note");
    r.error = j.string("error");
    r.tried = j.strings("tried");
    if (!reader.ok() && problem->empty()) *problem = reader.status().error().message;
    rows.push_back(r);
  }
  return rows;
}

BenchHeader header_from(const json& doc, const BenchOptions& opt, std::string* problem) {
  JsonReader reader("the bench process's result");
  JsonValue result = reader.read_object(doc);
  BenchHeader h;
  h.lib_dir = result.string("lib_dir");
  h.cudnn_version = result.string("cudnn_version");
  h.gpu = opt.gpu;
  h.gpu_name = result.object("gpu").string("name");
  JsonValue p = result.object("peak");
  h.peak.sku = p.string("sku");
  h.peak.fp32 = p.number("fp32_tflops", 0.0);
  h.peak.tf32 = p.number("tf32_tflops", 0.0);
  h.peak.fp16 = p.number("fp16_tflops", 0.0);
  h.peak.bf16 = p.number("bf16_tflops", 0.0);
  h.peak.source = p.string("source");
  h.peak.checked = p.boolean("checked", false);
  if (!reader.ok() && problem->empty()) *problem = reader.status().error().message;
  h.policy = opt.candidates;
  h.allow_tf32 = opt.tf32 == "on";
  return h;
}

}  // namespace

BenchRun run_bench_cases(AppContext& ctx, const BenchOptions& opt) {
  auto shapes = load_bench_shapes(*ctx.fs, opt.shapes);
  if (!shapes) return failed_run(shapes.error());
  const CandidatePolicy policy = opt.candidates == "wide" ? CandidatePolicy::kWide : CandidatePolicy::kPyTorch;
  Result<CopyLocation> loc = make_error(ErrorCode::kNotFound, "no cuDNN copy found in the usual places; name one with --copy PATH");
  if (!opt.copy.empty()) {
    loc = locate_copy(*ctx.fs, opt.copy, ctx.env.windows());
  } else {
    for (const auto& dir : default_copy_dirs(ctx.env)) {
      loc = locate_copy(*ctx.fs, dir, ctx.env.windows());
      if (loc) break;
    }
  }
  if (!loc) return failed_run(loc.error());
  json request{{"lib_dir", loc->lib_dir}, {"gpu", opt.gpu}, {"shapes", opt.shapes},
               {"libcuda", pick_libcuda(ctx, opt.libcuda)}, {"candidates", candidate_policy_name(policy)},
               {"max_candidates", opt.max_candidates > 0 ? opt.max_candidates : default_max_candidates(policy)},
               {"allow_tf32", opt.tf32 == "on"}, {"isolated", true}};
  ChildRunOptions options;
  options.timeout_ms = opt.timeout_s * 1000;
  options.env = child_loader_environment(ctx.env, loc->lib_dir);
  options.what = "the bench process";
  options.required_stages = {"setup"};
  ChildRun run = run_child("bench", std::move(request), options);
  const json* setup = run.transcript.stage_result("setup");
  // The setup stage's answer, types checked like every report of the child's.
  JsonReader setup_reader("the bench process's setup report");
  JsonValue setup_report = setup_reader.read_object(setup ? *setup : json::object());
  const std::string setup_error = setup_report.string("error");
  const bool no_gpu = setup_report.boolean("no_gpu", false);
  const std::vector<BenchCase> cases = bench_cases(*shapes);
  if (!run.problem && setup && setup_error.empty()) {
    std::vector<std::string> required = {"setup", "teardown"};
    for (const auto& c : cases) required.push_back("case " + c.key());
    run.problem = child_run_problem(run.transcript, run.end, required, options.what);
  }
  if (run.problem) {
    std::string message = run.problem->summary;
    for (const auto& e : run.problem->evidence) message += "\n  " + e;
    return failed_run(message + "\n  this finds the broken stage: " +
                          render_command_or_sentence({"cudnnup", "verify", "--copy", shown_path(ctx, loc->lib_dir)}, fix_shell(ctx)),
                      kExitProblems);
  }
  if (!setup_reader.ok()) return failed_run(setup_reader.status().error().message, kExitProblems);
  if (!setup_error.empty()) {
    return failed_run(setup_error, no_gpu ? kExitNoGpu : kExitProblems);
  }
  std::string report_problem;
  std::vector<BenchRow> rows = rows_from(run.transcript, cases, &report_problem);
  const json* result = run.transcript.result();
  BenchHeader header = header_from(result ? *result : json::object(), opt, &report_problem);
  if (!report_problem.empty()) return failed_run(report_problem, kExitProblems);
  if (!opt.compare.empty()) {
    auto text = ctx.fs->read_file(opt.compare, 16 << 20);
    if (!text) return failed_run(make_error(ErrorCode::kNotFound, "cannot read " + opt.compare, opt.compare));
    auto side = attach_pytorch_results(*text, rows);
    if (!side) return failed_run(make_error(side.error().code, opt.compare + ": " + side.error().message, opt.compare));
    std::string their_dir = side->cudnn_library.empty() ? "" : paths::parent(side->cudnn_library);
    if (auto canonical = ctx.fs->canonical(their_dir); !their_dir.empty() && canonical) their_dir = *canonical;
    BenchSide ours{header.lib_dir, header.cudnn_version, header.allow_tf32, policy,
                   opt.max_candidates > 0 ? opt.max_candidates : default_max_candidates(policy)};
    header.mismatches = comparison_mismatches(*side, their_dir, ours);
    header.compared = true;
  }
  BenchRun out;
  out.exit_code = kExitOk;
  for (const auto& r : rows) {
    if (!r.error.empty()) out.exit_code = kExitProblems;
  }
  out.doc = result ? *result : json::object();
  out.doc["schema"] = "cudnnup.bench/1";
  out.doc["candidates"] = candidate_policy_name(policy);
  out.doc["allow_tf32"] = header.allow_tf32;
  json jr = json::array();
  for (const auto& r : rows) jr.push_back(bench_row_to_json(r, header.peak.for_type(r.bench.type, r.tensor_cores)));
  out.doc["rows"] = jr;
  if (header.compared) out.doc["comparison"] = {{"like_for_like", header.mismatches.empty()}, {"mismatches", header.mismatches}};
  out.doc["exit_code"] = out.exit_code;
  out.header = std::move(header);
  out.rows = std::move(rows);
  return out;
}

namespace {

int run_bench(AppContext& ctx, const BenchOptions& opt) {
  if (opt.list_cases) {
    auto shapes = load_bench_shapes(*ctx.fs, opt.shapes);
    if (!shapes) return report_error(ctx, shapes.error());
    return list_cases(*shapes);
  }
  BenchRun run = run_bench_cases(ctx, opt);
  if (run.failure) return report_error(ctx, *run.failure, run.exit_code);
  if (!opt.svg.empty()) {
    auto st = ctx.fs->write_file(opt.svg, render_bench_svg(run.header, run.rows), false);
    if (!st) return report_error(ctx, st.error());
  }
  if (ctx.options.json) {
    std::cout << dump_json(run.doc, 2) << std::endl;
  } else {
    std::cout << render_bench_text(run.header, run.rows);
  }
  return run.exit_code;
}

}  // namespace

void add_bench_command(CLI::App& app, CommandAction& action) {
  static BenchOptions opt;
  auto* cmd = app.add_subcommand(
      "bench",
      "Measure forward-convolution speed of a cuDNN copy on this GPU, next to its peak and PyTorch");
  cmd->footer(
      "Cases: the ResNet-50 layers and the classic 8x3x64x64 -> 16ch 3x3 conv (or --shapes FILE), each in bf16 NHWC,\n"
      "fp16 NHWC and fp32 NCHW (TF32 allowed, PyTorch's default). Each engine is chosen as PyTorch's\n"
      "cudnn.benchmark=True does: heuristics mode INSTANT then the fallback list, without the engines PyTorch\n"
      "drops, then timing; each case's output is checked against the CPU reference before its time counts, and a\n"
      "rate above the GPU's datasheet peak is an error. With --compare, PyTorch's times from\n"
      "bench/pytorch_conv.py beside them, and any difference in cuDNN library or TF32 setting is shown.\n\n"
      "Examples:\n"
      "  cudnnup bench --copy /usr/lib/x86_64-linux-gnu --svg bench.svg\n"
      "  cudnnup bench --list-cases > cases.json && python3 bench/pytorch_conv.py bench cases.json > pt.json\n"
      "  cudnnup bench --copy $SITE/nvidia/cudnn --compare pt.json --json\n\n"
      "Exit codes: 0 every case ran and checked out; 1 a case failed (or the copy does not load);\n"
      "2 bad arguments; 3 no NVIDIA driver/GPU.");
  cmd->add_option("--copy", opt.copy, "The cuDNN copy (lib directory, copy root or shim file)")->type_name("PATH");
  cmd->add_option("--shapes", opt.shapes,
                  "'default', or a file with one shape per line: N C H W K R S [pad] [stride] [name]")
      ->type_name("FILE");
  cmd->add_option("--compare", opt.compare, "PyTorch results (JSON from bench/pytorch_conv.py) to show beside ours")
      ->type_name("FILE");
  cmd->add_option("--svg", opt.svg, "Also write a plot of TFLOP/s per case against peak to this SVG file")->type_name("FILE");
  cmd->add_option("--gpu", opt.gpu, "GPU number (default 0)")->check(CLI::Range(0, 1023));
  cmd->add_option("--candidates", opt.candidates,
                  "'pytorch' (default): PyTorch's sources and filter; 'wide': heuristics A, B and fallback, unfiltered")
      ->check(CLI::IsMember({"pytorch", "wide"}))
      ->type_name("pytorch|wide");
  cmd->add_option("--tf32", opt.tf32, "'on' (default, PyTorch's allow_tf32=True) or 'off' for fp32 cases")
      ->check(CLI::IsMember({"on", "off"}))
      ->type_name("on|off");
  cmd->add_option("--max-candidates", opt.max_candidates,
                  "Engine configs timed per case (default: 10 with --candidates pytorch, 24 with wide)");
  cmd->add_option("--libcuda", opt.libcuda, "Use this CUDA driver library")->type_name("FILE");
  cmd->add_option("--timeout", opt.timeout_s, "Seconds before the bench process is stopped (default 600; 1 to 86400)")
      ->check(timeout_seconds());
  cmd->add_flag("--list-cases", opt.list_cases, "Print the cases as JSON (for bench/pytorch_conv.py) and exit");
  cmd->callback([&action] { action = [](AppContext& ctx) { return run_bench(ctx, opt); }; });
}

}  // namespace cudnnup
