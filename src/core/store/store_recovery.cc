#include "store/store_recovery.h"

#include "store/current_link.h"
#include "store/use_change.h"

namespace cudnnup {
namespace {

bool ours(const FileSystem& fs, const std::string& path) {
  auto info = fs.lstat(path);
  return info && !info->other_owner;
}

// `current` disagrees with state.json's global default.
bool current_behind(const FileSystem& fs, const StoreLayout& layout, const StoreState& state) {
  auto id = state.global_version();
  if (!id || !fs.is_dir(layout.version_dir(*id))) return false;
  auto now = read_current(fs, layout);
  return now && *now != id;
}

// The newest entry, when it is a pin file change that was interrupted: finished or dropped by
// what the pin file says now.
Result<std::string> settle_pending(FileSystem& fs, const StoreLayout& layout, StoreState& state) {
  if (state.history.empty() || !state.history.back().pending) return std::string();
  HistoryEntry e = state.history.back();
  if (fs.exists(pin_temp_path(e.path)) && ours(fs, pin_temp_path(e.path))) {
    if (auto s = fs.remove(pin_temp_path(e.path)); !s) return s.error();
  }
  auto now = pin_file_spec(fs, e.path);
  StoreState next = state;
  std::string line;
  if (now && *now == e.from && e.from != e.to) {
    next.history.pop_back();  // never happened: the pin file was not written
    line = "dropped the interrupted change of " + e.path + " (the pin file was not written)";
  } else {
    next.history.back().pending = false;  // written, or changed by hand since: either way done
    line = "recorded the interrupted change of " + e.path + " as done";
  }
  if (auto s = save_state(fs, layout, next); !s) return s.error();
  state = std::move(next);
  return line;
}

}  // namespace

bool store_needs_repair(const FileSystem& fs, const StoreLayout& layout, const StoreState& state) {
  if (fs.exists(current_temp_path(layout)) || fs.exists(state_temp_path(layout))) return true;
  if (!state.history.empty() && state.history.back().pending) return true;
  for (const auto& l : state.links) {
    if (l.status != "linked") return true;
  }
  return current_behind(fs, layout, state);
}

Result<std::vector<std::string>> recover_store(FileSystem& fs, const StoreLayout& layout, StoreState& state) {
  std::vector<std::string> repairs;
  if (!store_needs_repair(fs, layout, state)) return repairs;
  if (auto s = check_state_trusted(state, layout); !s) return s.error();
  for (const std::string& leftover : {current_temp_path(layout), state_temp_path(layout)}) {
    if (!fs.exists(leftover) || !ours(fs, leftover)) continue;
    if (auto s = fs.remove(leftover); !s) return s.error();
    repairs.push_back("removed " + leftover + ", left by an interrupted change");
  }
  auto settled = settle_pending(fs, layout, state);
  if (!settled) return settled.error();
  if (!settled->empty()) repairs.push_back(*settled);
  if (current_behind(fs, layout, state)) {
    if (auto s = switch_current(fs, layout, *state.global_version()); s) {
      repairs.push_back("pointed " + layout.current_link() + " at " + *state.global + " again, as state.json says");
    } else {
      // State.json stays the truth. Where links cannot be made at all (environment-only mode) and
      // there is no `current`, nothing is damaged: `use` says so when asked, no other command does.
      (void)fs.remove(current_temp_path(layout));
      auto now = read_current(fs, layout);
      bool environment_only = s.error().code == ErrorCode::kUnsupported && now && !*now;
      if (!environment_only) {
        repairs.push_back("could not point " + layout.current_link() + " at " + *state.global + ": " + s.error().message);
      }
    }
  }
  return repairs;
}

}  // namespace cudnnup
