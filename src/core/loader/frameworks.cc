#include "loader/frameworks.h"

#include <algorithm>
#include <regex>

#include "base/path_glob.h"
#include "base/paths.h"
#include "base/strings.h"
#include "facts/cudnn_files.h"
#include "facts/machines.h"
#include "loader/cudnn_load_model.h"
#include "loader/framework_support.h"
#include "loader/windows/frameworks_windows.h"

namespace cudnnup {
namespace framework {

const uint16_t kHostMachine = host_machine().elf;

std::optional<std::string> read_text(const FileSystem& fs, const std::string& path) {
  auto text = fs.read_file(path, 4 << 20);
  if (!text) return std::nullopt;
  return *text;
}

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

std::vector<std::string> python_sys_path(const Environment& env, const PythonEnv& pe) {
  std::vector<std::string> out;
  for (const auto& entry : env.get_list("PYTHONPATH")) {
    if (!entry.empty()) out.push_back(paths::is_absolute(entry) ? entry : paths::join(env.cwd, entry));
  }
  for (const auto& sp : pe.site_packages) out.push_back(sp);
  return out;
}

std::string first_pip_cudnn(const FileSystem& fs, const std::vector<std::string>& sys_path, const std::string& pattern) {
  for (const std::string& entry : sys_path) {
    auto matches = expand_glob(fs, paths::join(entry, "nvidia/cudnn/lib/" + pattern));
    if (!matches.empty()) return matches.front();
  }
  return {};
}

LoaderSimulation start_python(const FileSystem& fs, const LoaderSystem& system, const PythonEnv& pe,
                              std::vector<std::string>& notes) {
  LoaderSimulation sim(fs, system);
  if (!pe.interpreter.empty() && sim.start_executable(pe.interpreter)) return sim;
  ElfInfo python;
  python.is_64bit = true;
  python.machine = kHostMachine;
  sim.start_synthetic(pe.interpreter.empty() ? "(python)" : pe.interpreter, python, paths::join(pe.prefix, "bin"));
  notes.push_back("the interpreter could not be read as ELF; modelled as a program without RPATH");
  return sim;
}

int python_loads(LoaderSimulation& sim, const std::string& path, bool global) {
  Resolution r = sim.dlopen(path, 0, global);
  return r.found ? sim.find_mapped_file(r.canonical) : -1;
}

bool any_unresolved_needed(const LoaderSimulation& sim) {
  for (const auto& r : sim.log()) {
    if (r.kind == "DT_NEEDED" && !r.found) return true;
  }
  return false;
}

int needed_cudnn_major(const LoaderSimulation& sim, int object) {
  if (object < 0) return 0;
  for (const auto& needed : sim.objects()[object].elf.needed) {
    if (is_cudnn_shim_name(needed)) return parse_cudnn_library_name(paths::basename(needed))->major;
  }
  return 0;
}

void finish_load(const FileSystem& fs, LoaderSimulation& sim, FrameworkReport& rep, const PythonEnv& pe, int major,
                 int caller) {
  WhichReport base;
  base.target = rep.framework + " " + rep.version + (rep.variant.empty() ? "" : " (" + rep.variant + ")") + " in " + pe.prefix;
  base.target_kind = "framework";
  rep.load = finish_which(fs, sim, cudnn_library_file_name("cudnn", major, false), caller < 0 ? 0 : caller, std::move(base));
  set_loaded_version(fs, rep);
}

void set_loaded_version(const FileSystem& fs, FrameworkReport& rep) {
  if (!rep.load || !rep.load->resolution.found) return;
  auto shim = cudnn_copy_version(fs, rep.load->resolution.path, nullptr);
  // What the framework's check sees is cudnnGetVersion(), which cuDNN 9 answers from the graph
  // library that loaded: with sub-libraries from another copy that is the other copy's version.
  const auto& cudnn = rep.load->cudnn;
  rep.loaded_cudnn = cudnn && cudnn->reported_version ? cudnn->reported_version : shim;
  if (shim && rep.loaded_cudnn && !(*shim == *rep.loaded_cudnn)) {
    rep.notes.push_back("cudnnGetVersion() will report " + rep.loaded_cudnn->str() + ", the version of the graph library "
                        "that loads, although the shim " + rep.load->resolution.canonical + " is " + shim->str());
  }
}

void judge(FrameworkReport& rep, bool minor_matters) {
  if (!rep.load || !rep.load->resolution.found) {
    rep.passes = false;
    rep.verdict = "no cuDNN would load: " + (rep.load ? rep.load->resolution.error : std::string("nothing loads cuDNN"));
    return;
  }
  const std::optional<CudnnLoad>& cudnn = rep.load->cudnn;
  if (cudnn && cudnn->check == CudnnCheck::kFails) {
    rep.passes = false;
    rep.verdict = "cuDNN's own sub-library check fails: " +
                  (cudnn->check_detail.empty() ? std::string("versions differ") : cudnn->check_detail.front());
    return;
  }
  std::string mix;
  if (cudnn && cudnn->mixed) {
    mix = cudnn->check == CudnnCheck::kPasses ? " (its files come from more than one copy, all of the same version)"
                                              : " (its files come from more than one copy; their versions are unknown)";
  }
  if (!rep.built_cudnn || !rep.loaded_cudnn) {
    rep.verdict = "loads " + rep.load->resolution.canonical + "; cannot check versions (" +
                  (!rep.built_cudnn ? "build version unknown" : "version of that copy unknown") + ")" + mix;
    return;
  }
  const Version& b = *rep.built_cudnn;
  const Version& r = *rep.loaded_cudnn;
  bool ok = b.major() == r.major() && (!minor_matters || b.parts.size() < 2 || r.minor() >= b.minor());
  rep.passes = ok;
  if (ok && cudnn && cudnn->mixed && cudnn->check == CudnnCheck::kUnknown) rep.passes = std::nullopt;
  rep.verdict = std::string(ok ? "ok: " : "fails its check: ") + "built for cuDNN " + b.str() + ", would load " +
                r.str() + " from " + paths::parent(rep.load->resolution.canonical) + mix;
}

}  // namespace framework

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
  if (env.windows()) return inspect_frameworks_windows(fs, env, envs, only);
  using namespace framework;
  auto wanted = [&](const std::string& name) {
    return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
  };
  std::vector<FrameworkReport> reports;
  // One reading of the machine's loader configuration for every framework model.
  std::vector<std::string> problems;
  LoaderSystem sys = loader_system_from(fs, env, true, kHostMachine, &problems);
  for (const PythonEnv& pe : envs) {
    for (const std::string& site : pe.site_packages) {
      auto add = [&](FrameworkReport rep) {
        rep.env_prefix = pe.prefix;
        rep.interpreter = pe.interpreter;
        rep.site_packages = site;
        for (const auto& p : problems) rep.notes.push_back(p);
        reports.push_back(std::move(rep));
      };
      if (wanted("torch") && fs.is_dir(paths::join(site, "torch"))) add(inspect_torch(fs, env, sys, pe, site));
      if (wanted("tensorflow") && fs.is_dir(paths::join(site, "tensorflow"))) add(inspect_tensorflow(fs, env, sys, pe, site));
      if (wanted("jax") && (fs.is_dir(paths::join(site, "jax_plugins")) || fs.is_dir(paths::join(site, "jaxlib")))) {
        add(inspect_jax(fs, env, sys, pe, site));
      }
      if (wanted("onnxruntime") && fs.is_dir(paths::join(site, "onnxruntime"))) {
        for (auto& rep : inspect_onnxruntime(fs, env, sys, pe, site)) add(std::move(rep));
      }
      if (wanted("paddle") && fs.is_dir(paths::join(site, "paddle"))) add(inspect_paddle(fs, env, sys, pe, site));
    }
  }
  return reports;
}

}  // namespace cudnnup
