#include "app/child/child_prober.h"

#include <climits>
#include <future>
#include <map>
#include <optional>

#include "app/child/child_runner.h"
#include "base/json_reader.h"
#include "base/result.h"
#include "child/loader_environment.h"
#include "child/mapped_files.h"

namespace cudnnup {
namespace {

using nlohmann::json;

// Runs one probe task in a child; returns its answer, or a description of how it failed, worded
// as doctor has always shown it ("the probe process crashed (killed by signal 11, ...)").
// `env`: the child's whole environment (unset: ours).
Result<json> run_probe(const std::string& task, json request, int timeout_ms, std::vector<std::string>* mapped,
                       std::optional<std::map<std::string, std::string>> env = std::nullopt) {
  ChildRunOptions options;
  options.timeout_ms = timeout_ms;
  options.env = std::move(env);
  options.required_stages = {"probe"};
  options.what = "the probe process";
  ChildRun run = run_child(task, std::move(request), options);
  if (run.problem) {
    // A crash or hang keeps the words doctor's findings key on ("crashed", "did not finish").
    std::string why = run.problem->crashed && run.end.started ? "the probe process " + run.end.how : run.problem->summary;
    if (!run.end.printed.empty()) why += ": " + run.end.printed.substr(0, 500);
    return make_error(run.problem->crashed ? ErrorCode::kIo : ErrorCode::kInternal, why);
  }
  const json* answer = run.transcript.result();
  if (!answer || !answer->is_object()) return make_error(ErrorCode::kInternal, "the probe reported no result");
  if (mapped) {
    for (auto& [when, files] : run.transcript.module_snapshots()) *mapped = files;
  }
  return *answer;
}

constexpr const char* kProbeOutput = "the probe's output";

}  // namespace

LibraryProbe ChildProber::probe_cudnn(const ProbeRequest& request) {
  const std::string& library_path = request.library_path;
  LibraryProbe probe;
  probe.attempted = true;
  // Isolated: the copy's own loader environment, so the shim's by-name loads of its sub-libraries
  // find this copy's files and no other (doctor::attribute_probe checks that they did).
  std::vector<std::string> mapped;
  auto out = run_probe("probe-cudnn", json{{"library", library_path}, {"isolated", true}}, timeout_ms_, &mapped,
                       child_loader_environment(env_, request.lib_dir));
  // Only the cuDNN files are kept: they decide whose answer it was.
  for (const auto& f : attribute_cudnn_files(mapped, {}, env_.windows())) probe.mapped_files.push_back(f.path);
  if (!out) {
    probe.failure = "loading " + library_path + ": " + out.error().message;
    return probe;
  }
  JsonReader reader(kProbeOutput);
  JsonValue j = reader.read_object(std::move(*out));
  bool loaded = j.boolean("loaded", false);
  std::string error = j.string("error", "unknown load error");
  long long version = j.integer("version", 0, 0, LLONG_MAX);
  std::optional<long long> cudart;
  if (j.has("cudart_version")) cudart = j.integer("cudart_version", 0, 0, LLONG_MAX);
  long long max_device = j.integer("max_device_version", 0, LLONG_MIN, LLONG_MAX);
  if (!reader.ok()) {
    probe.failure = "loading " + library_path + ": " + reader.status().error().message;
    return probe;
  }
  probe.loaded = loaded;
  if (!probe.loaded) {
    probe.failure = error;
    return probe;
  }
  probe.version_number = version;
  probe.version = decode_cudnn_version_number(probe.version_number);
  if (cudart) probe.cudart_version = decode_cuda_version_number(*cudart);
  probe.max_device_version = max_device;
  return probe;
}

std::vector<LibraryProbe> ChildProber::probe_cudnn_all(const std::vector<ProbeRequest>& requests) {
  std::vector<LibraryProbe> out(requests.size());
  for (size_t start = 0; start < requests.size(); start += kParallel) {
    std::vector<std::future<LibraryProbe>> batch;
    for (size_t i = start; i < std::min(requests.size(), start + kParallel); ++i) {
      batch.push_back(std::async(std::launch::async, [this, &requests, i] { return probe_cudnn(requests[i]); }));
    }
    for (size_t i = 0; i < batch.size(); ++i) out[start + i] = batch[i].get();
  }
  return out;
}

namespace {

std::string driver_problems(const JsonValue& j) {
  std::string problems;
  for (const char* key : {"nvml_error", "cuda_error", "cuda_init_error_text"}) {
    std::string text = j.string(key);
    if (!text.empty()) problems += (problems.empty() ? "" : "; ") + text;
  }
  if (j.has("cuda_init_error") && !j.has("cuda_init_error_text")) {
    problems += (problems.empty() ? "" : "; ") + std::string("cuInit failed with code ") +
                std::to_string(j.integer("cuda_init_error", 0, INT_MIN, INT_MAX));
  }
  return problems;
}

}  // namespace

DriverInfo ChildProber::probe_driver(const std::string& libcuda_path, const std::string& nvml_path) {
  DriverInfo info;
  auto out = run_probe("probe-driver", json{{"cuda", libcuda_path}, {"nvml", nvml_path}}, timeout_ms_, nullptr);
  if (!out) {
    info.problem = out.error().message;
    return info;
  }
  JsonReader reader(kProbeOutput);
  JsonValue j = reader.read_object(std::move(*out));
  if (j.has("driver_version")) {
    info.version_text = j.string("driver_version");
    info.version = Version::parse(info.version_text).value_or(Version{});
    info.source = "nvml";
  }
  if (j.has("cuda_driver_version")) {
    info.cuda_version = decode_cuda_version_number(j.integer("cuda_driver_version", 0, 0, INT_MAX));
    if (info.source.empty()) info.source = "cuda driver api";
  }
  for (const auto& g : j.array("gpus")) {
    Gpu gpu;
    gpu.index = static_cast<int>(g.integer("index", 0, 0, INT_MAX));
    gpu.name = g.string("name");
    gpu.compute_capability = Version::parse(g.string("compute_capability")).value_or(Version{});
    gpu.memory_bytes = g.unsigned_integer("memory_bytes", 0);
    info.gpus.push_back(gpu);
  }
  info.problem = driver_problems(j);
  if (!reader.ok()) info.problem += (info.problem.empty() ? "" : "; ") + reader.status().error().message;
  return info;
}

}  // namespace cudnnup
