// `cudnnup verify`: does a cuDNN copy work on this machine's GPU, stage by stage
// (docs/commands/verify.md). The parent checks the toolkit and headers, then runs
// `cudnnup __verify-child` which loads the copy, the driver and a GPU, and streams one JSON
// line per stage; a crash or hang there becomes a failed stage, not a crash of cudnnup.
#include <nlohmann/json.hpp>
#include <chrono>
#include <cstdio>
#include <climits>
#include <iostream>
#include <sstream>

#include "adapters/cuda_driver_api.h"
#include "adapters/cudnn_api.h"
#include "app/cli/commands.h"
#include "app/commands/doctor_runner.h"
#include "app/child/copy_loader.h"
#include "app/cli/exit_codes.h"
#include "app/render/verify_render.h"
#include "base/paths.h"
#include "gpu/verify_checks.h"
#include "gpu/verify_gpu.h"
#include "gpu/verify_locate.h"
#include "platform/dynamic_library.h"
#include "platform/process.h"
#include "base/numbers.h"
#include "base/json_reader.h"
#include "base/json_text.h"

namespace cudnnup {
namespace {

using nlohmann::json;

// ------------------------------------------------------------------------------------------
// child side

void emit(const json& line) {
  std::cout << dump_json(line) << "\n";
  std::cout.flush();  // the parent must see each stage even if the next one crashes us
}

void emit_stage(const StageResult& s) { emit(json{{"event", "stage"}, {"stage", stage_to_json(s)}}); }
void emit_start(const std::string& id) { emit(json{{"event", "start"}, {"id", id}}); }

struct ChildOptions {
  std::string lib_dir;
  std::string libcuda;
  std::string header_version;
  std::string toolkit_version;
  int gpu = 0;
};

int verify_child(AppContext& ctx, const ChildOptions& opt) {
  const FileSystem& fs = *ctx.fs;

  // --- library
  emit_start("library");
  auto t0 = std::chrono::steady_clock::now();
  LoadedCopy copy =
      load_copy(ctx, opt.lib_dir, [](const std::string& path) { emit(json{{"event", "loading"}, {"path", path}}); });
  LibrarySetFacts& lf = copy.facts;
  std::optional<CudnnApi>& api = copy.api;
  const bool located = copy.located;
  StageResult lib_stage = check_library_set(lf);
  if (!located) {
    lib_stage = stage_fail("library", "Library and sub-libraries load from the copy", copy.locate_error,
                           Finding{"verify.library.missing", Severity::kError, "library", "cuDNN library not found",
                                   "The path given is not a cuDNN copy.", {opt.lib_dir},
                                   {"Point --copy at a cuDNN lib directory or copy root; `cudnnup doctor` lists the "
                                    "copies on this machine."}});
  }
  lib_stage.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  emit_stage(lib_stage);
  const bool library_ok = lib_stage.status == StageStatus::kPass && api.has_value();

  // --- driver facts (cuInit etc.), needed by the versions stage
  std::string libcuda = pick_libcuda(ctx, opt.libcuda);
  std::optional<CudaDriverApi> cuda;
  DriverFacts facts;
  facts.gpu = opt.gpu;
  static const nv::CudaDriverFunctions no_driver;
  if (!libcuda.empty()) {
    if (!fs.exists(libcuda)) {
      facts.libcuda_path = libcuda;
      facts.load_error = "no such file";
    } else if (auto loaded = CudaDriverApi::load(libcuda)) {
      cuda.emplace(std::move(loaded.value()));
      cuda->leak();
      facts = query_driver(cuda->functions(), libcuda, opt.gpu);
    } else {
      facts.libcuda_path = libcuda;
      facts.load_error = loaded.error().message;
    }
  }
  emit(json{{"event", "driver"}, {"device_count", facts.device_count}, {"gpu_name", facts.gpu_name}});

  // --- versions
  emit_start("versions");
  t0 = std::chrono::steady_clock::now();
  StageResult versions;
  if (!library_ok) {
    versions = stage_skip("versions", "Versions agree (header, library, CUDA runtime, driver, GPU)",
                          "skipped: the library did not load");
  } else {
    const auto& fn = api->functions();
    VersionFacts vf;
    if (!opt.header_version.empty()) vf.header = Version::parse(opt.header_version);
    if (!opt.toolkit_version.empty()) vf.toolkit = Version::parse(opt.toolkit_version);
    vf.library_number = fn.GetVersion ? static_cast<long long>(fn.GetVersion()) : 0;
    vf.cudart_number = fn.GetCudartVersion ? static_cast<long long>(fn.GetCudartVersion()) : 0;
    vf.max_device_version = fn.GetMaxDeviceVersion ? static_cast<long long>(fn.GetMaxDeviceVersion()) : 0;
    vf.driver_cuda_number = facts.driver_cuda_number;
    if (facts.gpu_found()) {
      vf.gpu_cc = Version{facts.cc_major, facts.cc_minor};
      vf.gpu_name = facts.gpu_name;
    }
    versions = check_versions(vf);
  }
  versions.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  emit_stage(versions);

  // --- GPU stages
  static const nv::CudnnFunctions no_cudnn;
  GpuSession session;
  session.cu = cuda ? &cuda->functions() : &no_driver;
  session.dnn = api ? &api->functions() : &no_cudnn;
  session.cudnn_major = lf.major ? lf.major : 9;
  std::string unusable;
  if (!library_ok) unusable = "the library stage failed";
  else if (versions.status == StageStatus::kFail) unusable = "the versions stage failed";
  run_gpu_stages(facts, session, default_conv_checks(), unusable, [](const std::string& id, const StageResult* r) {
    if (r) {
      emit_stage(*r);
    } else {
      emit_start(id);
    }
  });
  emit(json{{"event", "done"}});
  std::fflush(stdout);
  return kExitOk;
}

// ------------------------------------------------------------------------------------------
// parent side

struct VerifyOptions {
  std::string copy;
  std::string version;
  std::string gpu = "0";
  std::string libcuda;
  int timeout_s = 120;
};

// Every stage id the child reports, in order, so a crash can mark the rest as not run.
std::vector<std::pair<std::string, std::string>> child_stage_ids() {
  std::vector<std::pair<std::string, std::string>> ids = {
      {"library", "Library and sub-libraries load from the copy"},
      {"versions", "Versions agree (header, library, CUDA runtime, driver, GPU)"},
      {"driver", "CUDA driver: context on the GPU"},
      {"handle", "cudnnCreate and cudnnSetStream"}};
  for (const auto& c : default_conv_checks()) ids.emplace_back(c.id(), c.title());
  ids.emplace_back("teardown", "Clean teardown (cudnnDestroy, stream, context)");
  return ids;
}

struct ChildRun {
  std::vector<StageResult> stages;
  int device_count = 0;
};

ChildRun run_child(const std::string& lib_dir, int gpu, const VerifyOptions& opt, const std::optional<Version>& header,
                   const std::optional<Version>& toolkit) {
  ChildRun run;
  std::vector<std::string> argv = {self_executable_path(), "__verify-child", "--lib-dir", lib_dir,
                                   "--gpu", std::to_string(gpu)};
  if (!opt.libcuda.empty()) argv.insert(argv.end(), {"--libcuda", opt.libcuda});
  if (header) argv.insert(argv.end(), {"--header-version", header->str()});
  if (toolkit) argv.insert(argv.end(), {"--toolkit-version", toolkit->str()});
  ProcessOptions po;
  po.timeout_ms = opt.timeout_s * 1000;
  auto result = run_process(argv, po);
  std::string started, loading;
  if (result) {
    std::istringstream lines(result->out);
    std::string line;
    while (std::getline(lines, line)) {
      // The child has loaded a library anyone may have built, which can print lines too: a line
      // that is not one of ours (wrong JSON, wrong types) is skipped.
      JsonReader reader("the verify process's output");
      JsonValue j = reader.parse_object(line);
      std::string event = j.string("event");
      if (!reader.ok()) continue;
      if (event == "start") {
        started = j.string("id");
      } else if (event == "stage") {
        StageResult stage = stage_from_json(j.object("stage"));
        if (!reader.ok()) continue;
        run.stages.push_back(std::move(stage));
        started.clear();
      } else if (event == "loading") {
        loading = j.string("path");
      } else if (event == "driver") {
        run.device_count = static_cast<int>(j.integer("device_count", 0, 0, INT_MAX));
      }
    }
  }
  bool clean = result && result->exited_normally() && result->exit_code == 0;
  if (!clean) {
    std::string how = result ? result->describe_failure() : result.error().message;
    std::string where = started.empty() ? std::string("between stages") : "during stage " + started;
    if (started == "library" && !loading.empty()) where += " while loading " + loading;
    std::vector<std::string> ev = {"verify child " + how + " " + where};
    if (result && !result->err.empty()) ev.push_back("stderr: " + result->err.substr(0, 2000));
    std::string id = started.empty() ? "child" : started;
    std::string title = id;
    for (const auto& [sid, stitle] : child_stage_ids()) {
      if (sid == id) title = stitle;
    }
    run.stages.push_back(stage_fail(
        id, title, "the verify process " + how + " " + where,
        Finding{"verify.child.crashed", Severity::kError, id,
                "Loading or running this cuDNN copy " + how,
                "A library that crashes or hangs the process is damaged, built for another CPU or driver, or "
                "mixed with another copy.",
                ev,
                {"Reinstall the copy, then run `cudnnup verify` again.",
                 "Run `cudnnup doctor` to see which files and versions this copy is made of."}}));
  }
  // Stages the child never reached.
  for (const auto& [sid, stitle] : child_stage_ids()) {
    bool seen = false;
    for (const auto& s : run.stages) seen = seen || s.id == sid;
    if (!seen) run.stages.push_back(stage_skip(sid, stitle, "not run: the verify process ended early"));
  }
  return run;
}

int run_verify(AppContext& ctx, const VerifyOptions& opt) {
  auto start = std::chrono::steady_clock::now();
  const bool windows = ctx.env.windows();
  // --version V: the first copy doctor finds (in loader search order) whose version matches.
  std::string copy_dir = opt.copy;
  if (!opt.version.empty()) {
    auto wanted = Version::parse(opt.version);
    if (!wanted) {
      return report_error(ctx, make_error(ErrorCode::kUsage, "--version takes a version like 9, 9.19 or 9.19.0, not '" +
                                                                 opt.version + "'"));
    }
    auto report = collect_report(ctx);
    if (!report) return report_error(ctx, report.error());
    std::string found, available;
    for (const auto& c : report->copies) {
      Version v = c.library_version.known() ? c.library_version : c.header_version;
      available += (available.empty() ? "" : ", ") + v.str() + " (" + c.lib_dir + ")";
      if (found.empty() && v.known() && v.has_prefix(*wanted)) found = c.lib_dir;
    }
    if (found.empty()) {
      return report_error(ctx, make_error(ErrorCode::kNotFound,
                                          "no cuDNN " + opt.version + " on this machine; copies found: " +
                                              (available.empty() ? "none" : available)));
    }
    copy_dir = found;
  }
  int first_gpu = 0;
  bool all_gpus = opt.gpu == "all";
  if (!all_gpus) {
    auto gpu = checked_int(opt.gpu);
    if (!gpu) {
      return report_error(ctx, make_error(ErrorCode::kUsage, "--gpu takes a GPU number (0, 1, ...) or 'all', not '" +
                                                                 opt.gpu + "'"));
    }
    first_gpu = *gpu;
  }
  // The copy.
  Result<CopyLocation> loc = make_error(ErrorCode::kNotFound, "");
  if (!copy_dir.empty()) {
    loc = locate_copy(*ctx.fs, copy_dir, windows);
    if (!loc) return report_error(ctx, loc.error());
  } else {
    for (const auto& dir : default_copy_dirs(ctx.env)) {
      loc = locate_copy(*ctx.fs, dir, windows);
      if (loc) break;
    }
    if (!loc) {
      return report_error(ctx, make_error(ErrorCode::kNotFound,
                                          "no cuDNN copy found in the usual places; name one with --copy PATH "
                                          "(`cudnnup doctor` lists the copies on this machine)"));
    }
  }

  // Toolkit and headers, here in the parent: they only read files and run nvcc.
  std::vector<StageResult> front;
  std::optional<Version> toolkit, header;
  {
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
    front.push_back(check_toolkit(tf, &toolkit));
    front.back().seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  {
    auto t0 = std::chrono::steady_clock::now();
    HeaderFacts hf;
    hf.searched = header_candidates(loc->lib_dir);
    for (const auto& candidate : hf.searched) {
      if (!ctx.fs->is_file(candidate)) continue;
      auto text = ctx.fs->read_file(candidate, 1 << 20);
      if (!text) continue;
      hf.path = candidate;
      hf.text = *text;
      break;
    }
    front.push_back(check_headers(hf, &header));
    front.back().seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  std::vector<VerifyReport> reports;
  int gpu = first_gpu;
  int gpu_count = 1;
  do {
    VerifyReport report;
    report.copy = opt.copy.empty() ? loc->lib_dir : opt.copy;
    report.lib_dir = loc->lib_dir;
    report.gpu = gpu;
    report.stages = front;
    ChildRun child = run_child(loc->lib_dir, gpu, opt, header, toolkit);
    for (auto& s : child.stages) report.stages.push_back(std::move(s));
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (all_gpus) gpu_count = child.device_count;
    reports.push_back(std::move(report));
    ++gpu;
  } while (all_gpus && gpu < gpu_count);

  int rc = kExitOk;
  for (const auto& r : reports) {
    int code = verify_exit_code(r);
    if (code == kExitProblems || (code == kExitNoGpu && rc == kExitOk)) rc = code;
  }
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (ctx.options.json) {
    json runs = json::array();
    for (const auto& r : reports) runs.push_back(verify_report_to_json(r));
    json out{{"schema", "cudnnup.verify/1"}, {"copy", reports.front().copy}, {"lib_dir", loc->lib_dir},
             {"runs", runs}, {"exit_code", rc}, {"seconds", total}};
    std::cout << dump_json(out, 2) << std::endl;
  } else {
    for (const auto& r : reports) std::cout << render_verify_text(r, ctx.color, ctx.options.quiet);
  }
  return rc;
}

}  // namespace

void add_verify_command(CLI::App& app, CommandAction& action) {
  static VerifyOptions opt;
  auto* cmd = app.add_subcommand(
      "verify",
      "Check that a cuDNN copy works on this machine's GPU, stage by stage");
  cmd->footer(
      "Stages: toolkit (nvcc) -> headers (cudnn_version.h) -> library (the shim and every sub-library load from\n"
      "the copy's own directory, nothing mixed in) -> versions (header, library, CUDA runtime, driver and GPU\n"
      "agree) -> driver (a context on the GPU) -> handle (cudnnCreate) -> convolutions forward, backward-data and\n"
      "backward-filter in fp32, fp16 and bf16, NCHW and NHWC, each compared with a CPU reference -> teardown.\n"
      "Each stage passes, fails (with the evidence and a fix) or is skipped. The GPU work runs in a child\n"
      "process, so a crashing library is reported, not fatal.\n\n"
      "Examples:\n"
      "  cudnnup verify --copy /usr/local/cuda-13.0/lib64\n"
      "  cudnnup verify --copy ~/.venv/lib/python3.12/site-packages/nvidia/cudnn --json\n\n"
      "Exit codes: 0 every stage passed or was skipped; 1 a stage failed; 2 bad arguments;\n"
      "3 no NVIDIA driver/GPU here (everything before the driver stage passed).");
  cmd->add_option("--copy", opt.copy,
                  "The cuDNN copy: its lib directory, its root (lib/, lib64/, bin/ are tried) or the shim file. "
                  "Default: the first copy in CUDNN_PATH, CUDA_HOME, /usr/local/cuda/lib64, /usr/lib/<triplet>");
  cmd->add_option("--version", opt.version, "Verify the installed copy of this cuDNN version (needs doctor's copy list)");
  cmd->add_option("--gpu", opt.gpu, "GPU number to test, or 'all' (default 0)");
  cmd->add_option("--libcuda", opt.libcuda, "Use this CUDA driver library instead of searching the usual places");
  cmd->add_option("--timeout", opt.timeout_s, "Seconds before a hanging child is stopped (default 120)");
  cmd->callback([&action] { action = [](AppContext& ctx) { return run_verify(ctx, opt); }; });

  static ChildOptions child;
  auto* hidden = app.add_subcommand("__verify-child", "");
  hidden->group("");
  hidden->add_option("--lib-dir", child.lib_dir)->required();
  hidden->add_option("--gpu", child.gpu);
  hidden->add_option("--libcuda", child.libcuda);
  hidden->add_option("--header-version", child.header_version);
  hidden->add_option("--toolkit-version", child.toolkit_version);
  hidden->callback([&action] { action = [](AppContext& ctx) { return verify_child(ctx, child); }; });
}

}  // namespace cudnnup
