#include "app/commands/env_persist.h"

#include <nlohmann/json.hpp>
#include <iostream>

#include "app/cli/exit_codes.h"
#include "app/commands/store_access.h"
#include "base/paths.h"
#include "facts/cudnn_files.h"
#include "shell/persistent_path.h"
#include "shell/shell_env.h"
#include "platform/registry.h"
#include "base/json_text.h"

namespace cudnnup {
namespace {

constexpr const char* kKey = "Environment";
constexpr const char* kValue = "Path";

// Directories on the machine PATH that hold a cuDNN shim: they come before the user PATH in every
// new process, so they win over what --persist adds.
std::vector<std::string> machine_path_cudnn_dirs(const AppContext& ctx) {
  std::vector<std::string> out;
  for (const auto& dir : paths::split_list(ctx.env.persistent_machine_path.value_or(""), ';')) {
    if (dir.empty()) continue;
    for (int major : {9, 8}) {
      if (ctx.fs->is_file(paths::join(paths::normalize(dir), cudnn_library_file_name("cudnn", major, true)))) {
        out.push_back(dir);
        break;
      }
    }
  }
  return out;
}

// Writes the plan's user PATH (or deletes the value the plan emptied) and reads it back: it must be
// exactly what was meant, whatever its length.
Status store_user_path(const PathEditPlan& plan) {
  const std::string where = "HKCU\\Environment\\Path";
  const std::string check = "; check it in System Properties > Environment Variables. The value before was: " + plan.old_value;
  if (plan.remove_value) {
    if (auto s = delete_registry_value(RegistryHive::kCurrentUser, kKey, kValue); !s) return s;
    auto back = read_registry_string(RegistryHive::kCurrentUser, kKey, kValue);
    if (back || back.error().code != ErrorCode::kNotFound) {
      return make_error(ErrorCode::kIo, where + " is still there after it was deleted" + check, where);
    }
    return Ok{};
  }
  if (auto s = write_registry_string(RegistryHive::kCurrentUser, kKey, kValue, plan.new_value, true); !s) return s;
  auto back = read_registry_string(RegistryHive::kCurrentUser, kKey, kValue);
  if (!back || back->value != plan.new_value || !back->expandable) {
    return make_error(ErrorCode::kIo, where + " did not read back as written" + check, where);
  }
  return Ok{};
}

// The folder of --dir: it must go with --persist alone and name an existing folder (relative to
// the current one), written back in Windows' own form.
Result<std::string> persist_dir(const AppContext& ctx, const PersistOptions& opt) {
  if (!opt.persist || opt.version) {
    return make_error(ErrorCode::kUsage, "--dir goes with --persist, without --version");
  }
  std::string dir = paths::normalize(paths::is_absolute(*opt.dir) ? *opt.dir : paths::join(ctx.env.cwd, *opt.dir));
  if (!ctx.fs->is_dir(dir)) {
    return make_error(ErrorCode::kUsage, "--dir " + *opt.dir + ": no such folder", *opt.dir);
  }
  // A PATH entry ends at ';' and the value is REG_EXPAND_SZ (%NAME% expands): such a name would
  // become other entries (a relative one searches every program's working folder) or another path.
  if (dir.find_first_of(kNotInPathEntry) != std::string::npos) {
    return make_error(ErrorCode::kUsage,
                      "--dir " + *opt.dir + ": a folder whose name holds ';', '%' or '\"' cannot be one PATH entry; "
                      "move the copy to a folder without them",
                      *opt.dir);
  }
  return paths::to_native(dir, true);
}

}  // namespace

int run_env_persist(AppContext& ctx, const PersistOptions& opt) {
  if (opt.persist && opt.unpersist) {
    return report_error(ctx, make_error(ErrorCode::kUsage, "--persist and --unpersist exclude each other"));
  }
  if (!ctx.env.windows()) {
    return report_error(
        ctx, make_error(ErrorCode::kUnsupported,
                        std::string("--") + (opt.persist ? "persist" : "unpersist") +
                            " edits the user PATH in the Windows registry (HKCU\\Environment) and is Windows only. "
                            "On Linux the environment persists through your shell's startup file: add "
                            "`eval \"$(cudnnup init bash)\"` to ~/.bashrc (zsh: ~/.zshrc; fish: `cudnnup init fish | "
                            "source` in config.fish), and `cudnnup use VERSION` then sets the version every new "
                            "shell gets"));
  }
  std::string dir;
  std::string version_id;
  std::string store_root;
  if (opt.dir) {
    auto folder = persist_dir(ctx, opt);
    if (!folder) return report_error(ctx, folder.error());
    dir = *folder;
  } else {
    auto store = read_store(ctx);
    if (!store) return report_error(ctx, store.error());
    store_root = store->layout.root;
    if (opt.persist) {
      auto selection = selected_version(ctx, *store, opt.version);
      if (!selection) return report_error(ctx, selection.error());
      dir = paths::to_native(VersionDirs::of(selection->dir, true).bin, true);
      version_id = selection->id.id;
    }
  }

  auto current = read_registry_string(RegistryHive::kCurrentUser, kKey, kValue);
  if (!current && current.error().code != ErrorCode::kNotFound) return report_error(ctx, current.error());
  std::string old_value = current ? current->value : "";
  PathEditPlan plan = opt.persist ? plan_persist_path(old_value, dir, store_root, ctx.env.vars)
                                  : plan_unpersist_path(old_value, store_root, ctx.env.vars);
  if (plan.new_value.size() >= kMaxEnvironmentValue) {
    return report_error(ctx, make_error(ErrorCode::kUsage,
                                        "the user PATH would be " + std::to_string(plan.new_value.size()) +
                                            " characters, more than Windows allows for one variable (32767); "
                                            "nothing was changed. Remove stale entries first.",
                                        "HKCU\\Environment\\Path"));
  }

  std::vector<std::string> notes;
  bool written = false;
  std::optional<std::string> broadcast_error;
  if (!opt.dry_run && plan.changed) {
    if (auto s = store_user_path(plan); !s) return report_error(ctx, s.error());
    written = true;
    if (auto b = broadcast_environment_change(); !b) broadcast_error = b.error().message;
  }
  if (opt.persist) {
    for (const auto& d : machine_path_cudnn_dirs(ctx)) {
      notes.push_back("the machine PATH has cuDNN in " + d +
                      ", and Windows puts the machine PATH before the user PATH: that copy still wins for plain "
                      "programs (remove it there, or use `cudnnup env` / `cudnnup exec` per process)");
    }
    if (opt.dir) {
      notes.push_back("`cudnnup env --unpersist` leaves " + dir + " in place (it is not cudnnup's store): remove it in "
                      "System Properties > Environment Variables when it is no longer wanted");
    } else {
      notes.push_back("re-run `cudnnup env --persist` after `cudnnup use`: the user PATH names " + version_id +
                      "'s own directory");
    }
  }
  if (written) {
    notes.push_back("programs started from now on get the new PATH; terminals, Jupyter, VS Code and other programs "
                    "already running keep their old one until restarted");
  }
  if (broadcast_error) notes.push_back("WM_SETTINGCHANGE was not delivered everywhere (" + *broadcast_error +
                                       "); Explorer picks the change up at the next sign-in");

  if (ctx.options.json) {
    nlohmann::ordered_json out = {{"schema", "cudnnup.env-persist/1"},
                {"action", opt.persist ? "persist" : "unpersist"},
                {"version", opt.persist && !version_id.empty() ? nlohmann::ordered_json(version_id) : nlohmann::ordered_json(nullptr)},
                {"registry", "HKCU\\Environment\\Path"},
                {"type", "REG_EXPAND_SZ"},
                {"old_value", plan.old_value},
                {"new_value", plan.new_value},
                {"added", plan.added.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(plan.added)},
                {"removed", plan.removed},
                {"changed", plan.changed},
                {"dry_run", opt.dry_run},
                {"written", written},
                {"broadcast", written ? nlohmann::ordered_json(!broadcast_error) : nlohmann::ordered_json(nullptr)},
                {"notes", notes}};
    std::cout << dump_json(out, 2) << std::endl;
    return kExitOk;
  }
  const char* what = opt.persist ? "persist" : "unpersist";
  if (!plan.changed) {
    std::cout << (opt.persist ? dir + " is already first in your user PATH; nothing to change.\n"
                              : std::string("Your user PATH has no cudnnup entry; nothing to change.\n"));
  } else {
    std::cout << (opt.dry_run ? "Would change" : "Changed") << " HKCU\\Environment\\Path (REG_EXPAND_SZ, "
              << plan.old_value.size() << " -> " << plan.new_value.size() << " characters):\n";
    if (!plan.added.empty()) std::cout << "  + " << plan.added << "\n";
    for (const auto& r : plan.removed) std::cout << "  - " << r << "\n";
    if (opt.dry_run) {
      std::cout << "old value:\n  " << (plan.old_value.empty() ? "(empty)" : plan.old_value) << "\n"
                << "new value:\n  " << (plan.new_value.empty() ? "(empty)" : plan.new_value) << "\n"
                << "Nothing was written (--dry-run); run `cudnnup env --" << what << "` to apply.\n";
    }
  }
  for (const auto& n : notes) std::cout << "note: " << n << "\n";
  return kExitOk;
}

}  // namespace cudnnup
