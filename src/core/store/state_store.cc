#include "store/state_store.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "base/paths.h"
#include "store/selection.h"
#include "store/version_spec.h"
#include "base/json_reader.h"
#include "base/json_text.h"

namespace cudnnup {
namespace {

using nlohmann::json;

constexpr size_t kMaxStateBytes = 64 << 20;  // far above 200 entries of the longest pin paths

json optional_string(const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); }

// A selection recorded in the state: a version id (or spec, for pin files), or `system`.
bool is_version_id(const std::optional<std::string>& v) {
  return !v || *v == kSystemSelection || StoreVersionId::parse(*v).has_value();
}
bool is_spec(const std::optional<std::string>& v) { return !v || *v == kSystemSelection || VersionSpec::parse(*v).ok(); }

bool is_pin_path(const std::string& p) {
  std::string suffix = std::string("/") + kPinFileName;
  return paths::is_absolute(p) && paths::normalize(p) == p && p.size() > suffix.size() &&
         p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// What each field may hold; "" when the entry is sound.
std::string entry_problem(const HistoryEntry& e) {
  if (e.seq <= 0 || e.undoes < 0) return "a sequence number is not positive";
  bool local = !e.path.empty();
  if (e.action != "use" && e.action != "use-local" && e.action != "undo") return "an unknown action '" + e.action + "'";
  if (e.action == "use-local" && !local) return "a use-local entry names no pin file";
  if (e.action == "use" && local) return "a use entry names a pin file";
  if (local && !is_pin_path(e.path)) return "'" + e.path + "' is not an absolute path ending in /" + kPinFileName;
  if (local ? !(is_spec(e.from) && is_spec(e.to)) : !(is_version_id(e.from) && is_version_id(e.to))) {
    return "entry #" + std::to_string(e.seq) + " names something that is not a version";
  }
  for (unsigned char c : e.time) {
    if (c < 0x20 || c == 0x7f) return "a time holds control characters";
  }
  return {};
}

}  // namespace

std::optional<std::string> StoreState::global_version() const {
  if (!global || *global == kSystemSelection) return std::nullopt;
  return global;
}

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
    if (e.action == "undo" && !e.pending) undone.insert(e.undoes);
  }
  for (auto it = history.rbegin(); it != history.rend(); ++it) {
    if (it->pending) continue;
    if ((it->action == "use" || it->action == "use-local") && !undone.count(it->seq)) return &*it;
  }
  return nullptr;
}

LinkedToolkit* StoreState::link_of(const std::string& cuda_dir) {
  for (auto& l : links) {
    if (l.cuda_dir == cuda_dir) return &l;
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
    if (e.pending) h["pending"] = true;
    j["history"].push_back(h);
  }
  if (!state.links.empty()) {
    j["links"] = json::array();
    for (const auto& l : state.links) j["links"].push_back({{"cuda_dir", l.cuda_dir}, {"status", l.status}});
  }
  return dump_json(j, 2) + "\n";
}

Result<StoreState> state_from_json(const std::string& text, const std::string& path) {
  auto corrupt = [&](const std::string& why) {
    return make_error(ErrorCode::kCorrupt,
                      "the store state " + path + " is damaged (" + why +
                          "); fix it by hand, or move it aside and choose a default again with `cudnnup use VERSION`",
                      path);
  };
  // Every field is read with its type checked (base/json_reader.h): a planted or damaged file is
  // an error naming the field, never an exception.
  JsonReader reader(path);
  JsonValue j = reader.parse_object(text);
  StoreState state;
  state.global = j.optional_string("global");
  state.next_seq = j.integer("next_seq", 1, 1, StoreState::kMaxSeq);
  for (const auto& h : j.array("history")) {
    HistoryEntry e;
    if (!h.has("seq")) h.fail("seq", "is missing");
    e.seq = h.integer("seq", 0, 1, StoreState::kMaxSeq);
    e.time = h.string("time");
    e.action = h.required_string("action");
    e.from = h.optional_string("from");
    e.to = h.optional_string("to");
    e.path = h.string("path");
    e.undoes = h.integer("undoes", 0, 0, StoreState::kMaxSeq);
    e.pending = h.boolean("pending", false);
    if (!reader.ok()) break;
    if (auto why = entry_problem(e); !why.empty()) return corrupt(why);
    state.next_seq = std::max(state.next_seq, std::min(e.seq + 1, StoreState::kMaxSeq));
    state.history.push_back(std::move(e));
  }
  for (const auto& l : j.array("links")) {
    LinkedToolkit t{l.required_string("cuda_dir"), l.required_string("status")};
    if (!reader.ok()) break;
    if (!paths::is_absolute(t.cuda_dir) || paths::normalize(t.cuda_dir) != t.cuda_dir) {
      return corrupt("the linked toolkit '" + t.cuda_dir + "' is not an absolute, normal path");
    }
    if (t.status != "linking" && t.status != "linked" && t.status != "unlinking") return corrupt("a link status is unknown");
    state.links.push_back(std::move(t));
  }
  if (!reader.ok()) return corrupt(reader.status().error().message);
  if (!is_version_id(state.global)) return corrupt("the global default '" + *state.global + "' is not a version id");
  return state;
}

Result<StoreState> load_state(const FileSystem& fs, const StoreLayout& layout) {
  if (!fs.exists(layout.state_file())) return StoreState{};
  auto file = fs.read_regular(layout.state_file(), kMaxStateBytes, /*follow_link=*/false);
  if (!file) {
    return make_error(file.error().code == ErrorCode::kNotFound ? ErrorCode::kIo : file.error().code,
                      "cannot read the store state " + layout.state_file() + ": " + file.error().message, layout.state_file());
  }
  auto state = state_from_json(file->bytes, layout.state_file());
  if (!state) return state.error();
  if (file->info.other_owner) state->untrusted = "it belongs to another user";
  else if (file->info.others_may_write) state->untrusted = "others may write to it (group or world writable)";
  return state;
}

Status check_state_trusted(const StoreState& state, const StoreLayout& layout) {
  if (state.untrusted.empty()) return ok_status();
  return make_error(ErrorCode::kPermission,
                    "cudnnup does not act on the store state " + layout.state_file() + ": " + state.untrusted +
                        ". Run cudnnup as the store's owner or give it a store of its own (CUDNNUP_HOME=DIR); if it is "
                        "yours and you trust it: chmod go-w " + layout.state_file(),
                    layout.state_file());
}

Status save_state(FileSystem& fs, const StoreLayout& layout, const StoreState& state) {
  if (auto s = fs.make_dirs(layout.root); !s) return s;
  std::string tmp = state_temp_path(layout);
  if (auto s = fs.write_private_file(tmp, state_to_json(state), /*sync=*/true); !s) return s;
  return fs.rename(tmp, layout.state_file());
}

Status restore_state(FileSystem& fs, const StoreLayout& layout, const StoreState& before, bool existed) {
  if (existed) return save_state(fs, layout, before);
  return fs.exists(layout.state_file()) ? fs.remove(layout.state_file()) : ok_status();
}

}  // namespace cudnnup
