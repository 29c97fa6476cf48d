#include <climits>
#include <iostream>

#include "app/child/child_tasks.h"
#include "app/cli/exit_codes.h"
#include "base/json_reader.h"
#include "base/json_text.h"
#include "child/protocol.h"
#include "platform/dynamic_library.h"

namespace cudnnup {

namespace {

using nlohmann::json;

// Every field a task reads (app/child/*_task.cc), by type. The request is read through the typed
// reader and handed to the tasks rebuilt from these fields only, so a task's `request.value()`
// never meets a member of another type, and strings carry their original bytes (the parent writes
// a non-UTF-8 path with base/json_text.h's escape).
constexpr const char* kStringFields[] = {"protocol", "task",         "events",          "library",
                                         "cuda",     "nvml",         "lib_dir",         "libcuda",
                                         "shapes",   "candidates",   "header_version",  "toolkit_version"};
constexpr const char* kBooleanFields[] = {"isolated", "allow_tf32"};
constexpr const char* kIntegerFields[] = {"gpu", "max_candidates"};

Result<json> read_request(const std::string& text) {
  JsonReader reader("the child request");
  JsonValue fields = reader.parse_object(text);
  json request = json::object();
  for (const char* key : kStringFields) {
    if (fields.has(key)) request[key] = fields.string(key);
  }
  for (const char* key : kBooleanFields) {
    if (fields.has(key)) request[key] = fields.boolean(key, false);
  }
  for (const char* key : kIntegerFields) {
    if (fields.has(key)) request[key] = fields.integer(key, 0, 0, INT_MAX);
  }
  if (!reader.ok()) return reader.status().error();
  if (request.value("protocol", "") != kChildProtocol) {
    return make_error(ErrorCode::kUsage, std::string("the request is not a ") + kChildProtocol + " object");
  }
  return request;
}

}  // namespace

int run_child_request(AppContext& ctx, const std::string& text) {
  auto request = read_request(text);
  if (!request) {
    std::cerr << "cudnnup " << kChildEntryPoint << ": " << request.error().message << "\n";
    return kExitUsage;
  }
  auto channel = EventChannel::open(request->value("events", "-"));
  if (!channel) {
    std::cerr << "cudnnup " << kChildEntryPoint << ": " << channel.error().message << "\n";
    return kExitUsage;
  }
  ChildEvents events(*channel);
  // The parent gave an isolated child the copy's loader environment (core/child/
  // loader_environment.h); on Windows the DLL search also drops the current directory.
  if (request->value("isolated", false)) use_safe_library_search();
  const std::string task = request->value("task", "");
  if (task == "probe-cudnn") return probe_cudnn_task(ctx, *request, events);
  if (task == "probe-driver") return probe_driver_task(ctx, *request, events);
  if (task == "verify") return verify_task(ctx, *request, events);
  if (task == "bench") return bench_task(ctx, *request, events);
  std::cerr << "cudnnup " << kChildEntryPoint << ": unknown task '" << task << "'\n";
  return kExitUsage;
}

}  // namespace cudnnup
