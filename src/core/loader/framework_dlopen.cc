// TensorFlow, JAX, ONNX Runtime and PaddlePaddle on Linux: frameworks that dlopen() cuDNN from
// one of their own libraries at run time, some after a preload by path. Each function's comment
// names the code it follows, per version.
#include <algorithm>

#include "base/paths.h"
#include "loader/cudnn_load_model.h"
#include "loader/framework_support.h"

namespace cudnnup::framework {
namespace {

std::string first_existing(const FileSystem& fs, const std::vector<std::string>& candidates) {
  for (const auto& c : candidates) {
    if (fs.exists(c)) return c;
  }
  return {};
}

// XLA/TSL dso_loader: dlopen("libcudnn.so.<major>") called from `loader` (after `preloads`, each
// ctypes.CDLL(path) from Python).
void model_dlopen(const FileSystem& fs, const LoaderSystem& sys, const PythonEnv& pe, FrameworkReport& rep,
                  const std::string& loader, const std::vector<std::string>& preloads, bool minor_matters) {
  rep.loading_library = loader;
  LoaderSimulation sim = start_python(fs, sys, pe, rep.notes);
  for (const auto& p : preloads) python_loads(sim, p);
  int caller = python_loads(sim, loader);
  int major = rep.built_cudnn && rep.built_cudnn->major() > 0 ? rep.built_cudnn->major() : 9;
  finish_load(fs, sim, rep, pe, major, caller);
  judge(rep, minor_matters);
}

// TensorFlow build versions per release (https://www.tensorflow.org/install/source#gpu, "Tested
// build configurations"), used when build_info gives a major only.
std::optional<Version> tensorflow_cudnn_build(const std::string& tf_version) {
  auto v = version_prefix(tf_version);
  if (!v) return std::nullopt;
  Version mm = v->truncated(2);
  if (mm >= Version{2, 18}) return Version{9, 3};
  if (mm >= Version{2, 16}) return Version{8, 9};
  if (mm == Version{2, 15}) return Version{8, 9, 4};
  return std::nullopt;
}

}  // namespace

void set_tensorflow_rule(FrameworkReport& rep) {
  rep.rule = "same major, runtime minor >= compile minor (patch ignored)";
  rep.rule_source = "XLA stream_executor/cuda/cuda_dnn.cc IsSourceCompatibleWithCudnnLibrary (TensorFlow >= 1.13)";
}

// TensorFlow: XLA/TSL dso_loader.cc dlopen("libcudnn.so.<TF_CUDNN_VERSION>") from
// python/_pywrap_tensorflow_internal.so (or libtensorflow_framework.so.2), whose RPATHs point at
// ../nvidia/cudnn/lib (cuda_rpath_flags). Check: stream_executor/cuda/cuda_dnn.cc
// IsSourceCompatibleWithCudnnLibrary (same major, runtime minor >= source minor, patch ignored).
FrameworkReport inspect_tensorflow(const FileSystem& fs, const Environment& /*env*/, const LoaderSystem& sys, const PythonEnv& pe,
                              const std::string& site) {
  FrameworkReport rep;
  rep.framework = "tensorflow";
  std::string root = paths::join(site, "tensorflow");
  set_tensorflow_rule(rep);
  for (const char* dist : {"tensorflow", "tensorflow_gpu", "tf_nightly"}) {
    if (auto di = dist_info(fs, site, dist)) {
      rep.version = dist_version(*di);
      break;
    }
  }
  if (auto text = read_text(fs, paths::join(root, "python/platform/build_info.py"))) {
    rep.cuda_version = python_string(*text, "cuda_version").value_or(python_string(*text, "cuda_version_number").value_or(""));
    std::string cudnn = python_string(*text, "cudnn_version").value_or(python_string(*text, "cudnn_version_number").value_or(""));
    if (!cudnn.empty()) {
      rep.built_cudnn = Version::parse(cudnn);
      rep.built_cudnn_source = "tensorflow/python/platform/build_info.py: cudnn_version '" + cudnn + "'";
      auto table = tensorflow_cudnn_build(rep.version);
      if (rep.built_cudnn && table && table->major() == rep.built_cudnn->major() && rep.built_cudnn->parts.size() == 1) {
        rep.built_cudnn = table;
        rep.built_cudnn_source += " (major only; " + table->str() + " from TensorFlow's tested-build table)";
      }
    }
  }
  if (!rep.built_cudnn) {
    rep.verdict = "not a CUDA build (no cudnn_version in build_info.py)";
    return rep;
  }
  std::string loader = first_existing(fs, {paths::join(root, "python/_pywrap_tensorflow_internal.so"),
                                           paths::join(root, "libtensorflow_framework.so.2")});
  if (loader.empty()) {
    rep.verdict = "none of its CUDA libraries is present (_pywrap_tensorflow_internal.so)";
    return rep;
  }
  model_dlopen(fs, sys, pe, rep, loader, {}, true);
  return rep;
}

// JAX. The CUDA code is in the plugin jax_plugins/xla_cudaNN/xla_cuda_plugin.so (jax >= 0.4.26)
// or, in older CUDA jaxlib wheels ("0.4.14+cuda12.cudnn89"), in jaxlib/xla_extension.so; XLA's
// dso_loader dlopen()s libcudnn.so.9 from it with its own paths: DT_RUNPATH up to jaxlib 0.4.18
// (LD_LIBRARY_PATH wins, jax-ml/jax#17497), DT_RPATH from 0.4.19 (jax-ml/jax#18041) — read from the file.
// The plugin's __init__.py preloads nvidia.cudnn.__path__[0]/lib/libcudnn.so.9 with
// ctypes.cdll.LoadLibrary only from PR #29462 (June 2025, `_load_nvidia_libraries`); the code is
// looked for in the installed __init__.py rather than guessed from a version.
// Check: the plugin's _version_check (runtime >= build // 100, lenient) and XLA's cuda_dnn.cc
// (same major, runtime minor >= build minor): the stricter, XLA's, decides.
FrameworkReport inspect_jax(const FileSystem& fs, const Environment& env, const LoaderSystem& sys, const PythonEnv& pe,
                              const std::string& site) {
  FrameworkReport rep;
  rep.framework = "jax";
  rep.rule = "same major, runtime minor >= build minor (XLA); the plugin's own check is more lenient";
  rep.rule_source = "xla/stream_executor/cuda/cuda_dnn.cc and jax_plugins/xla_cudaNN/__init__.py _version_check";
  for (const char* cuda : {"13", "12"}) {
    std::string plugin_dir = paths::join(site, std::string("jax_plugins/xla_cuda") + cuda);
    if (!fs.is_dir(plugin_dir)) continue;
    rep.cuda_version = cuda;
    if (auto di = dist_info(fs, site, std::string("jax_cuda") + cuda + "_plugin")) {
      rep.version = dist_version(*di);
      if (auto meta = read_text(fs, paths::join(*di, "METADATA"))) {
        if (auto pin = find_cudnn_pin(*meta)) {
          rep.built_cudnn = pin->version.truncated(2);
          rep.built_cudnn_source = std::string(paths::basename(*di)) + "/METADATA: " + pin->line +
                                   " (the lower bound stands in for the build version)";
        }
      }
    }
    if (!rep.built_cudnn) {
      rep.built_cudnn = Version{9, 8};
      rep.built_cudnn_source = "JAX installation docs: CUDA wheels built with cuDNN 9.8";
    }
    std::vector<std::string> preloads;
    std::string init = read_text(fs, paths::join(plugin_dir, "__init__.py")).value_or("");
    if (init.find("_load_nvidia_libraries") != std::string::npos) {
      // nvidia.cudnn.__path__[0]: the first sys.path entry with the nvidia/cudnn namespace portion.
      std::string file = first_pip_cudnn(fs, python_sys_path(env, pe), "libcudnn.so.9");
      if (!file.empty()) {
        preloads.push_back(file);
        rep.notes.push_back("the plugin's __init__.py preloads " + file + " (_load_nvidia_libraries, jax >= 0.7)");
      }
    } else {
      rep.notes.push_back("this plugin version does not preload the pip cuDNN (no _load_nvidia_libraries in its "
                          "__init__.py): its library's RPATH/RUNPATH decides");
    }
    std::string loader = paths::join(plugin_dir, "xla_cuda_plugin.so");
    if (!fs.exists(loader)) {
      if (auto entries = fs.list_dir(plugin_dir)) {
        std::vector<std::string> sos;
        for (const auto& e : *entries) {
          if (e.name.find(".so") != std::string::npos) sos.push_back(paths::join(plugin_dir, e.name));
        }
        std::sort(sos.begin(), sos.end());
        if (!sos.empty()) loader = sos.front();
      }
    }
    model_dlopen(fs, sys, pe, rep, loader, preloads, true);
    return rep;
  }
  // A CUDA jaxlib from before the plugins: the version says "+cuda12.cudnn89".
  if (auto di = dist_info(fs, site, "jaxlib")) {
    rep.version = dist_version(*di);
    size_t at = rep.version.find("cudnn");
    std::string extension = paths::join(site, "jaxlib/xla_extension.so");
    if (at != std::string::npos && fs.exists(extension)) {
      std::string digits = rep.version.substr(at + 5);
      if (digits.size() >= 2 && std::isdigit(static_cast<unsigned char>(digits[0])) &&
          std::isdigit(static_cast<unsigned char>(digits[1]))) {
        rep.built_cudnn = Version{digits[0] - '0', digits[1] - '0'};
        rep.built_cudnn_source = "jaxlib version " + rep.version;
      }
      model_dlopen(fs, sys, pe, rep, extension, {}, true);
      return rep;
    }
  }
  rep.verdict = "no CUDA plugin (jax_plugins/xla_cuda12 or xla_cuda13) and no CUDA jaxlib: runs on CPU";
  return rep;
}

}  // namespace cudnnup::framework
