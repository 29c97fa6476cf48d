// The child side of the protocol (core/child/protocol.h): the events a task reports, written to
// the channel its parent opened, one JSON line each, flushed at once so the parent has every
// line even if the next call kills the process.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/json_text.h"
#include "platform/event_channel.h"

namespace cudnnup {

class ChildEvents {
 public:
  explicit ChildEvents(EventChannel channel) : channel_(channel) {}
  void start(const std::string& stage) { emit({{"event", "start"}, {"stage", stage}}); }
  void end(const std::string& stage, const nlohmann::json& result) {
    emit({{"event", "end"}, {"stage", stage}, {"result", result}});
  }
  void note(const std::string& text) { emit({{"event", "note"}, {"text", text}}); }
  // Every file mapped into the process now (platform/loaded_modules.h); returns them.
  std::vector<std::string> modules(const std::string& when);
  void result(const nlohmann::json& result) { emit({{"event", "result"}, {"result", result}}); }
  void done() { emit({{"event", "done"}}); }

 private:
  // Valid UTF-8 whatever the bytes (a mapped path); the parent restores them (core/child/protocol.cc).
  void emit(const nlohmann::json& event) const { channel_.write(dump_json(event) + "\n"); }
  EventChannel channel_;
};

}  // namespace cudnnup
