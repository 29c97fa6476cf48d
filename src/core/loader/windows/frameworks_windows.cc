#include "loader/windows/frameworks_windows.h"

#include <algorithm>
#include <cctype>

#include "base/paths.h"
#include "base/strings.h"
#include "binfmt/dll_inspect.h"
#include "facts/cudnn_files.h"
#include "facts/rules.h"
#include "loader/cudnn_load_model.h"
#include "loader/framework_support.h"
#include "loader/windows/which_windows.h"

namespace cudnnup {
namespace {

using framework::dist_info;
using framework::dist_version;
using framework::python_string;
using framework::read_text;
using framework::version_prefix;

// The folder of the environment's python.exe: the application folder of its process.
std::string python_dir(const PythonEnv& pe) { return pe.interpreter.empty() ? pe.prefix : paths::parent(pe.interpreter); }

// The cuDNN DLLs of one major in a folder (shim first), by their file names.
std::vector<std::string> cudnn_dlls_in(const FileSystem& fs, const std::string& dir, int major) {
  std::vector<std::string> out;
  auto entries = fs.list_dir(dir);
  if (!entries) return out;
  for (const auto& e : *entries) {
    auto name = parse_cudnn_library_name(e.name);
    if (!name || !name->windows || name->major != major) continue;
    std::string path = paths::join(dir, e.name);
    if (name->shim()) out.insert(out.begin(), path);
    else out.push_back(path);
  }
  return out;
}

// The highest cuDNN major whose shim DLL is in a folder, or 0.
int shim_major_in(const FileSystem& fs, const std::string& dir) {
  int best = 0;
  if (auto entries = fs.list_dir(dir)) {
    for (const auto& e : *entries) {
      auto name = parse_cudnn_library_name(e.name);
      if (name && name->windows && name->shim()) best = std::max(best, name->major);
    }
  }
  return best;
}

// What cudnnGetVersion() will report for rep.load: the graph DLL's file version (cuDNN 9 answers
// from it), else the shim's, else the copy's header or pip dist-info.
void set_loaded_version(const FileSystem& fs, FrameworkReport& rep) {
  if (!rep.load || !rep.load->resolution.found) return;
  const auto& cudnn = rep.load->cudnn;
  if (cudnn && cudnn->reported_version) {
    rep.loaded_cudnn = cudnn->reported_version;
  } else if (cudnn && cudnn->shim_version) {
    rep.loaded_cudnn = cudnn->shim_version;
  } else {
    rep.loaded_cudnn = cudnn_copy_version(fs, rep.load->resolution.path, nullptr);
  }
}

WhichReport framework_which(const FrameworkReport& rep, const PythonEnv& pe, const std::string& dll, const std::string& how) {
  WhichReport base;
  base.library = dll;
  base.target = rep.framework + " " + rep.version + (rep.variant.empty() ? "" : " (" + rep.variant + ")") + " in " +
                paths::to_windows(pe.prefix);
  base.target_kind = "framework";
  base.how_requested = how;
  return base;
}

// A Requires-Dist pin that applies on Windows: not one whose marker limits it to Linux or macOS
// (PyTorch's nvidia-cudnn-cuNN pins are "platform_system == 'Linux'").
bool pin_applies_on_windows(const CudnnPin& pin) {
  std::string line = ascii_lower(pin.line);
  size_t semi = line.find(';');
  if (semi == std::string::npos) return true;
  std::string marker = line.substr(semi);
  bool names_windows = marker.find("windows") != std::string::npos || marker.find("win32") != std::string::npos;
  bool names_other = marker.find("linux") != std::string::npos || marker.find("darwin") != std::string::npos;
  return names_windows || !names_other;
}

// PyTorch. Windows wheels bundle cuDNN in torch\lib (its DLLs' file version is the build's);
// `import torch` adds its DLL folders and preloads every torch\lib\*.dll (which_windows' torch).
FrameworkReport torch_windows(const FileSystem& fs, const Environment& env, const PythonEnv& pe, const std::string& site) {
  FrameworkReport rep;
  rep.framework = "torch";
  framework::set_torch_rule(rep);
  const std::string root = paths::join(site, "torch"), lib = paths::join(root, "lib");
  if (auto text = read_text(fs, paths::join(root, "version.py"))) {
    rep.version = python_string(*text, "__version__").value_or("");
    rep.cuda_version = python_string(*text, "cuda").value_or("");
  }
  auto di = dist_info(fs, site, "torch");
  if (rep.version.empty() && di) rep.version = dist_version(*di);
  if (rep.cuda_version.empty()) {
    rep.verdict = "a CPU-only build (torch/version.py: cuda = None): it does not load cuDNN";
    return rep;
  }
  if (di) {
    auto pin = find_cudnn_pin(read_text(fs, paths::join(*di, "METADATA")).value_or(""));
    if (pin && pin_applies_on_windows(*pin)) {
      rep.built_cudnn = pin->version.truncated(3);
      rep.built_cudnn_source = std::string(paths::basename(*di)) + "/METADATA: " + pin->line;
    }
  }
  int major = shim_major_in(fs, lib);
  if (!rep.built_cudnn && major > 0) {
    std::string shim = paths::join(lib, cudnn_library_file_name("cudnn", major, true));
    auto v = inspect_dll(fs, shim).file_version;
    bool versioned = v && (*v)[0] == major;
    rep.built_cudnn = versioned ? Version{(*v)[0], (*v)[1], (*v)[2]} : Version{major};
    rep.built_cudnn_source = "bundled " + paths::to_windows(shim) + (versioned ? " (its file version)" : " (no file version: the major only)");
  }
  if (major == 0) major = rep.built_cudnn ? rep.built_cudnn->major() : 9;
  rep.loading_library = fs.exists(paths::join(lib, "torch_cuda.dll")) ? paths::join(lib, "torch_cuda.dll") : lib;
  WindowsWhichTarget target;
  target.kind = "torch";
  target.python_prefix = pe.prefix;
  target.site_packages = site;
  auto w = which_windows(fs, env, target, std::to_string(major));
  if (!w) {
    rep.verdict = w.error().message;
    return rep;
  }
  rep.load = std::move(*w);
  set_loaded_version(fs, rep);
  framework::judge(rep, true);
  framework::apply_torch_skip(env, rep);
  return rep;
}

// TensorFlow's Windows build_info.py writes versions as DLL suffixes: cuda_version '64_112'
// (11.2), cudnn_version '64_8'; older ones the plain numbers.
std::string from_dll_suffix(std::string v, bool cuda) {
  if (v.rfind("64_", 0) == 0) v = v.substr(3);
  bool digits = !v.empty() && std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); });
  if (cuda && digits && v.size() >= 2) v = v.substr(0, v.size() - 1) + "." + v.back();
  return v;
}

