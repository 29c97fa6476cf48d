#include "discover/python_envs.h"

#include <algorithm>
#include <map>

#include "base/paths.h"

namespace cudnnup {
namespace {

class EnvCollector {
 public:
  EnvCollector(const FileSystem& fs, const Environment& env, std::vector<ScanIssue>* issues)
      : fs_(fs), env_(env), issues_(issues) {}

  // Adds `prefix` if it looks like a Python installation; `why` says how we got here.
  void consider(const std::string& raw_prefix, const std::string& why, const std::string& kind_hint = {}) {
    if (raw_prefix.empty()) return;
    auto canonical = fs_.canonical(raw_prefix);
    if (!canonical) return;  // gone or unreadable: nothing to report for a guess
    std::string prefix = *canonical;
    if (auto it = index_.find(prefix); it != index_.end()) {
      auto& via = envs_[it->second].found_via;
      if (std::find(via.begin(), via.end(), why) == via.end()) via.push_back(why);
      return;
    }
    PythonEnv pe;
    pe.prefix = prefix;
    pe.found_via.push_back(why);
    pe.kind = kind_hint;
    if (fs_.exists(prefix + "/pyvenv.cfg")) pe.kind = "venv";
    else if (fs_.is_dir(prefix + "/conda-meta")) pe.kind = "conda";
    else if (pe.kind.empty()) pe.kind = "system";
    collect_site_packages(pe);
    if (pe.site_packages.empty()) return;
    for (const char* exe : {"/bin/python3", "/bin/python", "/python.exe"}) {
      if (fs_.exists(prefix + exe)) {
        pe.interpreter = prefix + exe;
        break;
      }
    }
    index_[prefix] = envs_.size();
    envs_.push_back(std::move(pe));
  }

  // Each child of `dir` is an environment (conda envs/, pyenv versions/, virtualenvwrapper).
  void consider_children(const std::string& dir, const std::string& why, const std::string& kind_hint = {}) {
    if (!fs_.is_dir(dir)) return;
    auto listing = fs_.list_dir(dir);
    if (!listing) {
      issues_->push_back({dir, listing.error().message});
      return;
    }
    std::vector<std::string> names;
    for (const auto& e : *listing) {
      if (e.type == FileType::kDirectory || e.type == FileType::kSymlink) names.push_back(e.name);
    }
    std::sort(names.begin(), names.end());
    for (const auto& n : names) consider(dir + "/" + n, why, kind_hint);
  }

  std::vector<PythonEnv> take() { return std::move(envs_); }

 private:
  void collect_site_packages(PythonEnv& pe) {
    if (env_.windows()) {
      std::string sp = pe.prefix + "/Lib/site-packages";
      if (fs_.is_dir(sp)) pe.site_packages.push_back(sp);
      return;
    }
    // lib/python3.X/site-packages (venv, conda, pyenv), lib/python3/dist-packages and
    // local/lib/python3.X/dist-packages (Debian's system Python).
    for (const char* lib : {"/lib", "/lib64", "/local/lib"}) {
      std::string libdir = pe.prefix + lib;
      auto listing = fs_.list_dir(libdir);
      if (!listing) continue;
      std::vector<std::string> names;
      for (const auto& e : *listing) {
        if (e.name.compare(0, 6, "python") == 0) names.push_back(e.name);
      }
      std::sort(names.begin(), names.end());
      for (const auto& n : names) {
        for (const char* leaf : {"/site-packages", "/dist-packages"}) {
          std::string sp = libdir + "/" + n + leaf;
          if (!fs_.is_dir(sp)) continue;
          auto canonical = fs_.canonical(sp);
          std::string c = canonical ? *canonical : sp;
          if (std::find(pe.site_packages.begin(), pe.site_packages.end(), c) == pe.site_packages.end()) {
            pe.site_packages.push_back(c);
          }
        }
      }
    }
  }

  const FileSystem& fs_;
  const Environment& env_;
  std::vector<ScanIssue>* issues_;
  std::vector<PythonEnv> envs_;
  std::map<std::string, size_t> index_;
};

}  // namespace

std::vector<PythonEnv> find_python_envs(const FileSystem& fs, const Environment& env, std::vector<ScanIssue>* issues) {
  EnvCollector c(fs, env, issues);
  const std::string home = env.home;
  if (auto v = env.get("VIRTUAL_ENV")) c.consider(*v, "VIRTUAL_ENV", "venv");
  if (auto v = env.get("CONDA_PREFIX")) c.consider(*v, "CONDA_PREFIX", "conda");
  // PATH: any entry holding a python interpreter belongs to the environment one level up.
  for (const auto& dir : env.get_list("PATH")) {
    if (dir.empty()) continue;
    std::string d = paths::normalize(dir);
    bool has_python = env.windows() ? fs.exists(d + "/python.exe")
                                    : (fs.exists(d + "/python3") || fs.exists(d + "/python"));
    if (has_python) c.consider(env.windows() ? d : paths::parent(d), "PATH");
  }
  // conda: the base named by CONDA_EXE, the envs listed in ~/.conda/environments.txt, and the
  // usual install roots with their envs/ directories.
  if (auto exe = env.get("CONDA_EXE")) {
    std::string root = paths::parent(paths::parent(paths::normalize(*exe)));
    c.consider(root, "CONDA_EXE", "conda");
    c.consider_children(root + "/envs", "CONDA_EXE envs", "conda");
  }
  if (!home.empty()) {
    auto listed = fs.read_file(home + "/.conda/environments.txt", 1 << 20);
    if (listed) {
      for (const auto& line : paths::split_list(*listed, '\n')) {
        std::string l = line;
        while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.pop_back();
        if (!l.empty() && l[0] != '#') c.consider(l, "~/.conda/environments.txt", "conda");
      }
    }
    for (const char* root : {"miniconda3", "anaconda3", "miniforge3", "mambaforge", "micromamba", ".conda"}) {
      std::string r = home + "/" + root;
      if (!fs.is_dir(r)) continue;
      c.consider(r, std::string("~/") + root, "conda");
      c.consider_children(r + "/envs", std::string("~/") + root + "/envs", "conda");
    }
    c.consider_children(home + "/.pyenv/versions", "~/.pyenv/versions", "pyenv");
    c.consider_children(home + "/.virtualenvs", "~/.virtualenvs", "venv");
    c.consider_children(home + "/.local/share/virtualenvs", "~/.local/share/virtualenvs", "venv");
  }
  if (env.windows()) {
    // python.org installers and system-wide conda.
    if (auto local = env.get("LOCALAPPDATA")) {
      c.consider_children(paths::normalize(*local) + "/Programs/Python", "python.org installer", "system");
    }
    for (const char* root : {"C:/ProgramData/miniconda3", "C:/ProgramData/anaconda3", "C:/ProgramData/miniforge3"}) {
      if (!fs.is_dir(root)) continue;
      c.consider(root, root, "conda");
      c.consider_children(std::string(root) + "/envs", std::string(root) + "/envs", "conda");
    }
  }
  if (!env.windows()) {
    for (const char* root : {"/opt/conda", "/opt/miniconda3", "/opt/anaconda3", "/opt/miniforge3"}) {
      if (!fs.is_dir(root)) continue;
      c.consider(root, root, "conda");
      c.consider_children(std::string(root) + "/envs", std::string(root) + "/envs", "conda");
    }
    c.consider("/usr", "system Python", "system");
    c.consider("/usr/local", "system Python", "system");
  }
  if (!home.empty() && !env.windows()) c.consider(home + "/.local", "user site-packages", "user");
  return c.take();
}

}  // namespace cudnnup
