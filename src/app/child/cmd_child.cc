// `cudnnup __child REQUEST`: the hidden entry point of the child processes that load NVIDIA
// libraries (probe, verify, bench), for a cudnnup that runs without its lean `cudnnup-child`
// beside it (app/child/child_main.cc; child_runner.cc picks). Only cudnnup starts it; by hand,
// `"events": "-"` sends the events to stdout.
#include "app/child/child_tasks.h"
#include "app/cli/commands.h"
#include "child/protocol.h"

namespace cudnnup {

void add_child_command(CLI::App& app, CommandAction& action) {
  auto* child = app.add_subcommand(kChildEntryPoint, "");
  child->group("");  // hidden from --help: only cudnnup itself starts children
  static std::string request;
  child->add_option("request", request)->required();
  child->callback([&action] { action = [](AppContext& ctx) { return run_child_request(ctx, request); }; });
}

}  // namespace cudnnup
