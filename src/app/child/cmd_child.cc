// `cudnnup __child REQUEST`: the one hidden entry point of every child process that loads NVIDIA
// libraries (probe, verify, bench). Only cudnnup starts it (app/child/child_runner.h); by hand,
// `"events": "-"` sends the events to stdout.
#include <iostream>

#include "app/child/child_tasks.h"
#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"
#include "child/protocol.h"
#include "platform/dynamic_library.h"

namespace cudnnup {

namespace {

using nlohmann::json;

int run_child_request(AppContext& ctx, const std::string& text) {
  json request = json::parse(text, nullptr, false);
  if (request.is_discarded() || !request.is_object() || request.value("protocol", "") != kChildProtocol) {
    std::cerr << "cudnnup " << kChildEntryPoint << ": the request is not a " << kChildProtocol << " object\n";
    return kExitUsage;
  }
  auto channel = EventChannel::open(request.value("events", "-"));
  if (!channel) {
    std::cerr << "cudnnup " << kChildEntryPoint << ": " << channel.error().message << "\n";
    return kExitUsage;
  }
  ChildEvents events(*channel);
  // The parent gave an isolated child the copy's loader environment (core/child/
  // loader_environment.h); on Windows the DLL search also drops the current directory.
  if (request.value("isolated", false)) use_safe_library_search();
  const std::string task = request.value("task", "");
  if (task == "probe-cudnn") return probe_cudnn_task(ctx, request, events);
  if (task == "probe-driver") return probe_driver_task(ctx, request, events);
  if (task == "verify") return verify_task(ctx, request, events);
  if (task == "bench") return bench_task(ctx, request, events);
  std::cerr << "cudnnup " << kChildEntryPoint << ": unknown task '" << task << "'\n";
  return kExitUsage;
}

}  // namespace

void add_child_command(CLI::App& app, CommandAction& action) {
  auto* child = app.add_subcommand(kChildEntryPoint, "");
  child->group("");  // hidden from --help: only cudnnup itself starts children
  static std::string request;
  child->add_option("request", request)->required();
  child->callback([&action] { action = [](AppContext& ctx) { return run_child_request(ctx, request); }; });
}

}  // namespace cudnnup