// TensorFlow: GPU on native Windows up to its last GPU release (rules.json), where its
// dso_loader calls LoadLibraryExW(name, LOAD_WITH_ALTERED_SEARCH_PATH) with a bare name: the
// standard search, python.exe's folder first, PATH included.
FrameworkReport tensorflow_windows(const FileSystem& fs, const Environment& env, const PythonEnv& pe, const std::string& site,
                                   const Rules& rules) {
  FrameworkReport rep;
  rep.framework = "tensorflow";
  framework::set_tensorflow_rule(rep);
  const std::string root = paths::join(site, "tensorflow");
  for (const char* dist : {"tensorflow", "tensorflow_gpu", "tensorflow_intel", "tf_nightly"}) {
    if (auto di = dist_info(fs, site, dist)) {
      rep.version = dist_version(*di);
      break;
    }
  }
  const WindowsFrameworkSupport* support = rules.windows_support_of("tensorflow");
  auto tf = version_prefix(rep.version);
  if (support && support->last_gpu_release.known() && tf && tf->truncated(2) > support->last_gpu_release.truncated(2)) {
    rep.verdict = "no GPU on native Windows, so no cuDNN: " + support->gpu;
    rep.notes.push_back("source: " + support->source);
    return rep;
  }
  std::string info = read_text(fs, paths::join(root, "python/platform/build_info.py")).value_or("");
  std::string cudnn = from_dll_suffix(python_string(info, "cudnn_version").value_or(python_string(info, "cudnn_version_number").value_or("")), false);
  rep.cuda_version = from_dll_suffix(python_string(info, "cuda_version").value_or(python_string(info, "cuda_version_number").value_or("")), true);
  auto built = Version::parse(cudnn);
  if (!built) {
    rep.verdict = "not a CUDA build (no cudnn_version in build_info.py)";
    return rep;
  }
  rep.built_cudnn = built;
  rep.built_cudnn_source = "tensorflow/python/platform/build_info.py: cudnn_version '" + cudnn + "'";
  const TensorflowWindowsBuild* row = tf ? rules.tensorflow_windows_build_for(*tf) : nullptr;
  if (row && built->parts.size() == 1 && row->cudnn.major() == built->major()) {
    rep.built_cudnn = row->cudnn;
    rep.built_cudnn_source += " (major only; " + row->cudnn.str() + " from " + rules.tensorflow_windows_gpu_builds_source + ")";
  }
  std::string dll = python_string(info, "cudnn_dll_name").value_or("");
  auto named = parse_cudnn_library_name(dll);
  if (!named || !named->windows || !named->shim()) dll = cudnn_library_file_name("cudnn", built->major(), true);
  rep.loading_library = paths::join(root, "python/_pywrap_tensorflow_internal.pyd");
  DllSearchContext ctx = windows_base_context(env);
  ctx.application_dir = python_dir(pe);
  rep.load = which_windows_in(fs, ctx, framework_which(rep, pe, dll, "LoadLibraryExW(\"" + dll + "\", LOAD_WITH_ALTERED_SEARCH_PATH) "
                                                       "by TensorFlow's dso_loader: a bare name, so the standard search, "
                                                       "PATH included (tensorflow/core/platform/windows/load_library.cc)"));
  set_loaded_version(fs, rep);
  framework::judge(rep, true);
  return rep;
}

