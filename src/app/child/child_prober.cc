#include "app/child/child_prober.h"

#include <nlohmann/json.hpp>

#include <future>
#include <optional>

#include "platform/process.h"

namespace cudnnup {
namespace {

using nlohmann::json;

// Runs `cudnnup __probe ...`; returns the JSON it printed, or a description of how it failed.
// `env`: the child's variables (nullopt: ours).
Result<json> run_probe(const std::vector<std::string>& args, int timeout_ms,
                       std::optional<std::map<std::string, std::string>> env = std::nullopt) {
  std::vector<std::string> argv = {self_executable_path(), "__probe"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions options;
  options.timeout_ms = timeout_ms;
  options.env = std::move(env);
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

std::map<std::string, std::string> isolated_probe_environment(const Environment& env, const std::string& lib_dir) {
  std::map<std::string, std::string> vars;
  for (const auto& [name, value] : env.vars) {
    if (env.windows() || name.rfind("LD_", 0) != 0) vars[name] = value;
  }
  if (!env.windows()) vars["LD_LIBRARY_PATH"] = lib_dir;
  return vars;
}

LibraryProbe ChildProber::probe_cudnn(const ProbeRequest& request) {
  const std::string& library_path = request.library_path;
  LibraryProbe probe;
  probe.attempted = true;
  std::vector<std::string> args = {"cudnn", library_path};
  if (!request.lib_dir.empty()) args.insert(args.end(), {"--lib-dir", request.lib_dir});
  auto out = run_probe(args, timeout_ms_, isolated_probe_environment(env_, request.lib_dir));
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
  for (const auto& m : j.value("mapped", json::array())) {
    if (m.is_string()) probe.mapped_files.push_back(m.get<std::string>());
  }
  if (j.contains("search_error") && j["search_error"].is_string()) {  // Windows: the safe search was refused
    probe.isolated = false;
    probe.isolation_problem = "could not be probed in isolation: " + j["search_error"].get<std::string>();
  }
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
