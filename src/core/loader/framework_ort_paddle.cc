// ONNX Runtime and PaddlePaddle on Linux.
#include "base/paths.h"
#include "facts/cudnn_files.h"
#include "loader/cudnn_load_model.h"
#include "loader/framework_support.h"

namespace cudnnup::framework {
namespace {

// The cuDNN major a library was linked against: its DT_NEEDED libcudnn.so.N.
std::optional<Version> needed_major_of(const FileSystem& fs, const std::string& path, std::string* source) {
  auto info = fs.stat(path);
  if (!info) return std::nullopt;
  auto elf = parse_elf([&](uint64_t o, size_t n) { return fs.read_range(path, o, n); }, info->size);
  if (!elf) return std::nullopt;
  for (const auto& n : elf->needed) {
    if (!is_cudnn_shim_name(n)) continue;
    if (source) *source = "DT_NEEDED " + n + " of " + std::string(paths::basename(path));
    auto name = parse_cudnn_library_name(paths::basename(n));
    return name->version.known() ? name->version : Version{name->major};
  }
  return std::nullopt;
}

// A by-path dlopen that found a file: the answer, reported as such.
void finish_path_load(const FileSystem& fs, LoaderSimulation& sim, FrameworkReport& rep, const PythonEnv& pe,
                      const std::string& library, const Resolution& r, const std::string& how) {
  WhichReport base;
  base.library = library;
  base.target = rep.framework + " " + rep.version + (rep.variant.empty() ? "" : " (" + rep.variant + ")") + " in " + pe.prefix;
  base.target_kind = "framework";
  base.resolution = r;
  base.how_requested = how;
  rep.load = complete_which(fs, sim, std::move(base));
  set_loaded_version(fs, rep);
}

}  // namespace

void set_onnxruntime_rule(FrameworkReport& rep) {
  rep.rule = "same major (cuDNN 8 builds need 8, cuDNN 9 builds need 9); minors are not checked";
  rep.rule_source = "onnxruntime.ai docs, CUDA Execution Provider requirements";
}

// ONNX Runtime GPU. Without preload: ORT dlopen()s capi/libonnxruntime_providers_cuda.so by path
// when a session asks for CUDAExecutionProvider; the provider has no RPATH/RUNPATH (issues
// #11770, #25609) and DT_NEEDED libcudnn.so.9 (<= 1.20 also every sub-library, PR #23656), so an
// already-loaded libcudnn.so.9 (torch's), LD_LIBRARY_PATH, the cache and the default directories
// decide. With onnxruntime.preload_dlls() (onnxruntime/__init__.py, 1.21+, what ORT's install
// docs recommend for the pip CUDA/cuDNN wheels), ORT first loads
// <its site-packages>/nvidia/cudnn/lib/libcudnn.so.9 by path (else by name). Both answers are
// reported. Older wheels' capi/_ld_preload.py may CDLL("libcudnn.so.N", RTLD_GLOBAL) at import.
// Check: "ONNX Runtime built with cuDNN 8.x is not compatible with cuDNN 9.x, and vice versa"
// (onnxruntime.ai CUDA-ExecutionProvider docs); no minor check in its code.
std::vector<FrameworkReport> inspect_onnxruntime(const FileSystem& fs, const Environment& /*env*/, const LoaderSystem& sys,
                                                 const PythonEnv& pe, const std::string& site) {
  FrameworkReport rep;
  rep.framework = "onnxruntime";
  set_onnxruntime_rule(rep);
  std::string root = paths::join(site, "onnxruntime");
  for (const char* dist : {"onnxruntime_gpu", "onnxruntime"}) {
    if (auto di = dist_info(fs, site, dist)) {
      rep.version = dist_version(*di);
      break;
    }
  }
  for (const char* file : {"capi/version_info.py", "capi/build_and_package_info.py"}) {
    auto text = read_text(fs, paths::join(root, file));
    if (!text) continue;
    if (rep.cuda_version.empty()) rep.cuda_version = python_string(*text, "cuda_version").value_or("");
    if (auto c = python_string(*text, "cudnn_version"); c && !rep.built_cudnn) {
      rep.built_cudnn = Version::parse(*c);
      rep.built_cudnn_source = std::string("onnxruntime/") + file + ": cudnn_version '" + *c + "'";
    }
  }
  std::string provider = paths::join(root, "capi/libonnxruntime_providers_cuda.so");
  if (!fs.exists(provider)) {
    rep.verdict = "no CUDA execution provider (capi/libonnxruntime_providers_cuda.so): a CPU build";
    return {rep};
  }
  if (!rep.built_cudnn) rep.built_cudnn = needed_major_of(fs, provider, &rep.built_cudnn_source);
  rep.loading_library = provider;
  int major = rep.built_cudnn && rep.built_cudnn->major() > 0 ? rep.built_cudnn->major() : 9;
  std::string ld_preload = read_text(fs, paths::join(root, "capi/_ld_preload.py")).value_or("");
  bool import_preloads = ld_preload.find(cudnn_dev_link_name("cudnn")) != std::string::npos;
  bool has_preload_dlls = read_text(fs, paths::join(root, "__init__.py")).value_or("").find("def preload_dlls") != std::string::npos;

  std::vector<FrameworkReport> out;
  for (bool preload : {false, true}) {
    if (preload && !has_preload_dlls) break;
    FrameworkReport r = rep;
    r.variant = preload ? "after onnxruntime.preload_dlls()" : "";
    r.applies_when = preload ? "a program that calls onnxruntime.preload_dlls() before its first CUDA session "
                               "(ONNX Runtime >= 1.21; its docs recommend it for the pip CUDA and cuDNN wheels)"
                             : "a program that does not call onnxruntime.preload_dlls() (the default)";
    LoaderSimulation sim = start_python(fs, sys, pe, r.notes);
    std::string shim = cudnn_library_file_name("cudnn", major, false);
    if (import_preloads) {
      python_loads(sim, shim, true);
      r.notes.push_back("onnxruntime/capi/_ld_preload.py loads " + shim + " by name with RTLD_GLOBAL at import");
    }
    if (preload) {
      std::string wheel = paths::join(site, "nvidia/cudnn/lib/" + shim);
      python_loads(sim, fs.exists(wheel) ? wheel : shim);
      r.notes.push_back(fs.exists(wheel) ? "preload_dlls() loads " + wheel + " by path"
                                         : "preload_dlls() finds no " + wheel + " and loads " + shim + " by name");
    }
    int caller = python_loads(sim, provider);
    finish_load(fs, sim, r, pe, major, caller);
    judge(r, false);
    out.push_back(std::move(r));
  }
  return out;
}

// PaddlePaddle (paddle/phi/backends/dynload/dynamic_loader.cc GetCUDNNDsoHandle, and
// paddle/__init__.py). Pip-CUDA builds (paddle/version/__init__.py with_pip_cuda_libraries =
// 'ON', Linux x86_64) set FLAGS_cudnn_dir to <paddle>/../nvidia/cudnn/lib in __init__.py, over
// any value the user gave, and ask for libcudnn.so.9 when built with CUDA >= 12.3, else
// libcudnn.so.8; other builds ask for the unversioned libcudnn.so (the -dev link) and take
// FLAGS_cudnn_dir from the environment (PaddlePaddle/Paddle#33404). GetDsoHandleFromSearchPath tries, in
// order: dlopen(FLAGS_cudnn_dir/name), dlopen(name) from the library holding the loader (its
// RUNPATH $ORIGIN/../libs), dlopen(/usr/local/cuda/lib64/name).
// Check (paddle/phi/backends/gpu/gpu_resources.cc): an error only on Linux when BOTH the
// driver's CUDA major is below the build's and the cuDNN major is below the build's; a warning
// when the loaded version is below CUDNN_VERSION (patch level included); a newer major passes.
FrameworkReport inspect_paddle(const FileSystem& fs, const Environment& env, const LoaderSystem& sys, const PythonEnv& pe,
                              const std::string& site) {
  FrameworkReport rep;
  rep.framework = "paddle";
  rep.rule = "refuses to run only when the cuDNN major AND the driver's CUDA major are both below the build's; "
             "an older version otherwise only warns";
  rep.rule_source = "paddle/phi/backends/gpu/gpu_resources.cc InitGpuProperties / InitDnnHandle (Paddle 2.5+)";
  std::string root = paths::join(site, "paddle");
  std::string version_py = read_text(fs, paths::join(root, "version/__init__.py")).value_or("");
  rep.version = python_string(version_py, "full_version").value_or("");
  rep.cuda_version = python_string(version_py, "cuda_version").value_or("");
  if (auto c = python_string(version_py, "cudnn_version"); c && *c != "False") {
    rep.built_cudnn = Version::parse(*c);
    rep.built_cudnn_source = "paddle/version/__init__.py: cudnn_version '" + *c + "'";
  }
  if (!rep.built_cudnn) {
    rep.verdict = "not a CUDA build (paddle/version/__init__.py has no cudnn_version)";
    return rep;
  }
  bool pip_cuda = python_string(version_py, "with_pip_cuda_libraries").value_or("") == "ON";
  auto cuda = Version::parse(rep.cuda_version);
  std::string name = !pip_cuda ? cudnn_dev_link_name("cudnn")
                              : cudnn_library_file_name("cudnn", cuda && *cuda >= Version{12, 3} ? 9 : 8, false);
  std::string flags_dir = pip_cuda ? paths::normalize(paths::join(site, "nvidia/cudnn/lib")) : env.get("FLAGS_cudnn_dir").value_or("");
  std::string loader;
  for (const auto& candidate : {paths::join(root, "libs/libphi_core.so"), paths::join(root, "libs/libphi.so"),
                                paths::join(root, "base/libpaddle.so"), paths::join(root, "fluid/libpaddle.so")}) {
    if (loader.empty() && fs.exists(candidate)) loader = candidate;
  }
  if (loader.empty()) {
    rep.verdict = "none of its CUDA libraries is present (paddle/base/libpaddle.so)";
    return rep;
  }
  rep.loading_library = loader;
  rep.notes.push_back(pip_cuda ? "a pip-CUDA build: paddle/__init__.py sets FLAGS_cudnn_dir=" + flags_dir + "; it asks for " + name
                               : "not a pip-CUDA build: it asks for the unversioned " + name + " (a -dev link that runtime-only "
                                 "packages do not ship)");
  LoaderSimulation sim = start_python(fs, sys, pe, rep.notes);
  int caller = python_loads(sim, loader);
  std::vector<std::pair<std::string, int>> attempts;  // (name or path, caller object)
  if (!flags_dir.empty()) attempts.push_back({paths::join(flags_dir, name), caller});
  attempts.push_back({name, caller});
  attempts.push_back({"/usr/local/cuda/lib64/" + name, caller});
  Resolution r;
  std::string how;
  for (const auto& [what, from] : attempts) {
    r = sim.dlopen(what, from < 0 ? 0 : from);
    how = "dlopen(\"" + what + "\") from " + loader + " (GetDsoHandleFromSearchPath)";
    if (r.found) break;
  }
  finish_path_load(fs, sim, rep, pe, name, r, how);
  judge(rep, false);
  bool sub_check_fails = rep.load && rep.load->cudnn && rep.load->cudnn->check == CudnnCheck::kFails;
  if (sub_check_fails || !rep.loaded_cudnn || !rep.load || !rep.load->resolution.found) return rep;
  const Version& built = *rep.built_cudnn;
  const Version& loaded = *rep.loaded_cudnn;
  if (loaded.major() > built.major()) {
    rep.passes = true;
    rep.verdict = "ok: loads cuDNN " + loaded.str() + ", a newer major than its build's " + built.str() +
                  " (Paddle's check lets that pass)";
  } else if (loaded.major() < built.major()) {
    rep.passes = std::nullopt;
    rep.verdict = "loads cuDNN " + loaded.str() + ", older than its build's " + built.str() +
                  ": Paddle refuses to run only if the driver's CUDA major is also below its build's CUDA " +
                  rep.cuda_version + ", else it warns";
  } else if (loaded < built) {
    rep.notes.push_back("Paddle warns: the loaded " + loaded.str() + " is older than CUDNN_VERSION " + built.str() +
                        " (its check compares the full version)");
  }
  return rep;
}

}  // namespace cudnnup::framework
