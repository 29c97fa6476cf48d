// The store's state.json: the global default version, a change log (history) that makes every
// change reversible (`cudnnup use --undo`, docs/commands/versions.md), and the toolkits linked to
// the store's `current` (`cudnnup link`).
//
// Writes go to state.json.tmp (0600, fsync'd) and are renamed over state.json, so a reader or a
// crash sees the old file or the new one, never half of one. The caller holds the store lock
// (app/commands/locks.h) around load + change + save, so two concurrent `use` calls serialise
// instead of losing one another's update. Every field is checked when read: a version is a
// version id, a pin file path is absolute and ends in /.cudnn-version, a toolkit path is absolute.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/filesystem.h"
#include "base/result.h"
#include "store/store_layout.h"

namespace cudnnup {

// One change. `from`/`to` are nullopt where there was nothing (no global default, no pin file).
struct HistoryEntry {
  int64_t seq = 0;     // 1, 2, ...: at most kMaxSeq
  std::string time;    // UTC, ISO 8601, supplied by the app
  std::string action;  // "use" (global default), "use-local" (pin file), "undo"
  // A version id ("use") or a spec ("use-local"), or "system"; nullopt where there was nothing.
  std::optional<std::string> from;
  std::optional<std::string> to;
  std::string path;    // use-local, and the undo of one: the pin file written
  int64_t undoes = 0;  // undo: the seq of the change it reverted
  // A pin file change is recorded before the pin file is written, then marked done; a crash in
  // between leaves it pending, and the next run's recovery finishes or drops it by what the pin
  // file says (store/store_recovery.h), so `use --undo` never reverts the wrong change.
  bool pending = false;
};

// A toolkit whose cuDNN files are links into this store's `current` (`cudnnup link`).
struct LinkedToolkit {
  std::string cuda_dir;  // its real path
  std::string status;    // "linking", "linked", "unlinking" (the first and last only mid-change)
};

struct StoreState {
  // The global default: a version id ("9.19.0.56+cuda13"), "system" (`cudnnup use system`: no
  // cudnnup version, the machine's own copies), or nullopt (none chosen, `cudnnup use --unset`).
  std::optional<std::string> global;
  // `global` when it names a store version, which `current` then points at; else nullopt.
  std::optional<std::string> global_version() const;
  std::vector<HistoryEntry> history;  // oldest first, at most kMaxHistory entries
  int64_t next_seq = 1;
  std::vector<LinkedToolkit> links;
  // Set by load_state when state.json belongs to another user or others may write to it: it
  // is read (a selection is only ever among installed versions) but not acted on.
  std::string untrusted;

  static constexpr size_t kMaxHistory = 200;
  // Sequence numbers stay below 2^53 (exact in every JSON reader); a file that claims more is
  // damaged. At one change a second that is 285 million years of changes.
  static constexpr int64_t kMaxSeq = (int64_t{1} << 53) - 1;
  // Appends with the next seq number, dropping the oldest entries beyond kMaxHistory.
  HistoryEntry& record(HistoryEntry entry);
  // The newest "use"/"use-local" change not yet reverted by an "undo", or nullptr.
  const HistoryEntry* last_undoable() const;
  LinkedToolkit* link_of(const std::string& cuda_dir);
};

std::string state_temp_path(const StoreLayout& layout);  // state.json.tmp

// A missing state.json is an empty state. A damaged or malformed one is kCorrupt, naming the file.
Result<StoreState> load_state(const FileSystem& fs, const StoreLayout& layout);
Status save_state(FileSystem& fs, const StoreLayout& layout, const StoreState& state);
// Puts state.json back as it was before a change that failed: `before` rewritten, or the file
// removed when there was none (`existed` false), so a refused command leaves the store as it was.
Status restore_state(FileSystem& fs, const StoreLayout& layout, const StoreState& before, bool existed);
// kPermission naming the fix when `state` must not be acted on (see StoreState::untrusted).
Status check_state_trusted(const StoreState& state, const StoreLayout& layout);

std::string state_to_json(const StoreState& state);
Result<StoreState> state_from_json(const std::string& text, const std::string& path);

}  // namespace cudnnup
