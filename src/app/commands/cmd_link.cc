// `cudnnup link --into CUDA_DIR [--move-aside]` and `cudnnup link --undo --into CUDA_DIR`.
#include <nlohmann/json.hpp>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"
#include "app/commands/store_access.h"
#include "base/paths.h"
#include "store/toolkit_link.h"
#include "base/json_text.h"

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
  for (const auto& l : plan.links) j["links"].push_back({{"link", l.link}, {"target", l.target}});
  for (const auto& a : plan.aside) j["moved_aside"].push_back({{"from", a.from}, {"to", a.to}});
  return j;
}

int run_link(AppContext& ctx, const LinkOptions& opt) {
  std::string cuda_dir = paths::normalize(paths::join(ctx.env.cwd, opt.into));
  auto locked = lock_store(ctx);
  if (!locked) return report_error(ctx, locked.error());
  if (opt.undo) {
    auto undone = undo_toolkit_link(*ctx.fs, cuda_dir);
    if (!undone) return report_error(ctx, undone.error());
    if (ctx.options.json) {
      json out = plan_json(*undone);
      out["action"] = "unlinked";
      std::cout << dump_json(out, 2) << std::endl;
    } else {
      std::cout << "Removed " << undone->links.size() << " links from " << shown_path(ctx, cuda_dir) << " and put back "
                << undone->aside.size() << " of its own files.\n";
    }
    return kExitOk;
  }
  auto plan = plan_toolkit_link(*ctx.fs, locked->store.layout, cuda_dir, ctx.env.windows());
  if (!plan) return report_error(ctx, plan.error());
  if (!plan->aside.empty() && !opt.move_aside) {
    std::string list;
    for (size_t i = 0; i < plan->aside.size() && i < 5; ++i) list += "\n  " + shown_path(ctx, plan->aside[i].from);
    if (plan->aside.size() > 5) list += "\n  ... and " + std::to_string(plan->aside.size() - 5) + " more";
    return report_error(ctx, make_error(ErrorCode::kConflict,
                                        cuda_dir + " holds cuDNN files of its own; linking would hide them:" + list +
                                            "\nRun again with --move-aside to move them into " + cuda_dir +
                                            "/.cudnnup-aside (`cudnnup link --undo` puts them back)",
                                        cuda_dir));
  }
  if (!opt.dry_run) {
    if (auto s = apply_toolkit_link(*ctx.fs, *plan, utc_now_iso()); !s) {
      return report_error(ctx, make_error(s.error().code, s.error().message + " (run `cudnnup link --undo --into " +
                                                              cuda_dir + "` to put the toolkit back)",
                                          s.error().path));
    }
  }
  if (ctx.options.json) {
    json out = plan_json(*plan);
    out["action"] = opt.dry_run ? "would-link" : "linked";
    std::cout << dump_json(out, 2) << std::endl;
  } else {
    std::cout << (opt.dry_run ? "Would link " : "Linked ") << plan->links.size() << " cuDNN files in "
              << shown_path(ctx, cuda_dir) << " to " << shown_path(ctx, locked->store.layout.current_link())
              << " (now " << plan->version << ")";
    if (!plan->aside.empty()) std::cout << "; moved " << plan->aside.size() << " of its own aside";
    std::cout << ".\nThe toolkit now follows `cudnnup use`. Undo with `cudnnup link --undo --into "
              << shown_path(ctx, cuda_dir) << "`.\n";
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
      "Writes CUDA_DIR/.cudnnup-link.json; `--undo` reads it to put everything back.\n"
      "Exit codes: 0 done; 2 not a toolkit, no global default; 4 toolkit holds cuDNN, already linked, store locked.\n"
      "Examples:\n  cudnnup link --into /usr/local/cuda-12.4 --move-aside\n  cudnnup link --undo --into /usr/local/cuda-12.4");
  cmd->add_option("--into", opt.into, "The CUDA toolkit directory")->required();
  cmd->add_flag("--move-aside", opt.move_aside, "Move the toolkit's own cuDNN files into CUDA_DIR/.cudnnup-aside");
  cmd->add_flag("--undo", opt.undo, "Remove the links and put the toolkit's files back");
  cmd->add_flag("--dry-run", opt.dry_run, "Show what would change, change nothing");
  cmd->callback([&action] { action = [](AppContext& ctx) { return run_link(ctx, opt); }; });
}

}  // namespace cudnnup
