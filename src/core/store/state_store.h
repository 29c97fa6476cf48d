// The store's state.json: the global default version and a change log (history) that makes every
// change reversible (`cudnnup use --undo`, docs/commands/versions.md).
//
// Writes go to state.json.tmp (fsync'd) and are renamed over state.json, so a reader or a crash
// sees the old file or the new one, never half of one. The caller holds the store lock
// (platform/file_lock.h on StoreLayout::lock_file()) around load + change + save, so two
// concurrent `use` calls serialise instead of losing one another's update.
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
  std::optional<std::string> from;
  std::optional<std::string> to;
  std::string path;    // use-local: the pin file written
  int64_t undoes = 0;  // undo: the seq of the change it reverted
};

struct StoreState {
  std::optional<std::string> global;  // version id, e.g. "9.19.0.56+cuda13"
  std::vector<HistoryEntry> history;  // oldest first, at most kMaxHistory entries
  int64_t next_seq = 1;

  static constexpr size_t kMaxHistory = 200;
  // Sequence numbers stay below 2^53 (exact in every JSON reader); a file that claims more is
  // damaged. At one change a second that is 285 million years of changes.
  static constexpr int64_t kMaxSeq = (int64_t{1} << 53) - 1;
  // Appends with the next seq number, dropping the oldest entries beyond kMaxHistory.
  HistoryEntry& record(HistoryEntry entry);
  // The newest "use"/"use-local" change not yet reverted by an "undo", or nullptr.
  const HistoryEntry* last_undoable() const;
};

std::string state_temp_path(const StoreLayout& layout);  // state.json.tmp

// A missing state.json is an empty state. A damaged one is kCorrupt, naming the file.
Result<StoreState> load_state(const FileSystem& fs, const StoreLayout& layout);
Status save_state(FileSystem& fs, const StoreLayout& layout, const StoreState& state);

std::string state_to_json(const StoreState& state);
Result<StoreState> state_from_json(const std::string& text, const std::string& path);

}  // namespace cudnnup
