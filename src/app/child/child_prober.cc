#include "app/child/child_prober.h"

#include <climits>
#include <deque>
#include <memory>
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

ChildRunOptions probe_options(int timeout_ms, std::optional<std::map<std::string, std::string>> env) {
  ChildRunOptions options;
  options.timeout_ms = timeout_ms;
  options.env = std::move(env);
  options.required_stages = {"probe"};
  options.what = "the probe process";
  return options;
}

// The answer of one probe child, or a description of how it failed, worded as doctor has always
// shown it ("the probe process crashed (killed by signal 11, ...)"). `mapped`: the files it had
// mapped when it last reported them.
Result<json> probe_answer(const ChildRun& run, std::vector<std::string>* mapped) {
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

// Isolated: the copy's own loader environment, so the shim's by-name loads of its sub-libraries
// find this copy's files and no other (doctor::attribute_probe checks that they did).
StartedChild ChildProber::start_probe(const ProbeRequest& request) const {
  return start_child("probe-cudnn", json{{"library", request.library_path}, {"isolated", true}},
                     probe_options(timeout_ms_, child_loader_environment(env_, request.lib_dir)));
}

LibraryProbe ChildProber::finish_probe(const ProbeRequest& request, StartedChild&& child) const {
  const std::string& library_path = request.library_path;
  LibraryProbe probe;
  probe.attempted = true;
  std::vector<std::string> mapped;
  auto out = probe_answer(finish_child(std::move(child)), &mapped);
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

LibraryProbe ChildProber::probe_cudnn(const ProbeRequest& request) { return finish_probe(request, start_probe(request)); }

std::vector<LibraryProbe> ChildProber::probe_cudnn_all(const std::vector<ProbeRequest>& requests) {
  return start_cudnn_probes(requests)();
}

// Up to kParallel children run at once; as each is read, the next request starts.
std::function<std::vector<LibraryProbe>()> ChildProber::start_cudnn_probes(const std::vector<ProbeRequest>& requests) {
  struct Pending {
    std::vector<ProbeRequest> requests;
    std::deque<StartedChild> running;  // requests[done], requests[done + 1], ...
    size_t started = 0;
  };
  auto pending = std::make_shared<Pending>();
  pending->requests = requests;
  auto start_next = [this, pending] {
    pending->running.push_back(start_probe(pending->requests[pending->started]));
    ++pending->started;
  };
  while (pending->started < pending->requests.size() && pending->running.size() < kParallel) start_next();
  return [this, pending, start_next] {
    std::vector<LibraryProbe> out;
    for (const auto& request : pending->requests) {
      StartedChild child = std::move(pending->running.front());
      pending->running.pop_front();
      if (pending->started < pending->requests.size()) start_next();
      out.push_back(finish_probe(request, std::move(child)));
    }
    return out;
  };
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

DriverInfo driver_from_child(const ChildRun& run) {
  DriverInfo info;
  auto out = probe_answer(run, nullptr);
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

}  // namespace

DriverInfo ChildProber::probe_driver(const std::string& libcuda_path, const std::string& nvml_path) {
  return start_driver_probe(libcuda_path, nvml_path)();
}

std::function<DriverInfo()> ChildProber::start_driver_probe(const std::string& libcuda_path, const std::string& nvml_path) {
  auto child = std::make_shared<StartedChild>(start_child(
      "probe-driver", json{{"cuda", libcuda_path}, {"nvml", nvml_path}}, probe_options(timeout_ms_, std::nullopt)));
  return [child] { return driver_from_child(finish_child(std::move(*child))); };
}

}  // namespace cudnnup