// JAX: no NVIDIA GPU on native Windows (rules.json), whatever is installed.
FrameworkReport jax_windows(const FileSystem& fs, const std::string& site, const Rules& rules) {
  FrameworkReport rep;
  rep.framework = "jax";
  for (const char* dist : {"jaxlib", "jax"}) {
    if (auto di = dist_info(fs, site, dist)) {
      rep.version = dist_version(*di);
      break;
    }
  }
  const WindowsFrameworkSupport* support = rules.windows_support_of("jax");
  rep.verdict = "no GPU on native Windows, so no cuDNN" + (support ? ": " + support->gpu : std::string());
  if (support) rep.notes.push_back("source: " + support->source);
  return rep;
}

// Where onnxruntime.preload_dlls() takes cuDNN from (onnxruntime/__init__.py): torch\lib when a
// torch of the same CUDA major is installed ("+cuNNN" version), else the wheel's nvidia\cudnn\bin.
std::string ort_preload_folder(const FileSystem& fs, const std::string& site, const std::string& ort_cuda) {
  if (auto di = dist_info(fs, site, "torch")) {
    std::string v = dist_version(*di);
    size_t cu = v.find("+cu");
    if (cu != std::string::npos && v.size() >= cu + 5 && ort_cuda.rfind(v.substr(cu + 3, 2), 0) == 0 &&
        fs.is_dir(paths::join(site, "torch/lib"))) {
      return paths::join(site, "torch/lib");
    }
  }
  return paths::join(site, "nvidia/cudnn/bin");
}

