// `cudnnup link --into CUDA_DIR [--move-aside]` and `cudnnup link --undo --into CUDA_DIR`.
#include <nlohmann/json.hpp>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"
#include "app/commands/store_access.h"
#include "base/paths.h"
#include "app/commands/locks.h"
#include "store/toolkit_link.h"
#include "base/json_text.h"
#include "shell/fix_render.h"

namespace cudnnup {
namespace {

using nlohmann::json;

struct LinkOptions {
  std::string into;
  bool move_aside = false;
  bool undo = false;
  bool dry_run = false;
};

json plan_json(const LinkPlan& plan) {
  json j = {{"schema", "cudnnup.link/1"}, {"cuda_dir", plan.cuda_dir}, {"manifest", plan.manifest}, {"version", plan.version},
            {"links", json::array()}, {"moved_aside", json::array()}};
  for (const auto& l : plan.links) j["links"].push_back({{"link", plan.cuda_dir + "/" + l.link}, {"target", l.target}});
  for (const auto& a : plan.aside) {
    j["moved_aside"].push_back({{"from", plan.cuda_dir + "/" + a.from}, {"to", plan.cuda_dir + "/" + a.to}});
  }
  return j;
}

int report_unlinked(const AppContext& ctx, const UnlinkReport& r) {
  if (ctx.options.json) {
    json out = plan_json(r.plan);
    out["action"] = "unlinked";
    out["removed"] = r.removed;
    out["restored"] = r.restored;
    out["kept"] = json::array();
    for (const auto& k : r.kept) out["kept"].push_back({{"path", k.path}, {"aside", k.aside.empty() ? json(nullptr) : json(k.aside)}, {"why", k.why}});
    std::cout << dump_json(out, 2) << std::endl;
    return kExitOk;
  }
  std::cout << "Removed " << r.removed.size() << " link" << (r.removed.size() == 1 ? "" : "s") << " from "
            << shown_path(ctx, r.plan.cuda_dir) << " and put back " << r.restored.size() << " of its own file"
            << (r.restored.size() == 1 ? "" : "s") << ".\n";
  for (const auto& k : r.kept) {
    std::cout << "Kept " << shown_path(ctx, k.path) << " as it is: " << k.why;
    if (!k.aside.empty()) std::cout << " (the toolkit's original is " << shown_path(ctx, k.aside) << ")";
    std::cout << ".\n";
  }
  return kExitOk;
}

int run_link(AppContext& ctx, const LinkOptions& opt) {
  std::string cuda_dir = paths::normalize(paths::join(ctx.env.cwd, opt.into));
  auto locked = lock_store(ctx);
  if (!locked) return report_error(ctx, locked.error());
  StoreSnapshot& store = locked->store;
  std::optional<FileLock> toolkit_lock;
  if (!opt.dry_run && ctx.fs->is_dir(cuda_dir)) {
    auto lock = lock_toolkit(ctx, ctx.fs->canonical(cuda_dir).value_or(cuda_dir), LockWait::kWait);
    if (!lock) {
      return report_error(ctx, make_error(lock.error().code, lock.error().message +
                                                                 (lock.error().code == ErrorCode::kPermission
                                                                      ? "; run it as the toolkit's owner (sudo on Linux)"
                                                                      : ""),
                                          cuda_dir));
    }
    toolkit_lock.emplace(std::move(*lock));
  }
  if (opt.undo) {
    auto real = ctx.fs->canonical(cuda_dir).value_or(cuda_dir);
    if (auto m = read_link_manifest(*ctx.fs, real, /*acting=*/false); m && m->store != paths::normalize(ctx.fs->canonical(store.layout.root).value_or(store.layout.root))) {
      return report_error(ctx, with_fix(make_error(ErrorCode::kConflict,
                                                   cuda_dir + " is linked to another store (" + m->store + "); undo it with that store:",
                                                   cuda_dir),
                                        {fix::set_env("CUDNNUP_HOME", shown_path(ctx, m->store)),
                                         fix::cudnnup({"link", "--undo", "--into", shown_path(ctx, cuda_dir)}),
                                         fix::unset_env("CUDNNUP_HOME")}));
    }
    if (opt.dry_run) return report_error(ctx, make_error(ErrorCode::kUsage, "--dry-run goes with link, not with --undo"));
    auto undone = unlink_toolkit(*ctx.fs, store.layout, store.state, real);
    if (!undone) {
      std::string hint;
      if (undone.error().code == ErrorCode::kNotFound) {
        for (const auto& l : store.state.links) hint += (hint.empty() ? " (the store links: " : ", ") + l.cuda_dir;
        if (!hint.empty()) hint += ")";
      }
      return report_error(ctx, make_error(undone.error().code, undone.error().message + hint, undone.error().path));
    }
    return report_unlinked(ctx, *undone);
  }
  auto plan = plan_toolkit_link(*ctx.fs, store.layout, cuda_dir, ctx.env.windows());
  if (!plan) return report_error(ctx, plan.error());
  if (!plan->aside.empty() && !opt.move_aside) {
    std::string list;
    for (size_t i = 0; i < plan->aside.size() && i < 5; ++i) list += "\n  " + shown_path(ctx, plan->cuda_dir + "/" + plan->aside[i].from);
    if (plan->aside.size() > 5) list += "\n  ... and " + std::to_string(plan->aside.size() - 5) + " more";
    return report_error(ctx, with_fix(make_error(ErrorCode::kConflict,
                                                 shown_path(ctx, plan->cuda_dir) + " holds cuDNN files of its own; linking would hide them:" +
                                                     list + "\nRun again with --move-aside to move them into " +
                                                     shown_path(ctx, plan->cuda_dir + "/.cudnnup-aside") +
                                                     " (`cudnnup link --undo` puts them back):",
                                                 plan->cuda_dir),
                                      {fix::cudnnup({"link", "--into", shown_path(ctx, plan->cuda_dir), "--move-aside"})}));
  }
  if (!opt.dry_run) {
    if (auto s = link_toolkit(*ctx.fs, store.layout, store.state, *plan, utc_now_iso()); !s) return report_error(ctx, s.error());
  }
  if (ctx.options.json) {
    json out = plan_json(*plan);
    out["action"] = opt.dry_run ? "would-link" : "linked";
    std::cout << dump_json(out, 2) << std::endl;
  } else {
    std::cout << (opt.dry_run ? "Would link " : "Linked ") << plan->links.size() << " cuDNN files in "
              << shown_path(ctx, plan->cuda_dir) << " to " << shown_path(ctx, plan->store + "/current")
              << " (now " << plan->version << ")";
    if (!plan->aside.empty()) std::cout << "; " << (opt.dry_run ? "would move " : "moved ") << plan->aside.size() << " of its own aside";
    if (opt.dry_run) {
      std::cout << ".\nNothing was changed (--dry-run).\n";
    } else {
      std::cout << ".\nThe toolkit now follows `cudnnup use`. Undo with: "
                << render_command_or_sentence({"cudnnup", "link", "--undo", "--into", shown_path(ctx, plan->cuda_dir)}, fix_shell(ctx))
                << "\n";
    }
  }
  return kExitOk;
}

}  // namespace

void add_link_command(CLI::App& app, CommandAction& action) {
  static LinkOptions opt;
  auto* cmd = app.add_subcommand("link", "Make a CUDA toolkit's cuDNN files follow the selected global version");
  cmd->footer(
      "Puts links in CUDA_DIR (lib64/ and include/; on Windows bin/, lib/x64/, include/) that point\n"
      "through the store's `current` link, so `cudnnup use` switches the toolkit in one step.\n"
      "Only names that stay the same within a major version are linked (libcudnn.so.9, cudnn.h);\n"
      "after switching to another major, run --undo and link again.\n"
      "A toolkit with cuDNN files of its own is refused unless --move-aside (into CUDA_DIR/.cudnnup-aside).\n"
      "Writes CUDA_DIR/.cudnnup-link.json; `--undo` reads it to put everything back, keeping (and\n"
      "naming) any file you changed since. All or nothing: a link that fails half-way is undone.\n"
      "The store remembers linked toolkits: `cudnnup use` refuses a switch that would leave their links\n"
      "dangling (unless --force).\n"
      "Exit codes: 0 done; 2 not a toolkit, inside the store, no global default, not linked;\n"
      "4 toolkit holds cuDNN, already linked, linked to another store, locked.\n"
      "Examples:\n  cudnnup link --into /usr/local/cuda-12.4 --move-aside\n  cudnnup link --undo --into /usr/local/cuda-12.4");
  cmd->add_option("--into", opt.into, "The CUDA toolkit directory")->type_name("DIR")->required();
  cmd->add_flag("--move-aside", opt.move_aside, "Move the toolkit's own cuDNN files into CUDA_DIR/.cudnnup-aside");
  cmd->add_flag("--undo", opt.undo, "Remove the links and put the toolkit's files back");
  cmd->add_flag("--dry-run", opt.dry_run, "Show what would change, change nothing");
  cmd->callback([&action] { action = [](AppContext& ctx) { return run_link(ctx, opt); }; });
}

}  // namespace cudnnup
