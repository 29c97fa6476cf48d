#include "child/protocol.h"

#include <algorithm>

#include "base/json_text.h"

namespace cudnnup {

using nlohmann::json;

const json* ChildTranscript::stage_result(const std::string& id) const {
  for (const auto& e : events) {
    if (e.value("event", "") == "end" && e.value("stage", "") == id && e.contains("result")) return &e["result"];
  }
  return nullptr;
}

const json* ChildTranscript::result() const {
  const json* out = nullptr;
  for (const auto& e : events) {
    if (e.value("event", "") == "result" && e.contains("result")) out = &e["result"];
  }
  return out;
}

std::vector<std::pair<std::string, std::vector<std::string>>> ChildTranscript::module_snapshots() const {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const auto& e : events) {
    if (e.value("event", "") != "modules" || !e.contains("files") || !e["files"].is_array()) continue;
    std::vector<std::string> files;
    for (const auto& f : e["files"]) {
      if (f.is_string()) files.push_back(f.get<std::string>());
    }
    out.emplace_back(e.value("when", ""), std::move(files));
  }
  return out;
}

namespace {

// Applies one event to the transcript; returns why it is malformed, or empty.
std::string apply_event(ChildTranscript& t, const json& e) {
  if (!e.is_object() || !e.contains("event") || !e["event"].is_string()) return "a line that is not an event";
  if (t.done) return "an event after \"done\"";
  const std::string kind = e["event"].get<std::string>();
  if (kind == "start" || kind == "end") {
    if (!e.contains("stage") || !e["stage"].is_string()) return "a \"" + kind + "\" event without a stage";
    const std::string id = e["stage"].get<std::string>();
    auto open = std::find(t.open_stages.begin(), t.open_stages.end(), id);
    if (kind == "start") {
      if (open != t.open_stages.end()) return "stage " + id + " started twice";
      t.started.push_back(id);
      t.open_stages.push_back(id);
    } else {
      if (open == t.open_stages.end()) return "stage " + id + " ended without starting";
      if (!e.contains("result") || !e["result"].is_object()) return "stage " + id + " ended without a result";
      t.open_stages.erase(open);
      t.ended.push_back(id);
    }
  } else if (kind == "note") {
    t.last_note = e.value("text", "");
  } else if (kind == "done") {
    t.done = true;
  } else if (kind != "modules" && kind != "result") {
    return "an unknown event \"" + kind + "\"";
  }
  t.events.push_back(e);
  return {};
}

}  // namespace

ChildTranscript read_child_transcript(std::string_view bytes, bool truncated) {
  ChildTranscript t;
  size_t pos = 0;
  while (pos < bytes.size()) {
    size_t newline = bytes.find('\n', pos);
    if (newline == std::string_view::npos) {
      t.damage.push_back("the last event line is cut off");
      break;
    }
    std::string_view line = bytes.substr(pos, newline - pos);
    pos = newline + 1;
    if (line.empty()) continue;
    // The child writes non-UTF-8 text (a mapped path) with json_text's escape: back to its bytes.
    json e = json::parse(line, nullptr, false);
    if (!e.is_discarded()) e = restore_bytes(e);
    std::string why = e.is_discarded() ? "a line that is not JSON" : apply_event(t, e);
    if (!why.empty() && t.damage.size() < 5) t.damage.push_back(why + ": " + std::string(line.substr(0, 120)));
  }
  if (truncated) t.damage.push_back("the event channel carried more than cudnnup keeps");
  return t;
}

std::string output_tail(const std::string& text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t start = text.size() - max_bytes;
  size_t newline = text.find('\n', start);
  if (newline != std::string::npos && newline - start < max_bytes / 4) start = newline + 1;
  return "..." + text.substr(start);
}

std::optional<ChildProblem> child_run_problem(const ChildTranscript& t, const ChildProcessEnd& end,
                                              const std::vector<std::string>& required_stages,
                                              const std::string& what) {
  ChildProblem p;
  p.stage = !t.open_stages.empty() ? t.open_stages.back() : !t.started.empty() ? t.started.back() : std::string();
  const std::string where = !t.open_stages.empty() ? " during stage " + t.open_stages.back()
                            : !t.started.empty()   ? " after stage " + t.started.back()
                                                   : " before its first stage";
  const std::string doing = t.last_note.empty() ? std::string() : " (last: " + t.last_note + ")";
  auto finish = [&](std::string summary) {
    p.summary = std::move(summary);
    if (end.started) p.evidence.push_back(what + " " + end.how);
    if (!t.last_note.empty()) p.evidence.push_back("last thing it did: " + t.last_note);
    for (const auto& d : t.damage) p.evidence.push_back("event channel: " + d);
    if (!end.printed.empty()) p.evidence.push_back("it printed: " + end.printed);
    return p;
  };
  if (!end.started) {
    p.crashed = true;
    return finish(what + " could not be started: " + end.start_error);
  }
  if (!end.exited_normally || end.exit_code != 0) {
    p.crashed = true;
    return finish(what + " " + end.how + where + doing);
  }
  if (!t.damage.empty()) return finish(what + "'s event channel is damaged (" + t.damage.front() + ")" + where);
  if (!t.open_stages.empty()) {
    return finish(what + " exited with code 0 while stage " + t.open_stages.back() + " was still running" + doing);
  }
  if (!t.done) return finish(what + " exited with code 0 before it finished" + where + doing);
  for (const auto& id : required_stages) {
    if (std::find(t.ended.begin(), t.ended.end(), id) == t.ended.end()) {
      p.stage = id;
      return finish(what + " finished without reporting stage " + id);
    }
  }
  return std::nullopt;
}

}  // namespace cudnnup
