// All-or-nothing changes to the disk, built on FileSystem so every step can be crash-tested on the
// in-memory filesystem (tests/support/memory_fs.h).
//
// A transaction is a list of renames (plus the directories they need). Every rename has one
// private side that only this transaction uses (a stage, backup or trash path), so whether a step
// has happened can be read from the disk itself: a move into a private path is done when that
// path exists; a move out of one is done when it no longer exists. The journal therefore needs
// writing only at phase changes, and a later run can finish (roll forward) or undo (roll back)
// from any crash point by looking.
//
//   phase "staging": the stage is being filled; nothing public has changed. Recovery: remove the
//                    stage and other private paths (roll back).
//   phase "commit":  everything is staged and verified. Recovery: apply the remaining steps
//                    (roll forward), then clean up.
//   phase "cleanup": the change is complete. Recovery: remove the leftovers named in the journal.
#pragma once

#include <string>
#include <vector>

#include "base/filesystem.h"
#include "base/result.h"

namespace cudnnup {

struct Move {
  std::string from;
  std::string to;
  bool private_to = false;  // true: `to` is private (backup/trash); false: `from` is (stage/backup)
};

struct Journal {
  std::string id;           // unique per transaction; also the journal's file name
  std::string kind;         // "install-store", "install-merge", "uninstall-store", "uninstall-merge"
  std::string description;  // for people: "install cuDNN 9.19.0.56 (CUDA 13) into /usr/local/cuda"
  std::string phase = "staging";
  std::vector<std::string> new_dirs;  // public directories created before the moves (absent at plan time)
  std::vector<Move> moves;            // applied in order
  std::vector<std::string> cleanup;   // private trees removed after commit (stage, trash), or on roll back
  std::vector<std::string> undo_remove;  // private trees removed only on roll back (a new backup dir)
  std::vector<std::string> prune_dirs;   // public directories removed after the moves when empty
  std::vector<std::string> sync_dirs; // directories fsynced after the moves
};

std::string journal_to_json(const Journal& j);
Result<Journal> journal_from_json(const std::string& text);

class TransactionRunner {
 public:
  TransactionRunner(FileSystem& fs, std::string journal_dir) : fs_(fs), journal_dir_(std::move(journal_dir)) {}

  // Records the transaction in phase "staging" before anything is written (so a crash while
  // staging is cleaned up by the next run).
  Status begin(Journal& j);
  // Switches to "commit" and applies every step; on a failure, rolls back in-process (when the
  // disk still lets it) and returns the first error. On success the journal is gone.
  Status commit(Journal& j);
  // Undoes a transaction that has not committed: removes private trees, drops the journal.
  Status abandon(Journal& j);

  // Finds journals left by a crashed run and completes (commit/cleanup) or rolls back (staging)
  // each. Returns descriptions of what was repaired, for people.
  Result<std::vector<std::string>> recover();

  std::string journal_path(const std::string& id) const { return journal_dir_ + "/" + id + ".json"; }

 private:
  Status write_journal(const Journal& j);
  Status remove_journal(const Journal& j);
  Status roll_forward(Journal& j);
  Status roll_back(Journal& j);
  Status finish_cleanup(Journal& j);
  bool move_done(const Move& m) const;

  FileSystem& fs_;
  std::string journal_dir_;
};

// A transaction id unique enough for journals and private paths: time + counter + a caller salt.
std::string make_transaction_id(long long now_ns, const std::string& salt);

}  // namespace cudnnup
