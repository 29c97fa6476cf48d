#include "store/use_change.h"

#include "base/paths.h"
#include "store/current_link.h"
#include "store/selection.h"

namespace cudnnup {
namespace {

// The pin file's spec, or nullopt when there is no pin file.
Result<std::optional<std::string>> current_pin(const FileSystem& fs, const std::string& path) {
  if (!fs.exists(path)) return std::optional<std::string>();
  auto spec = read_pin_file(fs, path);
  if (!spec) return spec.error();
  return std::optional<std::string>(*spec);
}

// With `link_problem`, a `current` that cannot be switched or removed is reported there instead
// of failing the change (environment-only mode).
Status link_status(Status link, std::string* link_problem) {
  if (!link && link_problem) {
    *link_problem = link.error().message;
    return ok_status();
  }
  return link;
}

Status apply_global(FileSystem& fs, const StoreLayout& layout, StoreState& state, HistoryEntry entry,
                    std::string* link_problem) {
  StoreState next = state;
  next.global = entry.to;
  next.record(std::move(entry));
  if (auto id = next.global_version()) {
    // To a version: state.json first, then `current`; recovery finishes a switch cut short.
    if (auto s = save_state(fs, layout, next); !s) return s;
    state = std::move(next);
    return link_status(switch_current(fs, layout, *id), link_problem);
  }
  // To no version (none, or `system`): `current` goes first, then state.json. Cut short in
  // between, state.json still names the old version and recovery points `current` at it again,
  // so readers see the old selection or the new one, never `current` without a version.
  if (auto s = link_status(remove_current(fs, layout), link_problem); !s) return s;
  if (auto s = save_state(fs, layout, next); !s) return s;
  state = std::move(next);
  return ok_status();
}

// A pin file change in three steps, so that a crash at any point is finished or undone by the
// next run (store/store_recovery.h) and the history never claims a change that did not happen:
// the entry is saved as pending, the pin file written, the entry marked done.
Status apply_pin_change(FileSystem& fs, const StoreLayout& layout, StoreState& state, HistoryEntry entry) {
  bool had_state = fs.exists(layout.state_file());
  StoreState next = state;
  entry.pending = true;
  next.record(std::move(entry));
  if (auto s = save_state(fs, layout, next); !s) return s;
  const HistoryEntry& e = next.history.back();
  if (auto s = write_pin_file(fs, e.path, e.to); !s) {
    // Refused (a read-only project directory): the store goes back to exactly what it was. If
    // even that fails, the pending entry is dropped by the next run, which finds the pin unchanged.
    (void)restore_state(fs, layout, state, had_state);
    return s;
  }
  next.history.back().pending = false;
  if (auto s = save_state(fs, layout, next); !s) return s;
  state = std::move(next);
  return ok_status();
}

}  // namespace

std::string pin_temp_path(const std::string& pin_path) { return pin_path + ".cudnnup-new"; }

Status write_pin_file(FileSystem& fs, const std::string& path, const std::optional<std::string>& spec) {
  if (!spec) return fs.exists(path) ? fs.remove(path) : ok_status();
  // Temp + rename, so the project never sees a half-written pin file. Whatever is at the temp
  // name (a link planted in a cloned repository) is removed first, never written through.
  std::string tmp = pin_temp_path(path);
  if (fs.exists(tmp)) {
    if (auto s = fs.remove(tmp); !s) return s;
  }
  if (auto s = fs.write_file(tmp, pin_file_contents(*spec), /*sync=*/true); !s) return s;
  return fs.rename(tmp, path);
}

Status set_global_default(FileSystem& fs, const StoreLayout& layout, StoreState& state,
                          const std::optional<std::string>& id, const std::string& time,
                          std::string* link_problem) {
  HistoryEntry entry;
  entry.time = time;
  entry.action = "use";
  entry.from = state.global;
  entry.to = id;
  return apply_global(fs, layout, state, std::move(entry), link_problem);
}

Result<bool> choose_global_default(FileSystem& fs, const StoreLayout& layout, StoreState& state,
                                   const std::optional<std::string>& id, const std::string& time,
                                   std::string* link_problem) {
  if (state.global != id) {
    if (auto s = set_global_default(fs, layout, state, id, time, link_problem); !s) return s.error();
    return true;
  }
  std::optional<std::string> want = state.global_version();
  auto now = read_current(fs, layout);
  if (now && *now == want) return false;
  if (want) {
    if (auto s = link_status(switch_current(fs, layout, *want), link_problem); !s) return s.error();
  } else if (auto s = link_status(remove_current(fs, layout), link_problem); !s) {
    return s.error();
  }
  return false;
}

Status set_pin_file(FileSystem& fs, const StoreLayout& layout, StoreState& state, const std::string& pin_path,
                    const std::optional<std::string>& spec, const std::string& time) {
  std::optional<std::string> before;
  if (fs.exists(pin_path)) {
    // An unreadable or malformed pin file is being replaced on purpose; record it as absent.
    if (auto old = current_pin(fs, pin_path); old) before = *old;
  }
  return apply_pin_change(fs, layout, state, HistoryEntry{0, time, "use-local", before, spec, pin_path, 0, false});
}

Result<HistoryEntry> undo_last_change(FileSystem& fs, const StoreLayout& layout, StoreState& state,
                                      const std::vector<StoreVersionId>& installed, const std::string& time,
                                      std::string* link_problem) {
  if (!state.history.empty() && state.history.back().pending) {
    return make_error(ErrorCode::kConflict, "change #" + std::to_string(state.history.back().seq) +
                                                " was interrupted and is not repaired yet; run `cudnnup use --history` to repair "
                                                "it, then undo");
  }
  const HistoryEntry* last = state.last_undoable();
  if (!last) return make_error(ErrorCode::kNotFound, "there is no change to undo (see `cudnnup use --history`)");
  HistoryEntry target = *last;
  HistoryEntry undo{0, time, "undo", target.to, target.from, target.path, target.seq, false};

  if (target.action == "use") {
    if (target.from && *target.from != kSystemSelection) {
      bool present = false;
      for (const auto& id : installed) present = present || id.id == *target.from;
      if (!present) {
        return make_error(ErrorCode::kNotFound, "cannot undo change #" + std::to_string(target.seq) + ": it would go back to " +
                                                    *target.from + ", which is no longer installed; install it again or "
                                                    "choose another version with `cudnnup use VERSION`");
      }
    }
    if (auto s = apply_global(fs, layout, state, undo, link_problem); !s) return s.error();
    return state.history.back();
  }

  // use-local: only when the pin file still says what we wrote.
  auto now = current_pin(fs, target.path);
  if (!now) return now.error();
  if (*now != target.to) {
    return make_error(ErrorCode::kConflict,
                      "cannot undo change #" + std::to_string(target.seq) + ": " + target.path +
                          " was changed since cudnnup wrote it; edit or remove it by hand",
                      target.path);
  }
  if (auto s = apply_pin_change(fs, layout, state, undo); !s) return s.error();
  return state.history.back();
}

Result<std::optional<std::string>> pin_file_spec(const FileSystem& fs, const std::string& path) { return current_pin(fs, path); }

}  // namespace cudnnup
