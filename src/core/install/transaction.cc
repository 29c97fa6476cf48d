#include "install/transaction.h"

#include <nlohmann/json.hpp>

#include "base/json_reader.h"
#include "base/json_text.h"
#include "base/paths.h"

namespace cudnnup {

using nlohmann::json;

std::string journal_to_json(const Journal& j) {
  json out;
  out["schema"] = 1;
  out["id"] = j.id;
  out["kind"] = j.kind;
  out["description"] = j.description;
  out["phase"] = j.phase;
  out["new_dirs"] = j.new_dirs;
  json moves = json::array();
  for (const auto& m : j.moves) moves.push_back({{"from", m.from}, {"to", m.to}, {"private_to", m.private_to}});
  out["moves"] = moves;
  out["cleanup"] = j.cleanup;
  out["undo_remove"] = j.undo_remove;
  out["prune_dirs"] = j.prune_dirs;
  out["sync_dirs"] = j.sync_dirs;
  return dump_json(out, 1);
}

Result<Journal> journal_from_json(const std::string& text) {
  JsonReader reader("the journal");
  JsonValue in = reader.parse_object(text);
  Journal j;
  j.id = in.required_string("id");
  j.kind = in.required_string("kind");
  j.description = in.string("description");
  j.phase = in.required_string("phase");
  for (const char* key : {"new_dirs", "moves", "cleanup"}) {
    if (!in.has(key)) in.fail(key, "is missing");
  }
  j.new_dirs = in.strings("new_dirs");
  for (const auto& m : in.array("moves")) {
    if (!m.has("private_to")) m.fail("private_to", "is missing");
    j.moves.push_back(Move{m.required_string("from"), m.required_string("to"), m.boolean("private_to", false)});
  }
  j.cleanup = in.strings("cleanup");
  j.sync_dirs = in.strings("sync_dirs");
  j.undo_remove = in.strings("undo_remove");
  j.prune_dirs = in.strings("prune_dirs");
  if (!reader.ok()) return reader.status().error();
  return j;
}

std::string make_transaction_id(long long now_ns, const std::string& salt) {
  static int counter = 0;
  return "tx-" + std::to_string(now_ns) + "-" + std::to_string(++counter) + (salt.empty() ? "" : "-" + salt);
}

Status TransactionRunner::write_journal(const Journal& j) {
  // Atomic replace: a crash leaves the old journal or the new one, never half of one.
  if (auto s = fs_.make_dirs(journal_dir_); !s) return s;
  std::string path = journal_path(j.id);
  std::string tmp = path + ".tmp";
  if (auto s = fs_.write_file(tmp, journal_to_json(j), /*sync=*/true); !s) return s;
  if (auto s = fs_.rename(tmp, path); !s) return s;
  return fs_.sync_dir(journal_dir_);
}

Status TransactionRunner::remove_journal(const Journal& j) {
  if (auto s = fs_.remove(journal_path(j.id)); !s && s.error().code != ErrorCode::kNotFound) return s;
  return fs_.sync_dir(journal_dir_);
}

bool TransactionRunner::move_done(const Move& m) const {
  return m.private_to ? fs_.exists(m.to) : !fs_.exists(m.from);
}

Status TransactionRunner::begin(Journal& j) {
  j.phase = "staging";
  return write_journal(j);
}

Status TransactionRunner::roll_forward(Journal& j) {
  for (const auto& d : j.new_dirs) {
    if (!fs_.is_dir(d)) {
      if (auto s = fs_.make_dir(d); !s) return s;
    }
  }
  for (const auto& m : j.moves) {
    if (move_done(m)) continue;
    if (auto s = fs_.make_dirs(paths::parent(m.to)); !s) return s;
    if (auto s = fs_.rename(m.from, m.to); !s) return s;
  }
  for (const auto& d : j.sync_dirs) {
    if (fs_.is_dir(d)) {
      if (auto s = fs_.sync_dir(d); !s) return s;
    }
  }
  j.phase = "cleanup";
  if (auto s = write_journal(j); !s) return s;
  return finish_cleanup(j);
}

Status TransactionRunner::finish_cleanup(Journal& j) {
  for (const auto& p : j.cleanup) {
    if (!fs_.exists(p)) continue;
    if (auto s = fs_.remove_tree(p); !s) return s;
  }
  for (const auto& d : j.prune_dirs) {
    auto listing = fs_.list_dir(d);
    if (listing.ok() && listing->empty()) {
      if (auto s = fs_.remove(d); !s) return s;
    }
  }
  return remove_journal(j);
}

Status TransactionRunner::roll_back(Journal& j) {
  // While staging no move has run, and "done" cannot be read for moves out of a stage that is
  // still being filled, so only the private trees are removed.
  for (auto it = j.moves.rbegin(); j.phase != "staging" && it != j.moves.rend(); ++it) {
    if (!move_done(*it)) continue;
    if (auto s = fs_.rename(it->to, it->from); !s) return s;
  }
  for (const auto& p : j.cleanup) {
    if (!fs_.exists(p)) continue;
    if (auto s = fs_.remove_tree(p); !s) return s;
  }
  for (const auto& p : j.undo_remove) {
    if (!fs_.exists(p)) continue;
    if (auto s = fs_.remove_tree(p); !s) return s;
  }
  for (auto it = j.new_dirs.rbegin(); it != j.new_dirs.rend(); ++it) {
    auto listing = fs_.list_dir(*it);
    if (listing.ok() && listing->empty()) {
      if (auto s = fs_.remove(*it); !s) return s;
    }
  }
  return remove_journal(j);
}

Status TransactionRunner::commit(Journal& j) {
  j.phase = "commit";
  if (auto s = write_journal(j); !s) {
    // Still "staging" on disk (or no journal at all): nothing public changed; undo the stage.
    j.phase = "staging";
    (void)roll_back(j);
    return s;
  }
  auto applied = roll_forward(j);
  if (applied) return applied;
  if (j.phase == "cleanup") return ok_status();  // committed; leftovers are removed by the next run
  // A step failed in a way the OS reported (permission, disk full): put everything back now.
  // When that fails too (the process is effectively crashing), the journal stays for recovery.
  if (auto undo = roll_back(j); !undo) {
    return make_error(applied.error().code,
                      applied.error().message + "; undoing also failed (" + undo.error().message +
                          "); the next cudnnup run completes the repair from its journal",
                      applied.error().path);
  }
  return applied;
}

Status TransactionRunner::abandon(Journal& j) { return roll_back(j); }

Result<std::vector<std::string>> TransactionRunner::recover() {
  std::vector<std::string> repaired;
  if (!fs_.is_dir(journal_dir_)) return repaired;
  auto entries = fs_.list_dir(journal_dir_);
  if (!entries) return entries.error();
  for (const auto& e : *entries) {
    std::string path = paths::join(journal_dir_, e.name);
    if (e.name.size() > 9 && e.name.compare(e.name.size() - 9, 9, ".json.tmp") == 0) {
      // A journal write that never got renamed into place: it was never in force.
      if (auto s = fs_.remove(path); !s) return s.error();
    }
  }
  for (const auto& e : *entries) {
    std::string path = paths::join(journal_dir_, e.name);
    if (e.name.size() < 6 || e.name.compare(e.name.size() - 5, 5, ".json") != 0) continue;
    auto text = fs_.read_file(path);
    if (!text) return text.error();
    auto j = journal_from_json(*text);
    if (!j) return make_error(ErrorCode::kCorrupt, "cannot read the journal " + path + ": " + j.error().message +
                                                       "; move it away and run `cudnnup doctor`", path);
    Status s = ok_status();
    std::string what;
    if (j->phase == "staging") {
      s = roll_back(*j);
      what = "rolled back an interrupted ";
    } else if (j->phase == "commit") {
      s = roll_forward(*j);
      what = "completed an interrupted ";
    } else {
      s = finish_cleanup(*j);
      what = "cleaned up after ";
    }
    if (!s) {
      return make_error(s.error().code, "cannot repair the interrupted change '" + j->description + "' (journal " + path +
                                            "): " + s.error().message, path);
    }
    repaired.push_back(what + j->description);
  }
  return repaired;
}

}  // namespace cudnnup