// ONNX Runtime GPU: the CUDA provider DLL, by full path with LOAD_WITH_ALTERED_SEARCH_PATH (its
// folder first, then the standard search with PATH); after preload_dlls(), the DLLs it loaded by
// path are the ones the provider's import binds.
std::vector<FrameworkReport> onnxruntime_windows(const FileSystem& fs, const Environment& env, const PythonEnv& pe,
                                                 const std::string& site) {
  FrameworkReport rep;
  rep.framework = "onnxruntime";
  framework::set_onnxruntime_rule(rep);
  const std::string root = paths::join(site, "onnxruntime"), capi = paths::join(root, "capi");
  for (const char* dist : {"onnxruntime_gpu", "onnxruntime"}) {
    if (auto di = dist_info(fs, site, dist)) {
      rep.version = dist_version(*di);
      break;
    }
  }
  for (const char* file : {"version_info.py", "build_and_package_info.py"}) {
    std::string text = read_text(fs, paths::join(capi, file)).value_or("");
    if (rep.cuda_version.empty()) rep.cuda_version = python_string(text, "cuda_version").value_or("");
    if (auto c = python_string(text, "cudnn_version"); c && !rep.built_cudnn) {
      rep.built_cudnn = Version::parse(*c);
      rep.built_cudnn_source = std::string("onnxruntime/capi/") + file + ": cudnn_version '" + *c + "'";
    }
  }
  const std::string provider = paths::join(capi, "onnxruntime_providers_cuda.dll");
  if (!fs.exists(provider)) {
    rep.verdict = "no CUDA execution provider (capi\\onnxruntime_providers_cuda.dll): a CPU build";
    return {rep};
  }
  for (const auto& import : inspect_dll(fs, provider).imports) {
    auto name = parse_cudnn_library_name(import);
    if (rep.built_cudnn || !name || !name->windows || !name->shim()) continue;
    rep.built_cudnn = Version{name->major};
    rep.built_cudnn_source = "import table of onnxruntime_providers_cuda.dll: " + import;
  }
  const int major = rep.built_cudnn && rep.built_cudnn->major() > 0 ? rep.built_cudnn->major() : 9;
  const std::string dll = cudnn_library_file_name("cudnn", major, true);
  rep.loading_library = provider;
  bool has_preload = read_text(fs, paths::join(root, "__init__.py")).value_or("").find("def preload_dlls") != std::string::npos;
  std::vector<FrameworkReport> out;
  for (bool preload : {false, true}) {
    if (preload && !has_preload) break;
    FrameworkReport r = rep;
    r.variant = preload ? "after onnxruntime.preload_dlls()" : "";
    r.applies_when = preload ? "a program that calls onnxruntime.preload_dlls() before its first CUDA session "
                               "(ONNX Runtime >= 1.21)"
                             : "a program that does not call onnxruntime.preload_dlls() (the default)";
    DllSearchContext ctx = windows_base_context(env);
    ctx.application_dir = capi;  // LOAD_WITH_ALTERED_SEARCH_PATH: the provider's folder replaces the program's
    if (preload) {
      std::string from = ort_preload_folder(fs, site, rep.cuda_version);
      ctx.already_loaded = cudnn_dlls_in(fs, from, major);
      r.notes.push_back(ctx.already_loaded.empty()
                            ? "preload_dlls() finds no cuDNN DLL in " + paths::to_windows(from) + ": the provider loads as without it"
                            : "preload_dlls() loads " + std::to_string(ctx.already_loaded.size()) + " cuDNN DLLs from " +
                                  paths::to_windows(from) + " by path; the provider's import of " + dll + " binds them");
    }
    r.load = which_windows_in(fs, ctx, framework_which(r, pe, dll, "import table of " + paths::to_windows(provider) +
                                                                       ", loaded by full path with LOAD_WITH_ALTERED_SEARCH_PATH "
                                                                       "(onnxruntime core/platform/windows/env.cc)"));
    set_loaded_version(fs, r);
    framework::judge(r, false);
    out.push_back(std::move(r));
  }
  return out;
}

FrameworkReport paddle_windows(const FileSystem& fs, const std::string& site) {
  FrameworkReport rep;
  rep.framework = "paddle";
  for (const char* dist : {"paddlepaddle_gpu", "paddlepaddle"}) {
    if (auto di = dist_info(fs, site, dist)) {
      rep.version = dist_version(*di);
      break;
    }
  }
  rep.verdict = "not modelled on Windows yet (PaddlePaddle preloads its own DLLs): use `cudnnup which --for python "
                "--module-dir` with the folder of its .pyd";
  return rep;
}

}  // namespace

std::vector<FrameworkReport> inspect_frameworks_windows(const FileSystem& fs, const Environment& env,
                                                        const std::vector<PythonEnv>& envs,
                                                        const std::vector<std::string>& only) {
  auto wanted = [&](const std::string& name) { return only.empty() || std::find(only.begin(), only.end(), name) != only.end(); };
  const Rules& rules = builtin_rules();
  std::vector<FrameworkReport> reports;
  for (const PythonEnv& pe : envs) {
    for (const std::string& site : pe.site_packages) {
      auto add = [&](FrameworkReport rep) {
        rep.env_prefix = pe.prefix;
        rep.interpreter = pe.interpreter;
        rep.site_packages = site;
        reports.push_back(std::move(rep));
      };
      auto has = [&](const char* dir) { return fs.is_dir(paths::join(site, dir)); };
      if (wanted("torch") && has("torch")) add(torch_windows(fs, env, pe, site));
      if (wanted("tensorflow") && has("tensorflow")) add(tensorflow_windows(fs, env, pe, site, rules));
      if (wanted("jax") && (has("jax_plugins") || has("jaxlib"))) add(jax_windows(fs, site, rules));
      if (wanted("onnxruntime") && has("onnxruntime")) {
        for (auto& rep : onnxruntime_windows(fs, env, pe, site)) add(std::move(rep));
      }
      if (wanted("paddle") && has("paddle")) add(paddle_windows(fs, site));
    }
  }
  return reports;
}

}  // namespace cudnnup
