// The child side of doctor's probes (tasks "probe-cudnn" and "probe-driver", app/child/child_tasks.h).
// The parent (app/child/child_prober.cc) starts them in a separate process so a library that
// crashes or hangs while loading cannot take cudnnup down. Each reports one "result" event: the
// JSON object below. probe-cudnn also reports every file the process mapped.
#include <nlohmann/json.hpp>

#include "app/child/child_tasks.h"
#include "app/cli/exit_codes.h"
#include "gpu/nvidia_api.h"
#include "platform/dynamic_library.h"
#include "base/json_text.h"

namespace cudnnup {
namespace {

using nlohmann::json;

json probe_cudnn(const std::string& path, ChildEvents& events) {
  json out;
  out["path"] = path;
  events.note("loading " + path);
  auto lib = DynamicLibrary::open(path);
  if (!lib) {
    out["loaded"] = false;
    out["error"] = lib.error().message;
    return out;
  }
  out["loaded"] = true;
  if (auto get_version = lib->function<nv::cudnnGetVersion_t>("cudnnGetVersion")) {
    out["version"] = static_cast<long long>(get_version());
  }
  if (auto get_cudart = lib->function<nv::cudnnGetCudartVersion_t>("cudnnGetCudartVersion")) {
    out["cudart_version"] = static_cast<long long>(get_cudart());
  }
  if (auto get_max_device = lib->function<nv::cudnnGetMaxDeviceVersion_t>("cudnnGetMaxDeviceVersion")) {
    out["max_device_version"] = static_cast<long long>(get_max_device());
  }
  lib->leak();  // unloading cuDNN at exit has crashed in the field; the process ends anyway
  return out;
}

void probe_cuda_driver(const std::string& path, json& out) {
  auto lib = DynamicLibrary::open(path);
  if (!lib) {
    out["cuda_error"] = lib.error().message;
    return;
  }
  auto cu_init = lib->function<nv::cuInit_t>("cuInit");
  auto get_version = lib->function<nv::cuDriverGetVersion_t>("cuDriverGetVersion");
  if (get_version) {
    int v = 0;
    if (get_version(&v) == 0) out["cuda_driver_version"] = v;
  }
  if (!cu_init) return;
  int rc = cu_init(0);
  if (rc != 0) {
    out["cuda_init_error"] = rc;
    if (auto err = lib->function<nv::cuGetErrorString_t>("cuGetErrorString")) {
      const char* text = nullptr;
      if (err(rc, &text) == 0 && text) out["cuda_init_error_text"] = text;
    }
    lib->leak();
    return;
  }
  auto count_fn = lib->function<nv::cuDeviceGetCount_t>("cuDeviceGetCount");
  auto get_dev = lib->function<nv::cuDeviceGet_t>("cuDeviceGet");
  auto get_name = lib->function<nv::cuDeviceGetName_t>("cuDeviceGetName");
  auto get_attr = lib->function<nv::cuDeviceGetAttribute_t>("cuDeviceGetAttribute");
  auto total_mem = lib->function<nv::cuDeviceTotalMem_t>("cuDeviceTotalMem_v2");
  int count = 0;
  if (count_fn && count_fn(&count) == 0) {
    json gpus = json::array();
    for (int i = 0; i < count; ++i) {
      nv::CUdevice dev = 0;
      if (!get_dev || get_dev(&dev, i) != 0) continue;
      json g;
      g["index"] = i;
      char name[256] = {0};
      if (get_name && get_name(name, sizeof name - 1, dev) == 0) g["name"] = name;
      int major = 0, minor = 0;
      if (get_attr) {
        get_attr(&major, nv::kCuDeviceAttributeComputeCapabilityMajor, dev);
        get_attr(&minor, nv::kCuDeviceAttributeComputeCapabilityMinor, dev);
      }
      g["compute_capability"] = std::to_string(major) + "." + std::to_string(minor);
      size_t bytes = 0;
      if (total_mem && total_mem(&bytes, dev) == 0) g["memory_bytes"] = static_cast<unsigned long long>(bytes);
      gpus.push_back(g);
    }
    out["gpus"] = gpus;
  }
  lib->leak();
}

void probe_nvml(const std::string& path, json& out) {
  auto lib = DynamicLibrary::open(path);
  if (!lib) {
    out["nvml_error"] = lib.error().message;
    return;
  }
  auto init = lib->function<nv::nvmlInit_t>("nvmlInit_v2");
  auto version = lib->function<nv::nvmlSystemGetDriverVersion_t>("nvmlSystemGetDriverVersion");
  auto shutdown = lib->function<nv::nvmlShutdown_t>("nvmlShutdown");
  if (!init || !version) {
    out["nvml_error"] = "the library lacks nvmlInit_v2/nvmlSystemGetDriverVersion";
    return;
  }
  int rc = init();
  if (rc != 0) {
    out["nvml_error"] = "nvmlInit failed with code " + std::to_string(rc);
    if (auto err = lib->function<nv::nvmlErrorString_t>("nvmlErrorString")) out["nvml_error"] = err(rc);
    lib->leak();
    return;
  }
  char text[96] = {0};
  if (version(text, sizeof text) == 0) out["driver_version"] = text;
  if (auto cuda = lib->function<nv::nvmlSystemGetCudaDriverVersion_t>("nvmlSystemGetCudaDriverVersion")) {
    int v = 0;
    if (cuda(&v) == 0) out["cuda_driver_version"] = v;
  }
  // The GPUs from NVML: much cheaper than the driver API, whose cuInit takes a few hundred ms.
  auto count_fn = lib->function<nv::nvmlDeviceGetCount_t>("nvmlDeviceGetCount_v2");
  auto handle_fn = lib->function<nv::nvmlDeviceGetHandleByIndex_t>("nvmlDeviceGetHandleByIndex_v2");
  auto name_fn = lib->function<nv::nvmlDeviceGetName_t>("nvmlDeviceGetName");
  auto cc_fn = lib->function<nv::nvmlDeviceGetCudaComputeCapability_t>("nvmlDeviceGetCudaComputeCapability");
  auto mem_fn = lib->function<nv::nvmlDeviceGetMemoryInfo_t>("nvmlDeviceGetMemoryInfo");
  unsigned int count = 0;
  if (count_fn && handle_fn && cc_fn && count_fn(&count) == 0) {
    json gpus = json::array();
    for (unsigned int i = 0; i < count; ++i) {
      nv::nvmlDevice_t dev = nullptr;
      if (handle_fn(i, &dev) != 0) continue;
      json g;
      g["index"] = i;
      char name[256] = {0};
      if (name_fn && name_fn(dev, name, sizeof name - 1) == 0) g["name"] = name;
      int major = 0, minor = 0;
      if (cc_fn(dev, &major, &minor) == 0) g["compute_capability"] = std::to_string(major) + "." + std::to_string(minor);
      nv::NvmlMemory mem{};
      if (mem_fn && mem_fn(dev, &mem) == 0) g["memory_bytes"] = mem.total;
      gpus.push_back(g);
    }
    out["gpus"] = gpus;
  }
  if (shutdown) shutdown();
  lib->leak();
}

}  // namespace

int probe_cudnn_task(AppContext&, const json& request, ChildEvents& events) {
  const std::string path = request.value("library", "");
  events.start("probe");
  json out = probe_cudnn(path, events);
  events.modules("after loading " + path);
  events.end("probe", json::object());
  events.result(out);
  events.done();
  return kExitOk;
}

int probe_driver_task(AppContext&, const json& request, ChildEvents& events) {
  const std::string cuda_path = request.value("cuda", ""), nvml_path = request.value("nvml", "");
  json out = json::object();
  events.start("probe");
  if (!nvml_path.empty()) {
    events.note("asking NVML " + nvml_path);
    probe_nvml(nvml_path, out);
  }
  // The driver API only when NVML could not list the GPUs (no NVML, or it failed): cuInit is
  // the slowest thing doctor would do.
  if (!cuda_path.empty() && !out.contains("gpus")) {
    events.note("asking the CUDA driver " + cuda_path);
    probe_cuda_driver(cuda_path, out);
  }
  events.end("probe", json::object());
  events.result(out);
  events.done();
  return kExitOk;
}

}  // namespace cudnnup
