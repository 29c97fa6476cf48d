#include "store/use_change.h"

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

Status write_pin(FileSystem& fs, const std::string& path, const std::optional<std::string>& spec) {
  if (!spec) return fs.exists(path) ? fs.remove(path) : ok_status();
  // Temp + rename, so the project never sees a half-written pin file.
  std::string tmp = path + ".tmp";
  if (auto s = fs.write_file(tmp, pin_file_contents(*spec), /*sync=*/true); !s) return s;
  return fs.rename(tmp, path);
}

Status apply_global(FileSystem& fs, const StoreLayout& layout, StoreState& state, HistoryEntry entry,
                    std::string* link_problem) {
  StoreState next = state;
  next.global = entry.to;
  next.record(std::move(entry));
  if (auto s = save_state(fs, layout, next); !s) return s;
  state = std::move(next);
  Status link = state.global ? switch_current(fs, layout, *state.global) : remove_current(fs, layout);
  if (!link && link_problem) {
    *link_problem = link.error().message;
    return ok_status();
  }
  return link;
}

}  // namespace

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

Status set_pin_file(FileSystem& fs, const StoreLayout& layout, StoreState& state, const std::string& pin_path,
                    const std::optional<std::string>& spec, const std::string& time) {
  std::optional<std::string> before;
  if (fs.exists(pin_path)) {
    // An unreadable or malformed pin file is being replaced on purpose; record it as absent.
    if (auto old = current_pin(fs, pin_path); old) before = *old;
  }
  if (auto s = write_pin(fs, pin_path, spec); !s) return s;
  StoreState next = state;
  next.record(HistoryEntry{0, time, "use-local", before, spec, pin_path, 0});
  if (auto s = save_state(fs, layout, next); !s) return s;
  state = std::move(next);
  return ok_status();
}

Result<HistoryEntry> undo_last_change(FileSystem& fs, const StoreLayout& layout, StoreState& state,
                                      const std::vector<StoreVersionId>& installed, const std::string& time,
                                      std::string* link_problem) {
  const HistoryEntry* last = state.last_undoable();
  if (!last) return make_error(ErrorCode::kNotFound, "there is no change to undo (see `cudnnup use --history`)");
  HistoryEntry target = *last;
  HistoryEntry undo{0, time, "undo", target.to, target.from, target.path, target.seq};

  if (target.action == "use") {
    if (target.from) {
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
  if (auto s = write_pin(fs, target.path, target.from); !s) return s.error();
  StoreState next = state;
  next.record(undo);
  if (auto s = save_state(fs, layout, next); !s) return s.error();
  state = std::move(next);
  return state.history.back();
}

}  // namespace cudnnup
