// The tasks a child process runs (`cudnnup __child REQUEST`, core/child/protocol.h). Each reads
// its fields from the request, reports through the events and returns the process exit code
// (0 unless the request itself is unusable); a broken library is a result, not an exit code.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "app/child/child_events.h"
#include "app/cli/app_context.h"

namespace cudnnup {

int probe_cudnn_task(AppContext& ctx, const nlohmann::json& request, ChildEvents& events);   // app/child/probe_task.cc
int probe_driver_task(AppContext& ctx, const nlohmann::json& request, ChildEvents& events);  // app/child/probe_task.cc
int verify_task(AppContext& ctx, const nlohmann::json& request, ChildEvents& events);        // app/child/verify_task.cc
int bench_task(AppContext& ctx, const nlohmann::json& request, ChildEvents& events);         // app/child/bench_task.cc

// Reads one request (its JSON text), opens its event channel and runs its task. Shared by both
// ways a child starts: `cudnnup __child` (cmd_child.cc) and the lean `cudnnup-child`
// (child_main.cc). ctx needs only the filesystem and the environment.
int run_child_request(AppContext& ctx, const std::string& text);  // app/child/child_request.cc

}  // namespace cudnnup
