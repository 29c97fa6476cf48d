#include "store/state_store.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "base/json_reader.h"
#include "base/json_text.h"

namespace cudnnup {
namespace {

using nlohmann::json;

json optional_string(const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); }

// state.json holds a version id and 200 history lines: a few KiB. Anything larger than this is
// not a state file cudnnup wrote (and reading it whole would only cost memory).
constexpr uint64_t kMaxStateBytes = 64 << 20;

}  // namespace

HistoryEntry& StoreState::record(HistoryEntry entry) {
  // Never past kMaxSeq (a state file cannot make it overflow: the reader caps it).
  entry.seq = std::min(next_seq, kMaxSeq);
  if (next_seq < kMaxSeq) ++next_seq;
  history.push_back(std::move(entry));
  if (history.size() > kMaxHistory) history.erase(history.begin(), history.end() - kMaxHistory);
  return history.back();
}

const HistoryEntry* StoreState::last_undoable() const {
  std::set<int64_t> undone;
  for (const auto& e : history) {
    if (e.action == "undo") undone.insert(e.undoes);
  }
  for (auto it = history.rbegin(); it != history.rend(); ++it) {
    if ((it->action == "use" || it->action == "use-local") && !undone.count(it->seq)) return &*it;
  }
  return nullptr;
}

std::string state_temp_path(const StoreLayout& layout) { return layout.state_file() + ".tmp"; }

std::string state_to_json(const StoreState& state) {
  json j;
  j["schema"] = 1;
  j["global"] = optional_string(state.global);
  j["next_seq"] = state.next_seq;
  j["history"] = json::array();
  for (const auto& e : state.history) {
    json h = {{"seq", e.seq}, {"time", e.time}, {"action", e.action},
              {"from", optional_string(e.from)}, {"to", optional_string(e.to)}};
    if (!e.path.empty()) h["path"] = e.path;
    if (e.undoes) h["undoes"] = e.undoes;
    j["history"].push_back(h);
  }
  return dump_json(j, 2) + "\n";
}

Result<StoreState> state_from_json(const std::string& text, const std::string& path) {
  JsonReader reader(path);
  JsonValue j = reader.parse_object(text);
  StoreState state;
  state.global = j.optional_string("global");
  state.next_seq = j.integer("next_seq", 1, 1, StoreState::kMaxSeq);
  for (const auto& h : j.array("history")) {
    HistoryEntry e;
    e.seq = h.integer("seq", 0, 1, StoreState::kMaxSeq);
    if (!h.has("seq")) h.fail("seq", "is missing");
    e.time = h.string("time");
    e.action = h.required_string("action");
    e.from = h.optional_string("from");
    e.to = h.optional_string("to");
    e.path = h.string("path");
    e.undoes = h.integer("undoes", 0, 0, StoreState::kMaxSeq);
    state.next_seq = std::max(state.next_seq, std::min(e.seq + 1, StoreState::kMaxSeq));
    state.history.push_back(std::move(e));
  }
  if (!reader.ok()) {
    return make_error(ErrorCode::kCorrupt,
                      "the store state is damaged (" + reader.status().error().message +
                          "); fix it by hand, or move it aside and choose a default again with `cudnnup use VERSION`",
                      path);
  }
  return state;
}

Result<StoreState> load_state(const FileSystem& fs, const StoreLayout& layout) {
  const std::string path = layout.state_file();
  if (!fs.exists(path)) return StoreState{};
  // The real FileSystem allocates its cap up front: ask for the file's own size.
  auto info = fs.stat(path);
  if (!info) return info.error();
  if (info->size > kMaxStateBytes) {
    return make_error(ErrorCode::kCorrupt,
                      "the store state " + path + " is " + std::to_string(info->size) +
                          " bytes, far more than cudnnup writes; move it aside and choose a default again with "
                          "`cudnnup use VERSION`",
                      path);
  }
  auto text = fs.read_file(path, static_cast<size_t>(info->size) + 1);
  if (!text) return text.error();
  return state_from_json(*text, path);
}

Status save_state(FileSystem& fs, const StoreLayout& layout, const StoreState& state) {
  if (auto s = fs.make_dirs(layout.root); !s) return s;
  std::string tmp = state_temp_path(layout);
  if (auto s = fs.write_file(tmp, state_to_json(state), /*sync=*/true); !s) return s;
  return fs.rename(tmp, layout.state_file());
}

}  // namespace cudnnup
