#include "discover/python_envs.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "base/paths.h"
#include "base/strings.h"

namespace cudnnup {
namespace {

// conda packages worth reading: cuDNN itself, the CUDA version pins, and the frameworks.
const std::vector<std::string>& interesting_conda_packages() {
  static const std::vector<std::string> names = {
      "cudnn", "libcudnn", "libcudnn-dev", "cuda-version", "cudatoolkit", "cuda-cudart", "pytorch", "pytorch-gpu",
      "tensorflow", "tensorflow-gpu", "tensorflow-base", "jaxlib", "onnxruntime", "onnxruntime-gpu",
      "paddlepaddle", "paddlepaddle-gpu", "python"};
  return names;
}

// pyvenv.cfg: "key = value" lines (CPython Lib/venv/__init__.py, virtualenv, uv).
std::map<std::string, std::string> read_pyvenv_cfg(const FileSystem& fs, const std::string& prefix) {
  std::map<std::string, std::string> out;
  auto text = fs.read_file(prefix + "/pyvenv.cfg", 64 << 10);
  if (!text) return out;
  for (const auto& line : paths::split_list(*text, '\n')) {
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string_view entry(line);
    out[ascii_lower(trim(entry.substr(0, eq)))] = std::string(trim(entry.substr(eq + 1)));
  }
  return out;
}

class EnvCollector {
 public:
  EnvCollector(const FileSystem& fs, const Environment& env, std::vector<ScanIssue>* issues)
      : fs_(fs), env_(env), issues_(issues) {}

  // Adds `prefix` if it looks like a Python installation (or a conda environment); `why` says
  // how we got here.
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
    auto pe = describe(fs_, env_, prefix, kind_hint);
    if (!pe) return;
    pe->found_via.push_back(why);
    index_[prefix] = envs_.size();
    envs_.push_back(std::move(*pe));
  }

