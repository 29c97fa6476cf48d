#include "store/state_store.h"

#include <nlohmann/json.hpp>
#include <set>

namespace cudnnup {
namespace {

using nlohmann::json;

json optional_string(const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); }

std::optional<std::string> read_optional(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return j[key].get<std::string>();
}

}  // namespace

HistoryEntry& StoreState::record(HistoryEntry entry) {
  entry.seq = next_seq++;
  history.push_back(std::move(entry));
  if (history.size() > kMaxHistory) history.erase(history.begin(), history.end() - kMaxHistory);
  return history.back();
}

const HistoryEntry* StoreState::last_undoable() const {
  std::set<int> undone;
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
  return j.dump(2) + "\n";
}

Result<StoreState> state_from_json(const std::string& text, const std::string& path) {
  auto corrupt = [&](const std::string& why) {
    return make_error(ErrorCode::kCorrupt,
                      "the store state " + path + " is damaged (" + why +
                          "); fix it by hand, or move it aside and choose a default again with `cudnnup use VERSION`",
                      path);
  };
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return corrupt("not a JSON object");
  StoreState state;
  try {
    state.global = read_optional(j, "global");
    state.next_seq = j.value("next_seq", 1);
    if (j.contains("history")) {
      for (const auto& h : j.at("history")) {
        HistoryEntry e;
        e.seq = h.at("seq").get<int>();
        e.time = h.value("time", "");
        e.action = h.at("action").get<std::string>();
        e.from = read_optional(h, "from");
        e.to = read_optional(h, "to");
        e.path = h.value("path", "");
        e.undoes = h.value("undoes", 0);
        state.next_seq = std::max(state.next_seq, e.seq + 1);
        state.history.push_back(std::move(e));
      }
    }
  } catch (const json::exception& e) {
    return corrupt(e.what());
  }
  return state;
}

Result<StoreState> load_state(const FileSystem& fs, const StoreLayout& layout) {
  if (!fs.exists(layout.state_file())) return StoreState{};
  // 1 MiB is far above 200 history entries, and the real FileSystem allocates the cap up front.
  auto text = fs.read_file(layout.state_file(), 1 << 20);
  if (!text) return text.error();
  return state_from_json(*text, layout.state_file());
}

Status save_state(FileSystem& fs, const StoreLayout& layout, const StoreState& state) {
  if (auto s = fs.make_dirs(layout.root); !s) return s;
  std::string tmp = state_temp_path(layout);
  if (auto s = fs.write_file(tmp, state_to_json(state), /*sync=*/true); !s) return s;
  return fs.rename(tmp, layout.state_file());
}

}  // namespace cudnnup
