#include "app/child/child_prober.h"

#include <nlohmann/json.hpp>

#include <future>

#include "platform/process.h"

namespace cudnnup {
namespace {

using nlohmann::json;

// Runs `cudnnup __probe ...`; returns the JSON it printed, or a description of how it failed.
Result<json> run_probe(const std::vector<std::string>& args, int timeout_ms) {
  std::vector<std::string> argv = {self_executable_path(), "__probe"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions options;
  options.timeout_ms = timeout_ms;
  auto result = run_process(argv, options);
  if (!result) return result.error();
  if (!result->exited_normally() || result->exit_code != 0) {
    std::string why = "the probe process " + result->describe_failure();
    if (!result->err.empty()) why += ": " + result->err.substr(0, 500);
    return make_error(ErrorCode::kIo, why);
  }
  auto doc = json::parse(result->out, nullptr, false);
  if (doc.is_discarded()) return make_error(ErrorCode::kInternal, "the probe printed no JSON");
  return doc;
}

}  // namespace

LibraryProbe ChildProber::probe_cudnn(const std::string& library_path) {
  LibraryProbe probe;
  probe.attempted = true;
  auto out = run_probe({"cudnn", library_path}, timeout_ms_);
  if (!out) {
    probe.failure = "loading " + library_path + ": " + out.error().message;
    return probe;
  }
  const json& j = *out;
  probe.loaded = j.value("loaded", false);
  if (!probe.loaded) {
    probe.failure = j.value("error", std::string("unknown load error"));
    return probe;
  }
  probe.version_number = j.value("version", 0LL);
  probe.version = decode_cudnn_version_number(probe.version_number);
  if (j.contains("cudart_version")) probe.cudart_version = decode_cuda_version_number(j["cudart_version"].get<long long>());
  probe.max_device_version = j.value("max_device_version", 0LL);
  return probe;
}

std::vector<LibraryProbe> ChildProber::probe_cudnn_all(const std::vector<std::string>& library_paths) {
  std::vector<LibraryProbe> out(library_paths.size());
  for (size_t start = 0; start < library_paths.size(); start += kParallel) {
    std::vector<std::future<LibraryProbe>> batch;
    for (size_t i = start; i < std::min(library_paths.size(), start + kParallel); ++i) {
      batch.push_back(std::async(std::launch::async, [this, &library_paths, i] { return probe_cudnn(library_paths[i]); }));
    }
    for (size_t i = 0; i < batch.size(); ++i) out[start + i] = batch[i].get();
  }
  return out;
}

DriverInfo ChildProber::probe_driver(const std::string& libcuda_path, const std::string& nvml_path) {
  DriverInfo info;
  std::vector<std::string> args = {"driver"};
  if (!libcuda_path.empty()) args.insert(args.end(), {"--cuda", libcuda_path});
  if (!nvml_path.empty()) args.insert(args.end(), {"--nvml", nvml_path});
  auto out = run_probe(args, timeout_ms_);
  if (!out) {
    info.problem = out.error().message;
    return info;
  }
  const json& j = *out;
  if (j.contains("driver_version")) {
    info.version_text = j["driver_version"].get<std::string>();
    info.version = Version::parse(info.version_text).value_or(Version{});
    info.source = "nvml";
  }
  if (j.contains("cuda_driver_version")) {
    info.cuda_version = decode_cuda_version_number(j["cuda_driver_version"].get<int>());
    if (info.source.empty()) info.source = "cuda driver api";
  }
  for (const auto& g : j.value("gpus", json::array())) {
    Gpu gpu;
    gpu.index = g.value("index", 0);
    gpu.name = g.value("name", std::string());
    gpu.compute_capability = Version::parse(g.value("compute_capability", std::string())).value_or(Version{});
    gpu.memory_bytes = g.value("memory_bytes", 0ULL);
    info.gpus.push_back(gpu);
  }
  std::string problems;
  for (const char* key : {"nvml_error", "cuda_error", "cuda_init_error_text"}) {
    if (j.contains(key) && j[key].is_string()) problems += (problems.empty() ? "" : "; ") + j[key].get<std::string>();
  }
  if (j.contains("cuda_init_error") && !j.contains("cuda_init_error_text")) {
    problems += (problems.empty() ? "" : "; ") + std::string("cuInit failed with code ") +
                std::to_string(j["cuda_init_error"].get<int>());
  }
  info.problem = problems;
  return info;
}

}  // namespace cudnnup
