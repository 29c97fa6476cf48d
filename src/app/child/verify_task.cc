// The verify child (task "verify", app/child/child_tasks.h): loads the copy, the driver and a GPU
// and reports one stage at a time (docs/commands/verify.md). Its parent (app/commands/cmd_verify.cc)
// gave it the copy's own loader environment; every file it maps is checked against the copy after
// loading, after the GPU stages and after teardown.
#include <chrono>

#include "adapters/cuda_driver_api.h"
#include "app/child/child_tasks.h"
#include "app/child/copy_loader.h"
#include "app/cli/exit_codes.h"
#include "gpu/verify_checks.h"
#include "gpu/verify_gpu.h"
#include "platform/system.h"

namespace cudnnup {

namespace {

using nlohmann::json;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct DriverSide {
  std::optional<CudaDriverApi> cuda;
  DriverFacts facts;
};

DriverSide load_driver(const FileSystem& fs, const std::string& libcuda, int gpu, ChildEvents& events) {
  DriverSide d;
  d.facts.gpu = gpu;
  d.facts.windows = host_os() == OsKind::kWindows;
  if (libcuda.empty()) return d;
  d.facts.libcuda_path = libcuda;
  if (!fs.exists(libcuda)) {
    d.facts.load_error = "no such file";
    return d;
  }
  events.note("loading " + libcuda);
  auto loaded = CudaDriverApi::load(libcuda);
  if (!loaded) {
    d.facts.load_error = loaded.error().message;
    return d;
  }
  d.cuda.emplace(std::move(loaded.value()));
  d.cuda->leak();
  events.note("calling cuInit");
  d.facts = query_driver(d.cuda->functions(), libcuda, gpu);
  d.facts.windows = host_os() == OsKind::kWindows;
  return d;
}

StageResult versions_stage(const LoadedCopy& copy, bool library_ok, const DriverFacts& facts, const json& request) {
  if (!library_ok) {
    return stage_skip("versions", "Versions agree (header, library, CUDA runtime, driver, GPU)",
                      "skipped: the library did not load");
  }
  const auto& fn = copy.api->functions();
  VersionFacts vf;
  if (auto h = request.value("header_version", ""); !h.empty()) vf.header = Version::parse(h);
  if (auto t = request.value("toolkit_version", ""); !t.empty()) vf.toolkit = Version::parse(t);
  vf.library_number = fn.GetVersion ? static_cast<long long>(fn.GetVersion()) : 0;
  vf.cudart_number = fn.GetCudartVersion ? static_cast<long long>(fn.GetCudartVersion()) : 0;
  vf.max_device_version = fn.GetMaxDeviceVersion ? static_cast<long long>(fn.GetMaxDeviceVersion()) : 0;
  vf.driver_cuda_number = facts.driver_cuda_number;
  vf.windows = copy.facts.windows;
  if (facts.gpu_found()) {
    vf.gpu_cc = Version{facts.cc_major, facts.cc_minor};
    vf.gpu_name = facts.gpu_name;
  }
  return check_versions(vf);
}

}  // namespace

int verify_task(AppContext& ctx, const json& request, ChildEvents& events) {
  const std::string lib_dir = request.value("lib_dir", "");
  const int gpu = request.value("gpu", 0);
  auto report = [&events](StageResult s, std::chrono::steady_clock::time_point t0) {
    s.seconds = seconds_since(t0);
    events.end(s.id, stage_to_json(s));
  };

  // --- library
  events.start("library");
  auto t0 = std::chrono::steady_clock::now();
  LoadedCopy copy = load_copy(ctx, lib_dir, [&events](const std::string& what) { events.note(what); });
  events.modules("after loading the copy");
  StageResult lib_stage = check_library_set(copy.facts);
  if (!copy.located) {
    lib_stage = stage_fail("library", "Library and sub-libraries load from the copy", copy.locate_error,
                           Finding{"verify.library.missing", Severity::kError, "library", "cuDNN library not found",
                                   "The path given is not a cuDNN copy.", {lib_dir},
                                   {fix::step("Point --copy at a cuDNN lib directory or copy root."),
                                    fix::cudnnup({"doctor"}, "lists the copies on this machine")}});
  }
  const bool library_ok = lib_stage.status == StageStatus::kPass && copy.api.has_value();
  report(lib_stage, t0);

  // --- driver facts (cuInit etc.), then versions
  DriverSide driver = load_driver(*ctx.fs, request.value("libcuda", ""), gpu, events);
  events.start("versions");
  t0 = std::chrono::steady_clock::now();
  StageResult versions = versions_stage(copy, library_ok, driver.facts, request);
  report(versions, t0);

  // --- GPU stages
  static const nv::CudaDriverFunctions no_driver;
  static const nv::CudnnFunctions no_cudnn;
  GpuSession session;
  session.cu = driver.cuda ? &driver.cuda->functions() : &no_driver;
  session.dnn = copy.api ? &copy.api->functions() : &no_cudnn;
  session.cudnn_major = copy.facts.major ? copy.facts.major : 9;
  std::string unusable;
  if (!library_ok) unusable = "the library stage failed";
  else if (versions.status == StageStatus::kFail) unusable = "the versions stage failed";
  std::vector<std::pair<std::string, std::vector<std::string>>> snapshots;
  std::string running;  // the stage that started and has not ended
  run_gpu_stages(driver.facts, session, default_conv_checks(), unusable,
                 [&](const std::string& id, const StageResult* r) {
                   if (!r) {
                     // cuDNN loads engine libraries as it needs them: look again before teardown.
                     if (id == "teardown") snapshots.emplace_back("after the GPU stages", events.modules("after the GPU stages"));
                     events.start(running = id);
                     return;
                   }
                   if (running != id) events.start(id);  // a skipped stage starts and ends at once
                   running.clear();
                   events.end(id, stage_to_json(*r));
                 });
  snapshots.emplace_back("after teardown", events.modules("after teardown"));

  // --- modules: every cuDNN file mapped during the run came from the copy
  events.start("modules");
  t0 = std::chrono::steady_clock::now();
  StageResult modules = copy.located ? check_mapped_modules(copy.facts.lib_dir, copy.facts.windows, snapshots)
                                     : stage_skip("modules", "Every cuDNN file mapped during the run came from the copy",
                                                  "skipped: no copy was loaded");
  report(modules, t0);
  events.result({{"device_count", driver.facts.device_count}, {"gpu_name", driver.facts.gpu_name}});
  events.done();
  return kExitOk;
}

}  // namespace cudnnup
