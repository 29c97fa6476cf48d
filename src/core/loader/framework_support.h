// What the per-framework models (framework_*.cc) share: reading a package's Python files and
// metadata without importing it, the simulated Python process, and the verdict.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/environment.h"
#include "base/filesystem.h"
#include "base/version.h"
#include "discover/python_envs.h"
#include "loader/frameworks.h"
#include "loader/glibc_resolver.h"

namespace cudnnup::framework {

std::optional<std::string> read_text(const FileSystem& fs, const std::string& path);
// `name = 'value'`, `name: Optional[str] = 'value'`, `'name': 'value'` or `('name', 'value')`.
std::optional<std::string> python_string(const std::string& text, const std::string& name);
// The dist-info directory of a distribution (name with '-' or '_'), e.g. torch-2.9.0.dist-info.
std::optional<std::string> dist_info(const FileSystem& fs, const std::string& site, const std::string& dist);
std::string dist_version(const std::string& dist_info_dir);
// The leading dotted number of a version text: "2.10.0+cu130" -> 2.10.0.
std::optional<Version> version_prefix(const std::string& text);

// sys.path as far as it decides where `import nvidia.cudnn` and torch's preload look: the
// PYTHONPATH entries, then the environment's site-packages in order.
std::vector<std::string> python_sys_path(const Environment& env, const PythonEnv& pe);
// The first sys.path entry with nvidia/cudnn/lib holding a file that matches `pattern`
// (a glob, e.g. "libcudnn.so.*[0-9]"), or "".
std::string first_pip_cudnn(const FileSystem& fs, const std::vector<std::string>& sys_path, const std::string& pattern);

// The simulated Python process: the interpreter's own ELF (for its RPATH, e.g. conda's
// $ORIGIN/../lib, and $ORIGIN taken from the resolved executable as glibc does) when readable,
// else a plain 64-bit program.
LoaderSimulation start_python(const FileSystem& fs, const LoaderSystem& system, const PythonEnv& pe,
                              std::vector<std::string>& notes);
// ctypes.CDLL(path[, mode]) from Python: a dlopen by path (or name) from the interpreter. The
// object index, or -1.
int python_loads(LoaderSimulation& sim, const std::string& path, bool global = false);
bool any_unresolved_needed(const LoaderSimulation& sim);
// The first DT_NEEDED libcudnn.so.N of a mapped object: N, or 0.
int needed_cudnn_major(const LoaderSimulation& sim, int object);

// Fills rep.load (what `library` resolves to in `sim`, or dlopen from `caller`) and the loaded
// version.
void finish_load(const FileSystem& fs, LoaderSimulation& sim, FrameworkReport& rep, const PythonEnv& pe, int major,
                 int caller);
// rep.loaded_cudnn from rep.load: what cudnnGetVersion() will report (cuDNN 9: the graph library's
// version), else the shim's copy's version.
void set_loaded_version(const FileSystem& fs, FrameworkReport& rep);

// The verdict for "same major, and (when minor_matters) runtime minor >= build minor", after
// cuDNN's own sub-library check.
void judge(FrameworkReport& rep, bool minor_matters);

// Each framework's own check, as its code applies it: the same on Linux and Windows.
void set_torch_rule(FrameworkReport& rep);
void set_tensorflow_rule(FrameworkReport& rep);
void set_onnxruntime_rule(FrameworkReport& rep);
// PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1 makes a pair that fails only torch's version rule pass.
void apply_torch_skip(const Environment& env, FrameworkReport& rep);

FrameworkReport inspect_torch(const FileSystem& fs, const Environment& env, const LoaderSystem& sys, const PythonEnv& pe,
                              const std::string& site);
FrameworkReport inspect_tensorflow(const FileSystem& fs, const Environment& env, const LoaderSystem& sys, const PythonEnv& pe,
                              const std::string& site);
FrameworkReport inspect_jax(const FileSystem& fs, const Environment& env, const LoaderSystem& sys, const PythonEnv& pe,
                              const std::string& site);
std::vector<FrameworkReport> inspect_onnxruntime(const FileSystem& fs, const Environment& env, const LoaderSystem& sys,
                                                 const PythonEnv& pe, const std::string& site);
FrameworkReport inspect_paddle(const FileSystem& fs, const Environment& env, const LoaderSystem& sys, const PythonEnv& pe,
                              const std::string& site);

}  // namespace cudnnup::framework
