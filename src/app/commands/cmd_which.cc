// `cudnnup which [LIB] [--for PROGRAM|LIBRARY|FRAMEWORK] [--pid PID]`: which copy of cuDNN (or
// any library) loads, by glibc's rules, and why (docs/commands/which.md).
#include <algorithm>
#include <cctype>
#include <iostream>
#include <memory>

#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"
#include "app/child/framework_probe.h"
#include "app/render/json_document.h"
#include "app/render/which_render.h"
#include "loader/frameworks.h"
#include "base/paths.h"
#include "binfmt/proc_maps.h"
#include "discover/python_envs.h"
#include "loader/which.h"
#include "loader/windows/which_windows.h"
#include "base/strings.h"
#include "base/json_text.h"

namespace cudnnup {
namespace {

struct WhichOptions {
  std::string lib;
  std::string target;
  int pid = 0;
  std::string python;
  bool verbose = false;
  bool probe = false;
  std::string module_dir;             // Windows, --for python: the .pyd's folder
  std::vector<std::string> dll_dirs;  // Windows, --for python/torch: os.add_dll_directory dirs
};

bool is_framework_name(const std::string& s) {
  const auto& names = known_frameworks();
  return std::find(names.begin(), names.end(), s) != names.end();
}

// Environments to look at for a framework: the one of --python (a venv's interpreter stays the
// venv's; discover/python_envs.h), else every one found.
Result<std::vector<PythonEnv>> python_envs_for(const AppContext& ctx, const std::string& python, std::vector<ScanIssue>& issues) {
  if (python.empty()) return find_python_envs(*ctx.fs, ctx.env, &issues);
  auto pe = python_env_for(*ctx.fs, ctx.env, python);
  if (!pe) return pe.error();
  return std::vector<PythonEnv>{*pe};
}

int run_pid(AppContext& ctx, const WhichOptions& o) {
  auto report = inspect_process_cudnn(*ctx.fs, o.pid);
  if (!report) return report_error(ctx, report.error());
  if (ctx.options.json) {
    std::cout << dump_json(json_document("cudnnup.which/1", "process", process_report_to_json(*report)), 2) << std::endl;
  } else {
    std::cout << process_report_to_text(*report, ctx.color);
  }
  return report->mixed ? kExitProblems : kExitOk;
}

int run_framework(AppContext& ctx, const WhichOptions& o) {
  std::vector<ScanIssue> issues;
  auto found = python_envs_for(ctx, o.python, issues);
  if (!found) return report_error(ctx, found.error());
  const std::vector<PythonEnv>& envs = *found;
  auto reports = inspect_frameworks(*ctx.fs, ctx.env, envs, {o.target});
  std::vector<FrameworkProbe> probes;
  if (o.probe && ctx.env.windows()) {
    std::cerr << "cudnnup: note: --probe reads the process's /proc/self/maps and runs on Linux only; "
                 "the prediction below is not compared with a real process\n";
  } else if (o.probe) {
    probes = probe_frameworks(reports);
  }
  if (ctx.options.json) {
    nlohmann::ordered_json out = json_document("cudnnup.which/1", "framework");
    out["framework"] = o.target;
    out["reports"] = nlohmann::ordered_json::array();
    for (const auto& r : reports) out["reports"].push_back(framework_report_to_json(r));
    if (o.probe) {
      out["probes"] = nlohmann::ordered_json::array();
      for (const auto& p : probes) out["probes"].push_back(framework_probe_to_json(p));
    }
    out["environments_searched"] = nlohmann::ordered_json::array();
    for (const auto& e : envs) out["environments_searched"].push_back(e.prefix);
    std::cout << dump_json(out, 2) << std::endl;
  } else if (reports.empty()) {
    std::cout << "No Python environment with " << o.target << " was found (searched " << envs.size()
              << " environment" << (envs.size() == 1 ? "" : "s") << "). Activate the environment, or pass --python "
              << (ctx.env.windows() ? "C:\\path\\to\\venv\\Scripts\\python.exe" : "/path/to/venv/bin/python") << ".\n";
  } else {
    for (const auto& r : reports) std::cout << framework_report_to_text(r, o.verbose, ctx.color) << "\n";
    if (o.probe) std::cout << "What the real processes loaded (--probe):\n";
    for (const auto& p : probes) std::cout << framework_probe_to_text(p, ctx.color);
  }
  if (reports.empty()) return kExitProblems;
  for (const auto& r : reports) {
    if (r.passes && !*r.passes) return kExitProblems;
  }
  for (const auto& p : probes) {
    if (!p.agrees) return kExitProblems;
  }
  return kExitOk;
}

int print_which(AppContext& ctx, const WhichReport& report, bool verbose) {
  if (ctx.options.json) {
    std::cout << dump_json(json_document("cudnnup.which/1", "library", which_report_to_json(report)), 2) << std::endl;
  } else {
    std::cout << which_report_to_text(report, verbose, ctx.color);
  }
  // A mix of copies is a problem when cuDNN's own check fails or cannot be predicted; files of
  // the same version from two copies pass it (loader/cudnn_load_model.h).
  bool bad_mix = report.cudnn && (report.cudnn->check == CudnnCheck::kFails ||
                                  (report.cudnn->mixed && report.cudnn->check == CudnnCheck::kUnknown));
  bool bad = !report.resolution.found || bad_mix || !report.hazards.empty();
  return bad ? kExitProblems : kExitOk;
}

// Windows: the Python environment of --python (python.exe or its folder), else the active one
// (CONDA_PREFIX, VIRTUAL_ENV), else the first python.exe on PATH.
std::string windows_python_prefix(const AppContext& ctx, const std::string& python) {
  auto prefix_of_exe = [](const std::string& exe) {
    std::string dir = paths::parent(exe);
    // A venv's Scripts\python.exe: the environment is the folder above.
    return paths::basename(dir) == "Scripts" ? paths::parent(dir) : dir;
  };
  if (!python.empty()) {
    std::string p = paths::normalize(paths::is_absolute(python) ? python : paths::join(ctx.env.cwd, python));
    return ctx.fs->is_dir(p) ? p : prefix_of_exe(p);
  }
  for (const char* var : {"CONDA_PREFIX", "VIRTUAL_ENV"}) {
    if (auto v = ctx.env.get(var); v && !v->empty()) return paths::normalize(*v);
  }
  for (const auto& dir : ctx.env.get_list("PATH")) {
    if (dir.empty()) continue;
    std::string exe = paths::join(paths::normalize(dir), "python.exe");
    if (ctx.fs->is_file(exe)) return prefix_of_exe(exe);
  }
  return {};
}

int run_which_windows(AppContext& ctx, const WhichOptions& o) {
  if (o.pid != 0) {
    return report_error(ctx, make_error(ErrorCode::kUnsupported,
                                        "--pid reads /proc/PID/maps and is Linux only; on Windows use Process Explorer "
                                        "or `tasklist /m cudnn*` to see which DLLs a process has loaded"));
  }
  WindowsWhichTarget target;
  std::string lower_target = ascii_lower(o.target);
  if (is_framework_name(lower_target) && !ctx.fs->exists(o.target)) {
    // A framework by its own loading code, in every environment found (or --python's), as on Linux.
    if (!o.dll_dirs.empty() || !o.module_dir.empty()) {
      return report_error(ctx, make_error(ErrorCode::kUsage, "--dll-dir and --module-dir go with --for python (a "
                                                             "program's own os.add_dll_directory); --for " + lower_target +
                                                             " follows the framework's own loading code"));
    }
    WhichOptions fw = o;
    fw.target = lower_target;
    return run_framework(ctx, fw);
  }
  if (o.target.empty()) {
    target.kind = "plain";
  } else if (lower_target == "python") {
    target.kind = lower_target;
    target.python_prefix = windows_python_prefix(ctx, o.python);
    if (!o.module_dir.empty()) target.module_dir = paths::normalize(o.module_dir);
    target.dll_dirs = o.dll_dirs;
  } else {
    target.kind = "executable";
    target.program = paths::is_absolute(o.target) ? o.target : paths::join(ctx.env.cwd, o.target);
  }
  auto report = which_windows(*ctx.fs, ctx.env, target, o.lib);
  if (!report) return report_error(ctx, report.error());
  return print_which(ctx, *report, o.verbose);
}

int run_which(AppContext& ctx, const WhichOptions& o) {
  if (ctx.env.windows()) return run_which_windows(ctx, o);
  if (o.pid > 0) return run_pid(ctx, o);
  if (o.pid < 0) return report_error(ctx, make_error(ErrorCode::kUsage, "--pid needs a process id (a positive number)"));
  if (!o.target.empty() && is_framework_name(o.target) && !ctx.fs->exists(o.target)) return run_framework(ctx, o);
  if (o.target.empty()) return print_which(ctx, which_plain_program(*ctx.fs, ctx.env, o.lib), o.verbose);
  std::string path = o.target;
  if (!paths::is_absolute(path)) path = paths::join(ctx.env.cwd, path);
  auto report = which_for_file(*ctx.fs, ctx.env, path, o.lib);
  if (!report) {
    Error e = report.error();
    if (e.code == ErrorCode::kNotFound) {
      e.message += "; frameworks are named: torch, tensorflow, jax, onnxruntime, paddle";
    }
    return report_error(ctx, e);
  }
  return print_which(ctx, *report, o.verbose);
}

}  // namespace

void add_which_command(CLI::App& app, CommandAction& action) {
  auto opts = std::make_shared<WhichOptions>();
  auto* cmd = app.add_subcommand(
      "which",
      "Say which copy of cuDNN (or LIB) would load, the loader rule that picks it, and every copy that loses");
  cmd->footer(
      "Without --for: as a plain program linked with -lcudnn. --for PATH: as that program or .so (its RPATH,\n"
      "RUNPATH and dependencies count). --for torch|tensorflow|jax|onnxruntime|paddle: as that framework in\n"
      "each Python environment found (or the one of --python), without importing it. --pid PID: what a\n"
      "running process really mapped, grouped by copy.\n"
      "Rules follow glibc ld.so: already-loaded SONAME, DT_RPATH (inherited), LD_LIBRARY_PATH, DT_RUNPATH,\n"
      "/etc/ld.so.cache, default dirs; then cuDNN's own dlopen of its sub-libraries.\n"
      "Windows: the DLL search order instead (LoadLibrary with SafeDllSearchMode: program folder,\n"
      "System32, System, Windows, current dir, PATH). --for APP.exe: that program; --for python: a Python\n"
      "3.8+ extension module (LOAD_LIBRARY_SEARCH_DEFAULT_DIRS: PATH is ignored; --module-dir, --dll-dir\n"
      "for os.add_dll_directory); --for torch|tensorflow|jax|onnxruntime: that framework's own loading\n"
      "(torch's DLL folders and preloads, TensorFlow <= 2.10's LoadLibrary, ONNX Runtime's provider DLL and\n"
      "preload_dlls(); no GPU: TensorFlow >= 2.11 and JAX on native Windows) in each environment found.\n"
      "Exit codes: 0 it loads cleanly, 1 it does not load / cuDNN's version check would fail (copies of different\n"
      "versions mix) / the framework's check fails, 2 usage.\n"
      "Examples:\n  cudnnup which\n  cudnnup which --for torch\n  cudnnup which --for ./my_app\n"
      "  cudnnup which libcudnn_graph.so.9 --for /opt/app/lib/libinfer.so\n  cudnnup which --pid 4242\n"
      "  cudnnup which --for C:\\apps\\train.exe          (Windows)\n"
      "  cudnnup which --for python --python C:\\venv\\Scripts\\python.exe --dll-dir D:\\cudnn\\bin");
  cmd->add_option("LIB", opts->lib, "Library name (default libcudnn.so.9; '8' or 'cudnn8' mean libcudnn.so.8)");
  cmd->add_option("--for", opts->target, "A program, a shared object, or a framework name")->type_name("PATH");
  cmd->add_option("--pid", opts->pid, "Report what this running process has mapped (/proc/PID/maps)");
  cmd->add_option("--python", opts->python, "With a framework: the interpreter (or env prefix) to inspect")->type_name("PATH");
  cmd->add_option("--module-dir", opts->module_dir, "Windows, --for python: the folder of the .pyd that loads the DLL")
      ->type_name("DIR");
  cmd->add_option("--dll-dir", opts->dll_dirs,
                  "Windows, --for python|torch: a folder the program adds with os.add_dll_directory (repeatable)")
      ->type_name("DIR");
  cmd->add_flag("-v,--verbose", opts->verbose, "Also list candidates that were missing");
  cmd->add_flag("--probe", opts->probe,
                "With a framework: also run its interpreter (child, timeout) to see what it really loads, and compare");
  cmd->callback([&action, opts] { action = [opts](AppContext& ctx) { return run_which(ctx, *opts); }; });
}

}  // namespace cudnnup
