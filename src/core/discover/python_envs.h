// Python environments (venvs, conda envs, pyenv and uv-managed Pythons, the system's) found
// without running Python: from PATH, VIRTUAL_ENV, CONDA_PREFIX, a ./.venv in the working
// directory or a parent (uv, poetry), ~/.conda/environments.txt, the usual conda roots,
// $PYENV_ROOT/versions, uv's Python directory and virtualenvwrapper's. Never a crawl of the disk:
// cost grows with the number of environments.
//
// A venv is described from its pyvenv.cfg (CPython venv, virtualenv, uv all write one): its
// interpreter is the venv's bin/python3 as given, never the base interpreter the symlink points
// at, and with `include-system-site-packages = true` the base's site-packages come after its own
// (the order of sys.path). A conda environment counts even without Python (its lib/ holds cuDNN
// for TensorFlow and friends); its conda-meta/*.json records name the packages installed.
#pragma once

#include <string>
#include <vector>

#include "base/environment.h"
#include "base/filesystem.h"
#include "base/model.h"

namespace cudnnup {

// One conda-meta/<name>-<version>-<build>.json record (conda/models/records.py PrefixRecord).
struct CondaPackage {
  std::string name;     // "cudnn"
  std::string version;  // "9.3.0.75"
  std::string build;    // "h93bb076_0"
  std::string record;   // the record file
};

struct PythonEnv {
  std::string prefix;                      // canonical: /home/u/venv, /opt/conda/envs/x
  std::string kind;                        // "venv", "conda", "pyenv", "uv", "system", "user", "given"
  std::string interpreter;                 // prefix/bin/python3 (Windows: prefix/python.exe), when present
  std::vector<std::string> site_packages;  // in sys.path order: the env's own, then the base's when it includes them
  std::vector<std::string> found_via;      // "PATH", "VIRTUAL_ENV", "~/.conda/environments.txt", ...
  std::string base_prefix;                 // venv: the environment of the interpreter it was made from
  bool system_site_packages = false;       // venv: include-system-site-packages = true
  std::vector<CondaPackage> conda_packages;  // conda: the cuDNN, CUDA and framework records
};

std::vector<PythonEnv> find_python_envs(const FileSystem& fs, const Environment& env,
                                        std::vector<ScanIssue>* issues);

// The environment of one interpreter or prefix as the user names it (`--python`): a venv's
// bin/python3 (not followed to the base interpreter), a venv or conda directory, or any other
// interpreter (followed through its symlinks to its installation). Errors when nothing there
// looks like a Python environment.
Result<PythonEnv> python_env_for(const FileSystem& fs, const Environment& env, const std::string& python);

// The conda-meta records of `prefix` whose package names are in `wanted` (all when empty).
std::vector<CondaPackage> read_conda_packages(const FileSystem& fs, const std::string& prefix,
                                              const std::vector<std::string>& wanted = {});

// Splits a conda-meta record name "cuda-version-12.4-h3060b56_3.json" into name, version, build.
bool parse_conda_record_name(const std::string& file_name, CondaPackage* out);

}  // namespace cudnnup
