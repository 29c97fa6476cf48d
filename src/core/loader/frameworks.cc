#include "loader/frameworks.h"

#include <algorithm>
#include <regex>

#include "facts/cudnn_files.h"
#include "facts/machines.h"
#include "loader/cudnn_load_model.h"
#include "base/path_glob.h"
#include "base/paths.h"
#include "base/strings.h"

namespace cudnnup {
namespace {

const uint16_t kHostMachine = host_machine().elf;

std::optional<std::string> read_text(const FileSystem& fs, const std::string& path) {
  auto text = fs.read_file(path, 4 << 20);
  if (!text) return std::nullopt;
  return *text;
}

// `name = 'value'` or `name: Optional[str] = 'value'` or `'name': 'value'` in a Python file.
std::optional<std::string> python_string(const std::string& text, const std::string& name) {
  std::smatch m;
  std::regex assign("(^|\\n)\\s*" + name + "\\s*(:[^=\\n]*)?=\\s*['\"]([^'\"]*)['\"]");
  if (std::regex_search(text, m, assign)) return m[3].str();
  std::regex dict("['\"]" + name + "['\"]\\s*:\\s*['\"]([^'\"]*)['\"]");
  if (std::regex_search(text, m, dict)) return m[1].str();
  // TensorFlow's build_info: OrderedDict([('cudnn_version', '9'), ...])
  std::regex pair("\\(\\s*['\"]" + name + "['\"]\\s*,\\s*['\"]([^'\"]*)['\"]\\s*\\)");
  if (std::regex_search(text, m, pair)) return m[1].str();
  return std::nullopt;
}

// The dist-info directory of a distribution (name with '-' or '_'), e.g. torch-2.9.0.dist-info.
std::optional<std::string> dist_info(const FileSystem& fs, const std::string& site, const std::string& dist) {
  auto entries = fs.list_dir(site);
  if (!entries) return std::nullopt;
  std::string want = dist;
  std::replace(want.begin(), want.end(), '-', '_');
  for (const auto& e : *entries) {
    if (!e.name.ends_with(".dist-info")) continue;
    std::string lowered = ascii_lower(e.name.substr(0, e.name.find('-')));
    std::replace(lowered.begin(), lowered.end(), '-', '_');
    if (lowered == want) return paths::join(site, e.name);
  }
  return std::nullopt;
}

std::string dist_version(const std::string& dist_info_dir) {
  std::string base(paths::basename(dist_info_dir));
  size_t dash = base.find('-');
  if (dash == std::string::npos) return {};
  return base.substr(dash + 1, base.size() - dash - 1 - 10);
}

std::optional<Version> version_prefix(const std::string& text) {
  static const std::regex lead(R"(^([0-9]+(\.[0-9]+)*))");
  std::smatch m;
  if (std::regex_search(text, m, lead)) return Version::parse(m[1].str());
  return std::nullopt;
}

// The simulated Python process: the interpreter's own ELF (for its RPATH, e.g. conda's
// $ORIGIN/../lib) when readable, else a plain 64-bit program.
LoaderSimulation start_python(const FileSystem& fs, const Environment& env, const PythonEnv& pe,
                              std::vector<std::string>& notes) {
  std::vector<std::string> problems;
  LoaderSystem sys = loader_system_from(fs, env, true, kHostMachine, &problems);
  for (auto& p : problems) notes.push_back(p);
  LoaderSimulation sim(fs, sys);
  if (!pe.interpreter.empty() && sim.start_executable(pe.interpreter)) return sim;
  ElfInfo python;
  python.is_64bit = true;
  python.machine = kHostMachine;
  sim.start_synthetic(pe.interpreter.empty() ? "(python)" : pe.interpreter, python, paths::join(pe.prefix, "bin"));
  notes.push_back("the interpreter could not be read as ELF; modelled as a program without RPATH");
  return sim;
}

int object_index(const LoaderSimulation& sim, const Resolution& r) {
  for (size_t i = 0; i < sim.objects().size(); ++i) {
    if (sim.objects()[i].canonical == r.canonical) return static_cast<int>(i);
  }
  return -1;
}

// ctypes.CDLL(path) from Python: a dlopen by path from the interpreter.
int python_loads(LoaderSimulation& sim, const std::string& path) {
  Resolution r = sim.dlopen(path, 0);
  return r.found ? object_index(sim, r) : -1;
}

bool any_unresolved_needed(const LoaderSimulation& sim) {
  for (const auto& r : sim.log()) {
    if (r.kind == "DT_NEEDED" && !r.found) return true;
  }
  return false;
}

void judge(FrameworkReport& rep, bool minor_matters) {
  if (!rep.load || !rep.load->resolution.found) {
    rep.passes = false;
    rep.verdict = "no cuDNN would load: " + (rep.load ? rep.load->resolution.error : std::string("nothing loads cuDNN"));
    return;
  }
  if (rep.load->cudnn && rep.load->cudnn->mixed) {
    rep.passes = false;
    rep.verdict = "cuDNN sub-libraries would come from another copy than " + rep.load->resolution.canonical +
                  " (CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH)";
    return;
  }
  if (!rep.built_cudnn || !rep.loaded_cudnn) {
    rep.verdict = "loads " + rep.load->resolution.canonical + "; cannot check versions (" +
                  (!rep.built_cudnn ? "build version unknown" : "version of that copy unknown") + ")";
    return;
  }
  const Version& b = *rep.built_cudnn;
  const Version& r = *rep.loaded_cudnn;
  bool ok = b.major() == r.major() && (!minor_matters || b.parts.size() < 2 || r.minor() >= b.minor());
  rep.passes = ok;
  rep.verdict = std::string(ok ? "ok: " : "fails its check: ") + "built for cuDNN " + b.str() + ", would load " +
                r.str() + " from " + paths::parent(rep.load->resolution.canonical);
}

FrameworkReport inspect_torch(const FileSystem& fs, const Environment& env, const PythonEnv& pe, const std::string& site) {
  FrameworkReport rep;
  rep.framework = "torch";
  std::string root = paths::join(site, "torch");
  if (auto text = read_text(fs, paths::join(root, "version.py"))) {
    rep.version = python_string(*text, "__version__").value_or("");
    rep.cuda_version = python_string(*text, "cuda").value_or("");
  }
  rep.rule = "PyTorch torch.backends.cudnn: same major, runtime minor >= compile minor "
             "(PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1 skips it)";
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
  std::string lib = paths::join(root, "lib");
  std::string torch_cuda = paths::join(lib, "libtorch_cuda.so");
  if (!fs.exists(torch_cuda)) {
    rep.verdict = rep.cuda_version.empty() ? "a CPU-only build: it does not load cuDNN" : "torch/lib/libtorch_cuda.so is missing";
    return rep;
  }
  rep.loading_library = torch_cuda;
  LoaderSimulation sim = start_python(fs, env, pe, rep.notes);
  // torch/__init__.py _load_global_deps(): CDLL(libtorch_global_deps.so, RTLD_GLOBAL); when that
  // fails over a CUDA library, preload site-packages nvidia/<lib>/lib/<pattern> and retry.
  std::string global_deps = paths::join(lib, "libtorch_global_deps.so");
  if (fs.exists(global_deps)) {
    python_loads(sim, global_deps);
    if (any_unresolved_needed(sim)) {
      rep.notes.push_back("libtorch_global_deps.so has an unresolved dependency: torch preloads site-packages "
                          "nvidia/cudnn/lib/libcudnn.so.*[0-9] (torch/__init__.py _preload_cuda_deps)");
      for (const std::string& sp : pe.site_packages) {
        auto matches = expand_glob(fs, paths::join(sp, "nvidia/cudnn/lib/libcudnn.so.*[0-9]"));
        if (!matches.empty()) {
          python_loads(sim, matches.front());
          break;
        }
      }
    }
  }
  // import torch._C: its DT_NEEDED tree reaches libtorch_cuda.so, which needs libcudnn.so.N.
  int caller = -1;
  auto entries = fs.list_dir(root);
  if (entries) {
    for (const auto& e : *entries) {
      if (e.name.rfind("_C.", 0) == 0 && e.name.size() > 3 && e.name.compare(e.name.size() - 3, 3, ".so") == 0) {
        python_loads(sim, paths::join(root, e.name));
        break;
      }
    }
  }
  caller = python_loads(sim, torch_cuda);
  int major = rep.built_cudnn ? rep.built_cudnn->major() : 9;
  if (caller >= 0) {
    for (const auto& needed : sim.objects()[caller].elf.needed) {
      if (is_cudnn_shim_name(needed)) major = parse_cudnn_library_name(paths::basename(needed))->major;
    }
  }
  WhichReport base;
  base.target = "torch " + rep.version + " in " + pe.prefix;
  base.target_kind = "framework";
  rep.load = finish_which(fs, sim, cudnn_library_file_name("cudnn", major, false), caller < 0 ? 0 : caller, std::move(base));
  if (rep.load->resolution.found) rep.loaded_cudnn = cudnn_copy_version(fs, rep.load->resolution.path, nullptr);
  if (!rep.built_cudnn) {
    // Wheels that bundle cuDNN in torch/lib (older releases) were built for that copy.
    for (const auto& f : expand_glob(fs, paths::join(lib, "libcudnn.so.*[0-9]"))) {
      if (auto v = cudnn_copy_version(fs, f, nullptr)) {
        rep.built_cudnn = v;
        rep.built_cudnn_source = "bundled " + f;
      }
    }
  }
  judge(rep, true);
  if (env.get("PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK").value_or("") == "1" && rep.passes == false) {
    rep.notes.push_back("PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1 is set: PyTorch skips this check");
  }
  return rep;
}

// A framework that dlopen()s "libcudnn.so.N" from one of its own libraries at run time.
FrameworkReport inspect_dlopen_framework(const FileSystem& fs, const Environment& env, const PythonEnv& pe,
                                         FrameworkReport rep, const std::vector<std::string>& loader_candidates,
                                         bool preload_pip_cudnn, bool minor_matters) {
  std::string loader;
  for (const auto& c : loader_candidates) {
    if (fs.exists(c)) {
      loader = c;
      break;
    }
  }
  if (loader.empty()) {
    rep.verdict = "none of its CUDA libraries is present (" + std::string(paths::basename(loader_candidates.front())) + ")";
    return rep;
  }
  rep.loading_library = loader;
  LoaderSimulation sim = start_python(fs, env, pe, rep.notes);
  if (preload_pip_cudnn) {
    for (const std::string& sp : pe.site_packages) {
      std::string pip = paths::join(sp, "nvidia/cudnn/lib/libcudnn.so.9");
      if (fs.exists(pip)) {
        python_loads(sim, pip);
        rep.notes.push_back("preloads " + pip + " from the nvidia-cudnn wheel before its plugin");
        break;
      }
    }
  }
  int caller = python_loads(sim, loader);
  int major = rep.built_cudnn && rep.built_cudnn->major() > 0 ? rep.built_cudnn->major() : 9;
  WhichReport base;
  base.target = rep.framework + " " + rep.version + " in " + pe.prefix;
  base.target_kind = "framework";
  rep.load = finish_which(fs, sim, cudnn_library_file_name("cudnn", major, false), caller < 0 ? 0 : caller, std::move(base));
  if (rep.load->resolution.found) rep.loaded_cudnn = cudnn_copy_version(fs, rep.load->resolution.path, nullptr);
  judge(rep, minor_matters);
  return rep;
}

// TensorFlow build versions per release (compatibility.md §3.1), used when build_info gives a major only.
std::optional<Version> tensorflow_cudnn_build(const std::string& tf_version) {
  auto v = version_prefix(tf_version);
  if (!v) return std::nullopt;
  Version mm = v->truncated(2);
  if (mm >= Version{2, 18}) return Version{9, 3};
  if (mm >= Version{2, 16}) return Version{8, 9};
  if (mm == Version{2, 15}) return Version{8, 9, 4};
  return std::nullopt;
}

FrameworkReport inspect_tensorflow(const FileSystem& fs, const Environment& env, const PythonEnv& pe, const std::string& site) {
  FrameworkReport rep;
  rep.framework = "tensorflow";
  std::string root = paths::join(site, "tensorflow");
  rep.rule = "XLA cuda_dnn.cc: same major, runtime minor >= compile minor";
  for (const char* dist : {"tensorflow", "tensorflow_gpu", "tf_nightly"}) {
    if (auto di = dist_info(fs, site, dist)) {
      rep.version = dist_version(*di);
      break;
    }
  }
  std::string build_info = paths::join(root, "python/platform/build_info.py");
  if (auto text = read_text(fs, build_info)) {
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
  return inspect_dlopen_framework(fs, env, pe, rep,
                                  {paths::join(root, "python/_pywrap_tensorflow_internal.so"),
                                   paths::join(root, "libtensorflow_framework.so.2")},
                                  false, true);
}

FrameworkReport inspect_jax(const FileSystem& fs, const Environment& env, const PythonEnv& pe, const std::string& site) {
  FrameworkReport rep;
  rep.framework = "jax";
  rep.rule = "JAX plugin: cuDNN >= build version with the patch ignored; XLA: same major, runtime minor >= build minor";
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
    std::vector<std::string> loaders;
    if (auto entries = fs.list_dir(plugin_dir)) {
      for (const auto& e : *entries) {
        if (e.name.find(".so") != std::string::npos) loaders.push_back(paths::join(plugin_dir, e.name));
      }
    }
    std::sort(loaders.begin(), loaders.end());
    if (loaders.empty()) loaders.push_back(paths::join(plugin_dir, "xla_cuda_plugin.so"));
    return inspect_dlopen_framework(fs, env, pe, rep, loaders, true, true);
  }
  rep.verdict = "no CUDA plugin (jax_plugins/xla_cuda12 or xla_cuda13): runs on CPU";
  return rep;
}

FrameworkReport inspect_onnxruntime(const FileSystem& fs, const Environment& env, const PythonEnv& pe, const std::string& site) {
  FrameworkReport rep;
  rep.framework = "onnxruntime";
  rep.rule = "ONNX Runtime: built with cuDNN 8.x is not compatible with 9.x and vice versa (same major)";
  std::string root = paths::join(site, "onnxruntime");
  for (const char* dist : {"onnxruntime_gpu", "onnxruntime"}) {
    if (auto di = dist_info(fs, site, dist)) {
      rep.version = dist_version(*di);
      break;
    }
  }
  for (const char* file : {"capi/version_info.py", "capi/build_and_package_info.py"}) {
    if (auto text = read_text(fs, paths::join(root, file))) {
      if (rep.cuda_version.empty()) rep.cuda_version = python_string(*text, "cuda_version").value_or("");
      if (!rep.built_cudnn) {
        if (auto c = python_string(*text, "cudnn_version")) {
          rep.built_cudnn = Version::parse(*c);
          rep.built_cudnn_source = std::string("onnxruntime/") + file + ": cudnn_version '" + *c + "'";
        }
      }
    }
  }
  std::string provider = paths::join(root, "capi/libonnxruntime_providers_cuda.so");
  if (!fs.exists(provider)) {
    rep.verdict = "no CUDA execution provider (capi/libonnxruntime_providers_cuda.so): a CPU build";
    return rep;
  }
  if (!rep.built_cudnn) {
    // The provider's DT_NEEDED names the major it was built for.
    auto info = fs.stat(provider);
    if (info) {
      auto elf = parse_elf([&](uint64_t o, size_t n) { return fs.read_range(provider, o, n); }, info->size);
      if (elf) {
        for (const auto& n : elf->needed) {
          if (is_cudnn_shim_name(n)) {
            auto name = parse_cudnn_library_name(paths::basename(n));
            rep.built_cudnn = name->version.known() ? name->version : Version{name->major};
            rep.built_cudnn_source = "DT_NEEDED " + n + " of libonnxruntime_providers_cuda.so";
          }
        }
      }
    }
  }
  return inspect_dlopen_framework(fs, env, pe, rep, {provider}, false, false);
}

FrameworkReport inspect_paddle(const FileSystem& fs, const Environment& env, const PythonEnv& pe, const std::string& site) {
  FrameworkReport rep;
  rep.framework = "paddle";
  rep.rule = "PaddlePaddle: a different major is an error; an older minor only warns";
  std::string root = paths::join(site, "paddle");
  if (auto text = read_text(fs, paths::join(root, "version/__init__.py"))) {
    rep.version = python_string(*text, "full_version").value_or("");
    rep.cuda_version = python_string(*text, "cuda_version").value_or("");
    if (auto c = python_string(*text, "cudnn_version")) {
      if (*c != "False") {
        rep.built_cudnn = Version::parse(*c);
        rep.built_cudnn_source = "paddle/version/__init__.py: cudnn_version '" + *c + "'";
      }
    }
  }
  if (!rep.built_cudnn) {
    rep.verdict = "not a CUDA build (paddle/version/__init__.py has no cudnn_version)";
    return rep;
  }
  rep.notes.push_back("Paddle loads cuDNN with dlopen from its core library; FLAGS_cudnn_dir, when set, is tried first (not modelled)");
  return inspect_dlopen_framework(fs, env, pe, rep,
                                  {paths::join(root, "base/libpaddle.so"), paths::join(root, "fluid/libpaddle.so")}, false, false);
}

}  // namespace

const std::vector<std::string>& known_frameworks() {
  static const std::vector<std::string> names = {"torch", "tensorflow", "jax", "onnxruntime", "paddle"};
  return names;
}

std::optional<CudnnPin> find_cudnn_pin(const std::string& metadata) {
  // The requirement line, then its "==" / ">=" / "~=" clause wherever it sits: pip writes
  // specifiers in any order ("<10.0,>=9.8").
  static const std::regex line_re(R"(Requires-Dist:\s*(nvidia-cudnn-cu[0-9]+)([^\n]*))", std::regex::icase);
  static const std::regex clause(R"((==|>=|~=)\s*([0-9][0-9.]*))");
  std::smatch m;
  if (!std::regex_search(metadata, m, line_re)) return std::nullopt;
  std::string rest = m[2].str();
  std::string spec = rest.substr(0, rest.find(';'));
  std::smatch c;
  if (!std::regex_search(spec, c, clause)) return std::nullopt;
  auto v = Version::parse(c[2].str());
  if (!v) return std::nullopt;
  std::string line = m[0].str();
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return CudnnPin{m[1].str(), c[1].str(), *v, line};
}

std::vector<FrameworkReport> inspect_frameworks(const FileSystem& fs, const Environment& env,
                                                const std::vector<PythonEnv>& envs,
                                                const std::vector<std::string>& only) {
  auto wanted = [&](const std::string& name) {
    return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
  };
  std::vector<FrameworkReport> reports;
  for (const PythonEnv& pe : envs) {
    for (const std::string& site : pe.site_packages) {
      auto add = [&](FrameworkReport rep) {
        rep.env_prefix = pe.prefix;
        rep.interpreter = pe.interpreter;
        rep.site_packages = site;
        reports.push_back(std::move(rep));
      };
      if (wanted("torch") && fs.is_dir(paths::join(site, "torch"))) add(inspect_torch(fs, env, pe, site));
      if (wanted("tensorflow") && fs.is_dir(paths::join(site, "tensorflow"))) add(inspect_tensorflow(fs, env, pe, site));
      if (wanted("jax") && fs.is_dir(paths::join(site, "jax"))) add(inspect_jax(fs, env, pe, site));
      if (wanted("onnxruntime") && fs.is_dir(paths::join(site, "onnxruntime"))) add(inspect_onnxruntime(fs, env, pe, site));
      if (wanted("paddle") && fs.is_dir(paths::join(site, "paddle"))) add(inspect_paddle(fs, env, pe, site));
    }
  }
  return reports;
}

}  // namespace cudnnup
