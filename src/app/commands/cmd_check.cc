// `cudnnup check`: this machine against cudnn.lock (diagnose/lock_check.h; docs/commands/check.md).
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"
#include "app/commands/doctor_runner.h"
#include "app/commands/store_access.h"
#include "app/render/json_document.h"
#include "base/json_text.h"
#include "base/paths.h"
#include "diagnose/lock_check.h"
#include "discover/discovery.h"
#include "discover/python_envs.h"
#include "install/cudnn_lock.h"
#include "platform/sha256.h"
#include "shell/fix_render.h"

namespace cudnnup {
namespace {

struct CheckOptions {
  std::string lock;
  std::string copy;  // --copy DIR: which pip or toolkit copy a lock of that form means here
  bool deep = false;
};

struct CheckOutcome {
  size_t frameworks_checked = 0;  // a pip lock: the frameworks of the wheel's environment
  bool hashed = false;    // every file's sha256 compared (--deep, and always for pip and toolkit copies)
  std::string lock_path;
  CudnnLock lock;
  std::string copy_root;  // "" when the locked version is not installed
  size_t files_checked = 0;
  std::string driver;     // the kernel module's version, "" when none
  std::vector<LockDrift> drift;
};

// The version `exec` and `env` would select here must be the locked one.
void check_selection(const AppContext& ctx, const StoreSnapshot& store, CheckOutcome& out) {
  auto request = selection_request(ctx, store);
  std::string subject = out.lock.id;
  if (!request) {
    out.drift.push_back({"version", subject, "the selection here cannot be read: " + request.error().message});
    return;
  }
  if (request->system()) {
    out.drift.push_back({"version", subject,
                         "`system` is selected here (" + request->describe() + "), the lock names cuDNN " + out.lock.id + ":",
                         {fix::cudnnup({"use", "--local", out.lock.id})}});
    return;
  }
  auto selection = resolve_request(*request, store.installed, store.layout);
  if (!selection) {
    out.drift.push_back({"version", subject, selection.error().message});
  } else if (selection->id.id != out.lock.id) {
    out.drift.push_back({"version", selection->id.id,
                         "cuDNN " + selection->id.id + " is selected here (" + selection->request.describe() +
                             "), the lock names " + out.lock.id + ":",
                         {fix::cudnnup({"use", "--local", out.lock.id})}});
  }
}

void check_copy(const AppContext& ctx, const StoreSnapshot& store, const CheckOptions& opt, CheckOutcome& out) {
  std::string root = store.layout.version_dir(out.lock.id);
  if (!ctx.fs->is_dir(root)) {
    out.drift.push_back({"not_installed", out.lock.id, "cuDNN " + out.lock.id + " is not installed here:",
                         {fix::cudnnup({"install", "--locked"})}});
    return;
  }
  out.copy_root = root;
  std::string manifest_path = paths::join(root, StoreLayout::kManifestName);
  auto manifest = read_manifest(*ctx.fs, manifest_path, root, /*acting=*/false);
  LockedCopy copy{root, manifest ? &*manifest : nullptr, 0, "", ""};
  if (auto info = ctx.fs->stat(manifest_path)) copy.installed_ns = info->mtime_ns;
  if (!manifest && !opt.deep) {
    out.drift.push_back({"changed", manifest_path, "the install manifest cannot be read (" + manifest.error().message +
                                                       "): `cudnnup check --deep` compares the files by sha256"});
  }
  const FileSystem& fs = *ctx.fs;
  FileHasher hasher = [&fs](const std::string& r, const std::string& rel) { return sha256_file_below(fs, r, rel); };
  FileCheck files = check_locked_files(fs, out.lock, copy, opt.deep ? &hasher : nullptr, ctx.env.windows());
  out.files_checked = files.files_checked;
  for (auto& d : files.drift) out.drift.push_back(std::move(d));
  if (auto load = check_plain_program_load(fs, ctx.env, out.lock, root)) out.drift.push_back(std::move(*load));
}

// The Python environment a pip lock's project runs in: the activated one (VIRTUAL_ENV,
// CONDA_PREFIX), else the project's own .venv beside the lock, else the first python3 on PATH.
// A wheel in some other venv on the machine is not the project's. nullopt when there is no Python.
std::optional<ProjectEnv> project_python_env(const AppContext& ctx, const std::string& lock_path) {
  std::vector<PythonEnv> envs = find_python_envs(*ctx.fs, ctx.env, nullptr);
  auto via = [&](const char* why) -> std::optional<ProjectEnv> {
    for (const auto& e : envs) {
      if (std::find(e.found_via.begin(), e.found_via.end(), why) != e.found_via.end()) return ProjectEnv{e.prefix, why};
    }
    return std::nullopt;
  };
  if (auto e = via("VIRTUAL_ENV")) return e;
  if (auto e = via("CONDA_PREFIX")) return e;
  std::string local = paths::join(paths::parent(lock_path), ".venv");
  if (ctx.fs->is_dir(local)) return ProjectEnv{ctx.fs->canonical(local).value_or(local), "the project's .venv"};
  if (auto e = via("PATH")) return ProjectEnv{e->prefix, "the first python3 on PATH"};
  return std::nullopt;
}

// `check --copy DIR` for a pip or toolkit lock: a copy of the lock's form, or a usage error that
// lists the ones there are.
Result<CudnnCopy> chosen_copy(const AppContext& ctx, const CudnnLock& lock, const std::vector<CudnnCopy>& copies,
                              const std::string& dir) {
  const CudnnCopy* c = copy_at(*ctx.fs, copies, dir);
  if (c && package_form_name(c->form) == lock.form) return *c;
  std::string listed;
  for (const auto& other : copies) {
    if (package_form_name(other.form) == lock.form) listed += "\n  " + other.lib_dir;
  }
  return make_error(ErrorCode::kUsage, "--copy " + dir + " is not a " + lock.form + " copy of cuDNN that cudnnup finds here" +
                                           (listed.empty() ? std::string(" (none is)") : "; the " + lock.form + " copies are:" + listed),
                    dir);
}

// A pip or toolkit lock: the copy of that form doctor finds here, hashed (no install manifest
// vouches for its files), and what loads it: each framework of its environment (pip), a plain
// program (toolkit).
Status check_unmanaged_copy(AppContext& ctx, const CheckOptions& opt, CheckOutcome& out) {
  auto outcome = collect_outcome(ctx);
  if (!outcome) return outcome.error();
  const FileSystem& fs = *ctx.fs;
  std::vector<CudnnCopy> only;  // --copy DIR
  if (!opt.copy.empty()) {
    auto chosen = chosen_copy(ctx, out.lock, outcome->report.copies, opt.copy);
    if (!chosen) return chosen.error();
    only.push_back(std::move(*chosen));
  }
  LocatedCopy located = only.empty()
                            ? locate_unmanaged_copy(fs, out.lock, outcome->report.copies, project_python_env(ctx, out.lock_path))
                            : locate_unmanaged_copy(fs, out.lock, only, std::nullopt);
  if (located.drift) out.drift.push_back(std::move(*located.drift));
  if (!located.copy) return Ok{};
  const CudnnCopy& copy = *located.copy;
  std::string root = fs.canonical(copy.root).value_or(copy.root);
  out.copy_root = root;
  out.hashed = true;
  FileHasher hasher = [&fs](const std::string& r, const std::string& rel) { return sha256_file_below(fs, r, rel); };
  LockedCopy locked{root, nullptr, 0, fs.canonical(copy.lib_dir).value_or(copy.lib_dir),
                    copy.include_dir.empty() ? "" : fs.canonical(copy.include_dir).value_or(copy.include_dir)};
  FileCheck files = check_locked_files(fs, out.lock, locked, &hasher, ctx.env.windows());
  out.files_checked = files.files_checked;
  for (auto& d : files.drift) out.drift.push_back(std::move(d));
  if (out.lock.form == kLockFormPip) {
    out.frameworks_checked = frameworks_of(fs, outcome->frameworks, root);
    for (auto& d : check_framework_loads(fs, outcome->frameworks, root)) out.drift.push_back(std::move(d));
  } else if (auto load = check_plain_program_load(fs, ctx.env, out.lock, root)) {
    out.drift.push_back(std::move(*load));
  }
  return Ok{};
}

nlohmann::ordered_json check_json(const CheckOutcome& out, Shell shell) {
  nlohmann::ordered_json drift = nlohmann::ordered_json::array();
  for (const auto& d : out.drift) {
    nlohmann::ordered_json item = {{"kind", d.kind}, {"subject", d.subject}, {"message", d.message}};
    if (!d.fix.empty()) {
      item["fix"] = render_fix(d.fix, shell);
      item["fix_commands"] = fix_commands(d.fix);
    }
    drift.push_back(item);
  }
  return json_document("cudnnup.check/1", "",
                       {{"lock", out.lock_path},
                        {"id", out.lock.id},
                        {"form", out.lock.form},
                        {"deep", out.hashed},
                        {"copy", out.copy_root.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(out.copy_root)},
                        {"files_checked", out.files_checked},
                        {"driver", out.driver.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(out.driver)},
                        {"matches", out.drift.empty()},
                        {"drift", drift},
                        {"fix_shell", shell_name(shell)}});
}

// What "matches" covered for what loads the copy.
std::string loads_compared(const CheckOutcome& out) {
  if (out.lock.form != kLockFormPip) return "the copy a plain program loads";
  if (out.frameworks_checked == 0) return "no framework in its environment to compare";
  return "what " + std::to_string(out.frameworks_checked) + (out.frameworks_checked == 1 ? " framework" : " frameworks") +
         " of its environment load";
}

void print_check_text(const AppContext& ctx, const CheckOutcome& out) {
  const bool store = out.lock.form == kLockFormStore;
  std::cout << shown_path(ctx, out.lock_path) << ": cuDNN " << out.lock.id
            << (store ? "" : " (" + out.lock.form + " copy" + (out.copy_root.empty() ? "" : " in " + out.copy_root) + ")") << "\n";
  if (out.drift.empty()) {
    if (ctx.options.quiet) return;
    std::cout << "  matches: " << (store ? "the selected version, " : "") << out.files_checked << " files ("
              << (out.hashed ? "every sha256" : "type, size and modification time; --deep compares every sha256") << "), "
              << loads_compared(out) << ", the driver minimum" << (out.driver.empty() ? " (no NVIDIA driver seen: not compared)" : "") << "\n";
    return;
  }
  for (const auto& d : out.drift) {
    std::cout << "  x " << d.message << "\n";
    for (const auto& line : render_fix(d.fix, fix_shell(ctx))) std::cout << "      " << line << "\n";
  }
  std::cout << out.drift.size() << (out.drift.size() == 1 ? " difference" : " differences") << " from the lock"
            << (store ? "; `cudnnup install --locked` installs and selects the locked copy" : "") << "\n";
}

int run_check(AppContext& ctx, const CheckOptions& opt) {
  auto path = locate_lock_file(*ctx.fs, ctx.env.cwd, opt.lock);
  if (!path) return report_error(ctx, path.error());
  auto lock = read_lock_file(*ctx.fs, *path);
  if (!lock) return report_error(ctx, lock.error());
  auto store = read_store(ctx);
  if (!store) return report_error(ctx, store.error());
  CheckOutcome out;
  out.lock_path = *path;
  out.lock = std::move(*lock);
  if (out.lock.form == kLockFormStore) {
    if (!opt.copy.empty()) {
      return report_error(ctx, make_error(ErrorCode::kUsage, "--copy is for pip and toolkit locks; " + *path +
                                                                 " names the store version " + out.lock.id, *path));
    }
    out.hashed = opt.deep;
    check_selection(ctx, *store, out);
    check_copy(ctx, *store, opt, out);
  } else if (auto s = check_unmanaged_copy(ctx, opt, out); !s) {
    return report_error(ctx, s.error());
  }
  out.driver = kernel_module_version(*ctx.fs);
  if (auto d = check_driver_minimum(out.driver, out.lock, ctx.env.windows())) out.drift.push_back(std::move(*d));
  if (ctx.options.json) {
    std::cout << dump_json(check_json(out, fix_shell(ctx)), 2) << std::endl;
  } else {
    print_check_text(ctx, out);
  }
  return out.drift.empty() ? kExitOk : kExitProblems;
}

}  // namespace

void add_check_command(CLI::App& app, CommandAction& action) {
  static CheckOptions opt;
  auto* cmd = app.add_subcommand("check", "Compare this machine with cudnn.lock: version, every file, what loads, the driver");
  cmd->footer(
      "Reads the nearest cudnn.lock from the working directory up (or --lock FILE). Compares the version\n"
      "`exec`/`env` select here, every file of the locked copy (missing, changed, an extra library), the\n"
      "copy a plain program started in this environment loads, and the driver minimum. Fast by default\n"
      "(one stat per file against the install manifest); --deep hashes every file.\n"
      "A lock of a pip wheel or toolkit (`cudnnup lock --copy DIR`) is compared with the copy of that form\n"
      "found here (--copy DIR chooses one), every file hashed, and with what each framework of the wheel's\n"
      "environment (pip) or a plain program (toolkit) loads.\n"
      "Exit codes: 0 it matches; 1 differences (each names the file or version); 2 no lock, or a lock that\n"
      "cannot be read or is not one cudnnup wrote.\n"
      "Examples:\n  cudnnup check\n  cudnnup exec -- cudnnup check --deep --json");
  cmd->add_option("--lock", opt.lock, "The lock to compare with (default: the nearest cudnn.lock)")->type_name("FILE");
  cmd->add_flag("--deep", opt.deep, "Compare every file's sha256 (reads the whole copy)");
  cmd->add_option("--copy", opt.copy, "For a pip or toolkit lock: the copy here to compare (its library folder or root)")
      ->type_name("DIR");
  cmd->callback([&action] { action = [](AppContext& ctx) { return run_check(ctx, opt); }; });
}

}  // namespace cudnnup