  // Each child of `dir` is an environment (conda envs/, pyenv versions/, uv's python/, ...).
  void consider_children(const std::string& dir, const std::string& why, const std::string& kind_hint = {}) {
    if (!fs_.is_dir(dir)) return;
    auto listing = fs_.list_dir(dir);
    if (!listing) {
      if (issues_) issues_->push_back({dir, listing.error().message});
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

  // A PythonEnv for `prefix`, or nullopt when it is neither a Python installation nor a conda
  // environment.
  static std::optional<PythonEnv> describe(const FileSystem& fs, const Environment& env, const std::string& prefix,
                                           const std::string& kind_hint) {
    PythonEnv pe;
    pe.prefix = prefix;
    pe.kind = kind_hint;
    bool conda = fs.is_dir(prefix + "/conda-meta");
    auto cfg = read_pyvenv_cfg(fs, prefix);
    if (fs.exists(prefix + "/pyvenv.cfg")) pe.kind = "venv";
    else if (conda) pe.kind = "conda";
    else if (pe.kind.empty()) pe.kind = "system";
    site_packages_of(fs, env, prefix, pe.site_packages);
    if (pe.kind == "venv") {
      // home = the directory of the base interpreter (bin/ on POSIX, the prefix itself on Windows).
      if (auto home = cfg.find("home"); home != cfg.end() && !home->second.empty()) {
        std::string h = paths::normalize(home->second);
        pe.base_prefix = env.windows() || paths::basename(h) != "bin" ? h : paths::parent(h);
      }
      auto sys = cfg.find("include-system-site-packages");
      pe.system_site_packages = sys != cfg.end() && (sys->second == "true" || sys->second == "True");
      if (pe.system_site_packages && !pe.base_prefix.empty()) {
        auto base = fs.canonical(pe.base_prefix);
        site_packages_of(fs, env, base ? *base : pe.base_prefix, pe.site_packages);
      }
    }
    for (const char* exe : {"/bin/python3", "/bin/python", "/python.exe", "/Scripts/python.exe"}) {
      if (fs.exists(prefix + exe)) {
        pe.interpreter = prefix + exe;
        break;
      }
    }
    if (conda) pe.conda_packages = read_conda_packages(fs, prefix, interesting_conda_packages());
    // A conda environment matters even without Python: its lib/ may hold cuDNN.
    if (pe.site_packages.empty() && !conda) return std::nullopt;
    return pe;
  }

 private:
  static void add_unique(std::vector<std::string>& v, const std::string& s) {
    if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
  }

  static void site_packages_of(const FileSystem& fs, const Environment& env, const std::string& prefix,
                               std::vector<std::string>& out) {
    if (env.windows()) {
      std::string sp = prefix + "/Lib/site-packages";
      if (fs.is_dir(sp)) add_unique(out, sp);
      return;
    }
    // lib/python3.X/site-packages (venv, conda, pyenv, uv), lib/python3/dist-packages and
    // local/lib/python3.X/dist-packages (Debian's system Python).
    for (const char* lib : {"/local/lib", "/lib", "/lib64"}) {
      std::string libdir = prefix + lib;
      auto listing = fs.list_dir(libdir);
      if (!listing) continue;
      std::vector<std::string> names;
      for (const auto& e : *listing) {
        if (e.name.compare(0, 6, "python") == 0) names.push_back(e.name);
      }
      std::sort(names.begin(), names.end());
      for (const auto& n : names) {
        for (const char* leaf : {"/site-packages", "/dist-packages"}) {
          std::string sp = libdir + "/" + n + leaf;
          if (!fs.is_dir(sp)) continue;
          auto canonical = fs.canonical(sp);
          add_unique(out, canonical ? *canonical : sp);
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

// uv's managed Pythons (docs.astral.sh/uv/reference/storage): $UV_PYTHON_INSTALL_DIR, else
// $XDG_DATA_HOME/uv/python, else ~/.local/share/uv/python (Windows: %APPDATA%\uv\data\python).
std::string uv_python_dir(const Environment& env) {
  if (auto dir = env.get("UV_PYTHON_INSTALL_DIR"); dir && !dir->empty()) return paths::normalize(*dir);
  if (env.windows()) {
    auto appdata = env.get("APPDATA");
    return appdata ? paths::normalize(*appdata) + "/uv/data/python" : "";
  }
  if (auto xdg = env.get("XDG_DATA_HOME"); xdg && !xdg->empty()) return paths::normalize(*xdg) + "/uv/python";
  return env.home.empty() ? "" : env.home + "/.local/share/uv/python";
}

// ./.venv in the working directory or the nearest parent that has one (uv, poetry in-project).
std::string project_venv(const FileSystem& fs, const Environment& env) {
  if (env.cwd.empty()) return {};
  std::string dir = paths::normalize(env.cwd);
  for (int depth = 0; depth < 64; ++depth) {
    if (fs.exists(dir + "/.venv/pyvenv.cfg")) return dir + "/.venv";
    std::string up = paths::parent(dir);
    if (up == dir || up.empty()) break;
    dir = up;
  }
  return {};
}

}  // namespace

bool parse_conda_record_name(const std::string& file_name, CondaPackage* out) {
  const std::string ext = ".json";
  if (file_name.size() <= ext.size() || file_name.compare(file_name.size() - ext.size(), ext.size(), ext) != 0) return false;
  std::string stem = file_name.substr(0, file_name.size() - ext.size());
  size_t build_dash = stem.rfind('-');
  if (build_dash == std::string::npos || build_dash == 0) return false;
  size_t version_dash = stem.rfind('-', build_dash - 1);
  if (version_dash == std::string::npos || version_dash == 0) return false;
  out->name = stem.substr(0, version_dash);
  out->version = stem.substr(version_dash + 1, build_dash - version_dash - 1);
  out->build = stem.substr(build_dash + 1);
  return !out->name.empty() && !out->version.empty() && !out->build.empty();
}

std::vector<CondaPackage> read_conda_packages(const FileSystem& fs, const std::string& prefix,
                                              const std::vector<std::string>& wanted) {
  std::vector<CondaPackage> out;
  std::string meta = prefix + "/conda-meta";
  auto listing = fs.list_dir(meta);
  if (!listing) return out;
  for (const auto& e : *listing) {
    CondaPackage p;
    if (!parse_conda_record_name(e.name, &p)) continue;
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), p.name) == wanted.end()) continue;
    p.record = meta + "/" + e.name;
    // The record itself is authoritative for name and version; cuDNN's records are small, while
    // a framework's lists thousands of files (megabytes), so those keep the file name's fields.
    bool small = p.name.find("cudnn") != std::string::npos || p.name == "cuda-version";
    if (auto text = small ? fs.read_file(p.record, 4 << 20) : Result<std::string>(std::string())) {
      auto j = nlohmann::json::parse(*text, nullptr, false);
      if (j.is_object()) {
        if (j.contains("name") && j["name"].is_string()) p.name = j["name"].get<std::string>();
        if (j.contains("version") && j["version"].is_string()) p.version = j["version"].get<std::string>();
        if (j.contains("build") && j["build"].is_string()) p.build = j["build"].get<std::string>();
      }
    }
    out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(), [](const CondaPackage& a, const CondaPackage& b) { return a.name < b.name; });
  return out;
}

std::vector<PythonEnv> find_python_envs(const FileSystem& fs, const Environment& env, std::vector<ScanIssue>* issues) {
  EnvCollector c(fs, env, issues);
  const std::string home = env.home;
  if (auto v = env.get("VIRTUAL_ENV")) c.consider(*v, "VIRTUAL_ENV", "venv");
  if (auto v = env.get("CONDA_PREFIX")) c.consider(*v, "CONDA_PREFIX", "conda");
  if (auto dot = project_venv(fs, env); !dot.empty()) c.consider(dot, "./.venv (not activated)", "venv");
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
        std::string l(trim(line));
        if (!l.empty() && l[0] != '#') c.consider(l, "~/.conda/environments.txt", "conda");
      }
    }
    for (const char* root : {"miniconda3", "anaconda3", "miniforge3", "mambaforge", "micromamba", ".conda"}) {
      std::string r = home + "/" + root;
      if (!fs.is_dir(r)) continue;
      c.consider(r, std::string("~/") + root, "conda");
      c.consider_children(r + "/envs", std::string("~/") + root + "/envs", "conda");
    }
    c.consider_children(home + "/.virtualenvs", "~/.virtualenvs", "venv");
    c.consider_children(home + "/.local/share/virtualenvs", "~/.local/share/virtualenvs", "venv");
  }
  // pyenv: $PYENV_ROOT (default ~/.pyenv) holds versions/<v>/ and pyenv-virtualenv's envs there.
  std::string pyenv_root = env.get("PYENV_ROOT").value_or(home.empty() ? "" : home + "/.pyenv");
  if (!pyenv_root.empty()) c.consider_children(paths::normalize(pyenv_root) + "/versions", "PYENV_ROOT versions", "pyenv");
  if (std::string uv = uv_python_dir(env); !uv.empty()) c.consider_children(uv, "uv Python directory", "uv");
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

Result<PythonEnv> python_env_for(const FileSystem& fs, const Environment& env, const std::string& python) {
  std::string given = paths::normalize(paths::is_absolute(python) || env.cwd.empty() ? python : paths::join(env.cwd, python));
  auto describe_at = [&](const std::string& prefix, const std::string& interpreter) -> std::optional<PythonEnv> {
    auto canon = fs.canonical(prefix);
    auto pe = EnvCollector::describe(fs, env, canon ? *canon : prefix, "given");
    if (!pe) return std::nullopt;
    if (!interpreter.empty()) pe->interpreter = interpreter;
    pe->found_via = {"--python"};
    return pe;
  };
  if (fs.is_dir(given)) {
    if (auto pe = describe_at(given, "")) return *pe;
    return make_error(ErrorCode::kNotFound, given + " is not a Python environment (no site-packages, pyvenv.cfg or conda-meta)", given);
  }
  if (!fs.exists(given)) return make_error(ErrorCode::kNotFound, "no such interpreter: " + given, given);
  // A venv's interpreter is a symlink to the base one: the environment is the directory above
  // its bin/ (where pyvenv.cfg is), not the base installation the link leads to.
  std::string dir = paths::parent(given);
  std::string up = env.windows() && paths::basename(dir) != "Scripts" ? dir : paths::parent(dir);
  if (fs.exists(up + "/pyvenv.cfg") || fs.is_dir(up + "/conda-meta")) {
    if (auto pe = describe_at(up, given)) return *pe;
  }
  auto real = fs.canonical(given);
  std::string real_dir = paths::parent(real ? *real : given);
  std::string real_prefix = env.windows() ? real_dir : paths::parent(real_dir);
  if (auto pe = describe_at(real_prefix, given)) return *pe;
  return make_error(ErrorCode::kNotFound,
                    "no site-packages found for " + given + " (looked in " + real_prefix + "/lib/python3*/)", given);
}

}  // namespace cudnnup
