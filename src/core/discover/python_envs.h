// Python environments (venvs, conda envs, pyenv versions, the system's) found without running
// Python: from PATH, VIRTUAL_ENV, CONDA_PREFIX, ~/.conda/environments.txt and the usual envs
// directories. Never a crawl of the disk: cost grows with the number of environments.
#pragma once

#include <string>
#include <vector>

#include "base/environment.h"
#include "base/filesystem.h"
#include "base/model.h"

namespace cudnnup {

struct PythonEnv {
  std::string prefix;                      // canonical: /home/u/venv, /opt/conda/envs/x
  std::string kind;                        // "venv", "conda", "pyenv", "system"
  std::string interpreter;                 // prefix/bin/python3 (Windows: prefix/python.exe), when present
  std::vector<std::string> site_packages;  // every site-packages dir of the env
  std::vector<std::string> found_via;      // "PATH", "VIRTUAL_ENV", "~/.conda/environments.txt", ...
};

std::vector<PythonEnv> find_python_envs(const FileSystem& fs, const Environment& env,
                                        std::vector<ScanIssue>* issues);

}  // namespace cudnnup
