// `cudnnup list`: the versions in the store (the selected one marked, with what selected it),
// then every other cuDNN copy the doctor finds on this machine, marked as not managed.
#include <nlohmann/json.hpp>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"
#include "app/commands/list_available.h"
#include "app/commands/other_copies.h"
#include "app/commands/store_access.h"
#include "store/current_link.h"
#include "base/json_text.h"

namespace cudnnup {
namespace {

using nlohmann::json;

int run_list(AppContext& ctx, bool store_only) {
  auto store = read_store(ctx);
  if (!store) return report_error(ctx, store.error());
  auto request = selection_request(ctx, *store);
  bool system = request && request->system();
  auto selection = selected_version(ctx, *store);
  auto current = read_current(*ctx.fs, store->layout);
  std::optional<std::string> current_id = current ? *current : std::nullopt;

  if (ctx.options.quiet && !ctx.options.json) {
    // -q: the installed ids only, one a line, for scripts (`for v in $(cudnnup list -q)`).
    for (const auto& id : store->installed) std::cout << id.id << "\n";
    return kExitOk;
  }

  std::vector<UnmanagedCopy> others;
  std::string scan_error;
  if (!store_only) {
    auto found = find_unmanaged_copies(ctx, store->layout);
    if (found) others = std::move(*found);
    else scan_error = found.error().message;
  }

  if (ctx.options.json) {
    json out;
    out["schema"] = "cudnnup.list/1";
    out["kind"] = "installed";
    out["store"] = store->layout.root;
    json selected = json::object();
    if (selection) {
      selected = {{"version", selection->id.id}, {"spec", selection->request.spec},
                  {"source", selection_source_name(selection->request.source)}, {"origin", selection->request.origin}};
    } else if (system) {
      selected = {{"version", nullptr}, {"spec", request->spec}, {"source", selection_source_name(request->source)},
                  {"origin", request->origin}};
    } else {
      selected = {{"version", nullptr}, {"error", selection.error().message}};
    }
    out["selected"] = selected;
    out["global_default"] = store->state.global ? json(*store->state.global) : json(nullptr);
    out["current_link"] = current_id ? json(*current_id) : json(nullptr);
    out["versions"] = json::array();
    for (const auto& id : store->installed) {
      out["versions"].push_back({{"id", id.id},
                                 {"version", id.version.str()},
                                 {"cuda_major", id.cuda_major},
                                 {"dir", store->layout.version_dir(id.id)},
                                 {"selected", selection && selection->id.id == id.id},
                                 {"global_default", store->state.global == id.id},
                                 {"managed", true}});
    }
    out["other_copies_scanned"] = !store_only && scan_error.empty();
    if (!scan_error.empty()) out["scan_error"] = scan_error;
    out["other_copies"] = json::array();
    for (const auto& c : others) {
      out["other_copies"].push_back({{"root", c.root}, {"lib_dir", c.lib_dir},
                                     {"version", c.version.empty() ? json(nullptr) : json(c.version)},
                                     {"form", c.form}, {"managed", false}});
    }
    std::cout << dump_json(out, 2) << std::endl;
    return kExitOk;
  }

  const char* green = ctx.color ? "\033[32m" : "";
  const char* reset = ctx.color ? "\033[0m" : "";
  std::cout << "cuDNN versions in the store (" << shown_path(ctx, store->layout.root) << "):\n";
  if (store->installed.empty()) std::cout << "  (none; install one with `cudnnup install VERSION`)\n";
  for (const auto& id : store->installed) {
    bool selected = selection && selection->id.id == id.id;
    std::string notes;
    if (selected) notes = selection->request.describe();
    if (store->state.global == id.id && !(selected && selection->request.source == SelectionSource::kGlobal)) {
      notes += std::string(notes.empty() ? "" : "; ") + "global default";
    }
    std::cout << (selected ? std::string(green) + "* " : "  ") << id.id << (selected ? reset : "");
    if (!notes.empty()) std::cout << "   " << notes;
    std::cout << "\n";
  }
  if (system) {
    std::cout << "Selection: system (" << request->describe() << "): no cudnnup version, this machine's own copies\n";
  } else if (!selection) {
    std::cout << "Selection: " << selection.error().message << "\n";
  }
  if (!store_only) {
    if (!scan_error.empty()) {
      std::cout << "Other copies: the scan failed: " << scan_error << "\n";
    } else if (!others.empty()) {
      std::cout << "Other cuDNN copies on this machine (not managed by cudnnup):\n";
      for (const auto& c : others) {
        std::cout << "  - " << (c.version.empty() ? "unknown" : c.version) << "   "
                  << shown_path(ctx, c.lib_dir.empty() ? c.root : c.lib_dir) << "   (" << c.form << ")\n";
      }
    }
  }
  return kExitOk;
}

}  // namespace

void add_list_command(CLI::App& app, CommandAction& action) {
  static bool store_only = false;
  auto* cmd = app.add_subcommand("list", "List the cuDNN versions in the store and every other copy on this machine");
  cmd->footer(
      "The selected version is marked with * and says what selected it (see `cudnnup current`).\n"
      "Other copies come from the same scan as `cudnnup doctor`; --store-only skips it. -q prints only the\n"
      "ids of the installed versions, one a line.\n"
      "Exit codes: 0 listed; 2 the store cannot be read (the message names the file), or --available\n"
      "found no list of releases and no manifest (the message names the mirror).\n"
      "--available asks the mirror instead (its index of redistrib_<release>.json files, one manifest read\n"
      "per release shown): which releases exist for this platform and for which CUDA majors.\n"
      "Examples:\n  cudnnup list\n  cudnnup list -q\n  cudnnup list --available --cuda 13\n  cudnnup list --json | jq -r '.versions[].id'");
  cmd->add_flag("--store-only", store_only, "List only the store, without scanning the machine");
  static bool available = false;
  static AvailableOptions available_options;
  cmd->add_flag("--available", available,
                "List the releases the mirror offers for this platform instead (newest first, with their CUDA builds)");
  cmd->add_option("--mirror", available_options.mirror,
                  "With --available: https/http URL or a directory (default: NVIDIA; env CUDNNUP_MIRROR)");
  cmd->add_option("--cuda", available_options.cuda, "With --available: only builds for this CUDA major")->check(CLI::Range(1, 999));
  cmd->add_flag("--all", available_options.all, "With --available: every listed release, not only the newest 15");
  cmd->callback([&action, cmd] {
    bool available_only = cmd->count("--mirror") + cmd->count("--cuda") + cmd->count("--all") > 0;
    action = [available_only](AppContext& ctx) {
      if (available) return run_list_available(ctx, available_options);
      if (available_only) {
        return report_error(ctx, make_error(ErrorCode::kUsage, "--mirror, --cuda and --all go with --available (`cudnnup list --available`)"));
      }
      return run_list(ctx, store_only);
    };
  });
}

}  // namespace cudnnup
