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
//
// A journal names one root (the store, or the toolkit of a merge) and every path in it is
// relative to that root; every step goes through the FileSystem *_below calls, which never pass
// through a link. Journals are written 0600. Before recovery acts on one it must be owned by the
// user cudnnup runs as, writable by nobody else, and well formed in every field (validate_journal):
// anything else is reported and left alone (docs/security.md).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/filesystem.h"
#include "base/result.h"
#include "store/store_layout.h"

namespace cudnnup {

struct Move {
  std::string from;
  std::string to;
  bool private_to = false;  // true: `to` is private (backup/trash); false: `from` is (stage/backup)
};

struct Journal {
  std::string id;           // unique per transaction; also the journal's file name
  std::string root;         // absolute: the store root, or the toolkit root (merge kinds)
  std::string kind;         // "install-store", "install-merge", "uninstall-store", "uninstall-merge"
  std::string description;  // for people: "install cuDNN 9.19.0.56 (CUDA 13) into /usr/local/cuda"
  std::string phase = "staging";
  // Every path below is relative to `root`.
  std::vector<std::string> new_dirs;  // public directories created before the moves (absent at plan time)
  std::vector<Move> moves;            // applied in order
  std::vector<std::string> cleanup;   // private trees removed after commit (stage, trash), or on roll back
  std::vector<std::string> undo_remove;  // private trees removed only on roll back (a new backup dir)
  std::vector<std::string> prune_dirs;   // public directories removed after the moves when empty
  std::vector<std::string> sync_dirs; // directories fsynced after the moves
};

std::string journal_to_json(const Journal& j);
Result<Journal> journal_from_json(const std::string& text);

// Checks every field of a journal found in the store at `store_root`: id a plain name, kind and
// phase known, root absolute and normal (the store itself for store kinds, any other directory
// for merges), every path relative (base/relative_path.h), each move with a private side that is
// one of the transaction's own places, named by its id (<store>/journal/<id>.stage or .trash,
// <toolkit>/.cudnnup/stage-<id>, backup-<id>, trash-<id>), and a description
// without control characters (it is printed). kCorrupt naming the field otherwise.
Status validate_journal(const Journal& j, const std::string& store_root);

// The private area of a journal's kind, relative to its root: "journal" or ".cudnnup".
std::string private_area(const std::string& kind);

class TransactionRunner {
 public:
  // The journals live in the store's journal/ directory.
  TransactionRunner(FileSystem& fs, const StoreLayout& store)
      : fs_(fs), store_root_(store.root), journal_dir_(store.journal_dir()) {}

  // Records the transaction in phase "staging" before anything is written (so a crash while
  // staging is cleaned up by the next run).
  Status begin(Journal& j);
  // Switches to "commit" and applies every step; on a failure, rolls back in-process (when the
  // disk still lets it) and returns the first error. On success the journal is gone.
  Status commit(Journal& j);
  // Undoes a transaction that has not committed: removes private trees, drops the journal.
  Status abandon(Journal& j);

  // Finds journals left by a crashed run and completes (commit/cleanup) or rolls back (staging)
  // each. Returns what was repaired, for people, and in `refused` each journal that was not
  // acted on (not ours, writable by others, malformed, or its root moved), with the reason.
  // `around`, when given, runs each repair (the app takes the toolkit's lock there); when it
  // answers kConflict (the toolkit is busy) that journal is left for a later run.
  using RepairWrapper = std::function<Status(const Journal&, const std::function<Status()>& repair)>;
  Result<std::vector<std::string>> recover(std::vector<Error>* refused = nullptr, const RepairWrapper& around = nullptr);

  std::string journal_path(const std::string& id) const { return journal_dir_ + "/" + id + ".json"; }

 private:
  Status write_journal(const Journal& j);
  Status remove_journal(const Journal& j);
  Status roll_forward(Journal& j);
  Status roll_back(Journal& j);
  Status finish_cleanup(Journal& j);
  bool move_done(const Journal& j, const Move& m) const;
  Result<Journal> read_journal(const std::string& name) const;

  FileSystem& fs_;
  std::string store_root_;
  std::string journal_dir_;
};

// A transaction id unique enough for journals and private paths: time + counter + a caller salt.
std::string make_transaction_id(long long now_ns, const std::string& salt);

}  // namespace cudnnup
