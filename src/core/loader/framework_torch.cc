// PyTorch on Linux.
//
// Loading (torch/__init__.py _load_global_deps):
//   * every version: CDLL(torch/lib/libtorch_global_deps.so, RTLD_GLOBAL); when that fails over
//     a CUDA library, _preload_cuda_deps() loads nvidia/<lib>/lib/<pattern> (cuDNN:
//     libcudnn.so.*[0-9]) from the FIRST sys.path entry that has it, with ctypes' default
//     RTLD_LOCAL, and retries (torch <= 2.5, as annotated copies show; unchanged since);
//   * 2.6 - 2.9: on success only nvjitlink and nvrtc are preloaded (PRs #141063, #145582);
//   * from 2.10 (PR #167046, "always preload full set of libraries"): on success too, whenever a
//     libcudart.so is mapped, the full list is preloaded, cuDNN included.
// Then `import torch._C` maps torch/_C*.so, whose DT_NEEDED tree reaches lib/libtorch_cuda.so and
// libcudnn.so.9 under the wheels' DT_RPATH $ORIGIN/../../nvidia/cudnn/lib.
//
// Its check (torch/backends/cudnn/__init__.py _init(), unchanged since PR #7062, 2018): same
// major, runtime minor >= compile minor (ROCm: exact); PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1
// skips it (PR #89184, torch 2.0+): _init() then returns True, so the pair passes as the code
// applies it.
#include "base/path_glob.h"
#include "base/paths.h"
#include "loader/cudnn_load_model.h"
#include "loader/framework_support.h"

namespace cudnnup::framework {
namespace {

bool libcudart_mapped(const LoaderSimulation& sim) {
  for (const auto& o : sim.objects()) {
    if (std::string(paths::basename(o.canonical)).rfind("libcudart.so", 0) == 0) return true;
  }
  return false;
}

void read_torch_build(const FileSystem& fs, const std::string& site, FrameworkReport& rep) {
  std::string root = paths::join(site, "torch");
  if (auto text = read_text(fs, paths::join(root, "version.py"))) {
    rep.version = python_string(*text, "__version__").value_or("");
    rep.cuda_version = python_string(*text, "cuda").value_or("");
  }
  if (auto di = dist_info(fs, site, "torch")) {
    if (rep.version.empty()) rep.version = dist_version(*di);
    if (auto meta = read_text(fs, paths::join(*di, "METADATA"))) {
      if (auto pin = find_cudnn_pin(*meta)) {
        rep.built_cudnn = pin->version.truncated(3);
        rep.built_cudnn_source = std::string(paths::basename(*di)) + "/METADATA: " + pin->line;
        if (pin->op != "==") rep.notes.push_back("the wheel does not pin cuDNN exactly (" + pin->line + ")");
      }
    }
  }
}

// torch's _preload_cuda_deps for cuDNN: the first sys.path entry with the wheel's library.
void preload_pip_cudnn(const FileSystem& fs, const Environment& env, const PythonEnv& pe, LoaderSimulation& sim,
                       FrameworkReport& rep, const std::string& why) {
  std::string file = first_pip_cudnn(fs, python_sys_path(env, pe), "libcudnn.so.*[0-9]");
  if (file.empty()) {
    rep.notes.push_back(why + ", but no sys.path entry has nvidia/cudnn/lib/libcudnn.so.*[0-9]");
    return;
  }
  python_loads(sim, file);
  rep.notes.push_back(why + ": preloads " + file + " (the first sys.path entry with nvidia/cudnn/lib)");
}

}  // namespace

void set_torch_rule(FrameworkReport& rep) {
  rep.rule = "same major, runtime minor >= compile minor (PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1 skips it)";
  rep.rule_source = "torch/backends/cudnn/__init__.py _init() (since torch 0.4.1, PR #7062)";
}

void apply_torch_skip(const Environment& env, FrameworkReport& rep) {
  // _init() returns True before raising when the variable is "1": the version rule no longer
  // stops torch. cuDNN's own sub-library check, and a load that finds nothing, still do.
  bool rule_failed = rep.passes == false && rep.built_cudnn && rep.loaded_cudnn && rep.load &&
                     rep.load->resolution.found &&
                     !(rep.load->cudnn && rep.load->cudnn->check == CudnnCheck::kFails);
  if (env.get("PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK").value_or("") == "1" && rule_failed) {
    rep.passes = true;
    rep.verdict = "runs only because PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1 skips its check: built for cuDNN " +
                  rep.built_cudnn->str() + ", would load " + rep.loaded_cudnn->str() + " from " +
                  paths::parent(rep.load->resolution.canonical) + ", which the check refuses";
    rep.notes.push_back("PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1 is set: PyTorch skips its own version check");
  }
}

FrameworkReport inspect_torch(const FileSystem& fs, const Environment& env, const LoaderSystem& sys, const PythonEnv& pe,
                              const std::string& site) {
  FrameworkReport rep;
  rep.framework = "torch";
  read_torch_build(fs, site, rep);
  set_torch_rule(rep);
  std::string root = paths::join(site, "torch");
  std::string lib = paths::join(root, "lib");
  std::string torch_cuda = paths::join(lib, "libtorch_cuda.so");
  if (!fs.exists(torch_cuda)) {
    rep.verdict = rep.cuda_version.empty() ? "a CPU-only build: it does not load cuDNN" : "torch/lib/libtorch_cuda.so is missing";
    return rep;
  }
  rep.loading_library = torch_cuda;
  LoaderSimulation sim = start_python(fs, sys, pe, rep.notes);
  auto v = version_prefix(rep.version);
  bool preloads_always = v && *v >= Version{2, 10};
  std::string global_deps = paths::join(lib, "libtorch_global_deps.so");
  if (fs.exists(global_deps)) {
    python_loads(sim, global_deps, true);
    if (any_unresolved_needed(sim)) {
      preload_pip_cudnn(fs, env, pe, sim, rep, "libtorch_global_deps.so has an unresolved dependency, so torch/__init__.py "
                                              "_preload_cuda_deps() runs");
    } else if (preloads_always && libcudart_mapped(sim)) {
      preload_pip_cudnn(fs, env, pe, sim, rep, "torch >= 2.10 preloads the CUDA libraries whenever libcudart is mapped "
                                              "(PR #167046)");
    }
  }
  // import torch._C: its DT_NEEDED tree reaches libtorch_cuda.so, which needs libcudnn.so.N.
  if (auto entries = fs.list_dir(root)) {
    for (const auto& e : *entries) {
      if (e.name.rfind("_C.", 0) == 0 && e.name.size() > 3 && e.name.compare(e.name.size() - 3, 3, ".so") == 0) {
        python_loads(sim, paths::join(root, e.name));
        break;
      }
    }
  }
  int caller = python_loads(sim, torch_cuda);
  int major = needed_cudnn_major(sim, caller);
  if (major == 0) major = rep.built_cudnn ? rep.built_cudnn->major() : 9;
  finish_load(fs, sim, rep, pe, major, caller);
  if (!rep.built_cudnn) {
    // Wheels that bundle cuDNN in torch/lib (older releases) were built for that copy.
    for (const auto& f : expand_glob(fs, paths::join(lib, "libcudnn.so.*[0-9]"))) {
      if (auto bundled = cudnn_copy_version(fs, f, nullptr)) {
        rep.built_cudnn = bundled;
        rep.built_cudnn_source = "bundled " + f;
      }
    }
  }
  judge(rep, true);
  apply_torch_skip(env, rep);
  return rep;
}

}  // namespace cudnnup::framework
