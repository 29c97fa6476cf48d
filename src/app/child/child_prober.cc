#include "app/child/child_prober.h"

#include <climits>
#include <future>
#include <optional>

#include "base/json_reader.h"
#include "platform/process.h"

namespace cudnnup {
namespace {

// Runs `cudnnup __probe ...`; returns what it printed, or a description of how it failed. The
// child loads a library that anyone may have built, and that library can print too: its output
// is read with types checked (base/json_reader.h).
Result<std::string> run_probe(const std::vector<std::string>& args, int timeout_ms) {
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
  return result->out;
}

constexpr const char* kProbeOutput = "the probe's output";

}  // namespace

LibraryProbe ChildProber::probe_cudnn(const std::string& library_path) {
  LibraryProbe probe;
  probe.attempted = true;
  auto out = run_probe({"cudnn", library_path}, timeout_ms_);
  if (!out) {
    probe.failure = "loading " + library_path + ": " + out.error().message;
    return probe;
  }
  JsonReader reader(kProbeOutput);
  JsonValue j = reader.parse_object(*out);
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
  std::vector<std::string> args = {"driver"};
  if (!libcuda_path.empty()) args.insert(args.end(), {"--cuda", libcuda_path});
  if (!nvml_path.empty()) args.insert(args.end(), {"--nvml", nvml_path});
  auto out = run_probe(args, timeout_ms_);
  if (!out) {
    info.problem = out.error().message;
    return info;
  }
  JsonReader reader(kProbeOutput);
  JsonValue j = reader.parse_object(*out);
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
