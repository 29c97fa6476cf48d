#include "install/transaction.h"

#include <nlohmann/json.hpp>
#include <tuple>

#include "base/json_reader.h"
#include "base/json_text.h"
#include "base/paths.h"
#include "base/relative_path.h"

namespace cudnnup {

using nlohmann::json;

namespace {

constexpr size_t kMaxJournalBytes = 16 << 20;

bool is_store_kind(const std::string& kind) { return kind == "install-store" || kind == "uninstall-store"; }
bool is_merge_kind(const std::string& kind) { return kind == "install-merge" || kind == "uninstall-merge"; }

bool under(const std::string& rel, const std::string& area) { return rel.compare(0, area.size() + 1, area + "/") == 0; }

// The private places a transaction may create, fill and remove, all named by its id: a stage,
// a trash, a backup folder. An uninstall of a merge also empties the backup folder of the
// install it undoes (another id).
bool is_private(const Journal& j, const std::string& rel) {
  auto in = [&](const std::string& place) { return rel == place || under(rel, place); };
  if (j.kind == "install-store") return in("journal/" + j.id + ".stage");
  if (j.kind == "uninstall-store") return in("journal/" + j.id + ".trash");
  if (j.kind == "install-merge") {
    return in(".cudnnup/stage-" + j.id) || rel == ".cudnnup/stage-" + j.id + ".manifest.json" || in(".cudnnup/backup-" + j.id);
  }
  if (in(".cudnnup/trash-" + j.id)) return true;
  std::string backup = ".cudnnup/backup-";
  if (rel.compare(0, backup.size(), backup) != 0) return false;
  std::string rest = rel.substr(backup.size());
  return is_plain_name(rest.substr(0, rest.find('/')));
}

Status bad_field(const std::string& field, const std::string& why) {
  return make_error(ErrorCode::kCorrupt, "its field '" + field + "' " + why);
}

}  // namespace

std::string private_area(const std::string& kind) { return is_store_kind(kind) ? "journal" : ".cudnnup"; }

std::string journal_to_json(const Journal& j) {
  json out;
  out["schema"] = 2;
  out["id"] = j.id;
  out["root"] = j.root;
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
  if (reader.ok() && in.integer("schema", 0, 0, 1000) != 2) return make_error(ErrorCode::kCorrupt, "the journal has an unknown schema");
  Journal j;
  j.id = in.required_string("id");
  j.root = in.required_string("root");
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

Status validate_journal(const Journal& j, const std::string& store_root) {
  if (!is_plain_name(j.id) || j.id.size() > 200) return bad_field("id", "is not a plain name");
  if (!is_store_kind(j.kind) && !is_merge_kind(j.kind)) return bad_field("kind", "is not a kind of transaction cudnnup makes");
  if (j.phase != "staging" && j.phase != "commit" && j.phase != "cleanup") return bad_field("phase", "is unknown");
  for (unsigned char c : j.description) {
    if (c < 0x20 || c == 0x7f) return bad_field("description", "holds control characters");
  }
  std::string root = paths::normalize(j.root);
  if (!paths::is_absolute(j.root) || root != j.root) return bad_field("root", "is not an absolute, normal path");
  if (is_store_kind(j.kind) && root != paths::normalize(store_root)) {
    return bad_field("root", "is not this store (" + store_root + ")");
  }
  if (is_merge_kind(j.kind) && (root == paths::normalize(store_root) || root == "/" || paths::parent(root) == root)) {
    return bad_field("root", "is not a toolkit directory");
  }
  std::string area = private_area(j.kind);
  auto check = [&](const std::string& field, const std::string& rel, bool must_be_private) -> Status {
    if (auto s = check_relative_path(rel); !s) return bad_field(field, "holds " + s.error().message);
    if (must_be_private && !is_private(j, rel)) {
      return bad_field(field, "names '" + rel + "', which is not one of this transaction's own places in " + area + "/");
    }
    // Store transactions touch only their private area, versions/ and versions/<id>.
    bool version_dir = rel == "versions" || (under(rel, "versions") && rel.find('/', 9) == std::string::npos);
    if (is_store_kind(j.kind) && !under(rel, area) && !version_dir) {
      return bad_field(field, "names '" + rel + "', which no store transaction touches");
    }
    return ok_status();
  };
  for (const auto& d : j.new_dirs) {
    if (auto s = check("new_dirs", d, false); !s) return s;
  }
  for (const auto& m : j.moves) {
    if (auto s = check("moves.from", m.from, !m.private_to); !s) return s;
    if (auto s = check("moves.to", m.to, m.private_to); !s) return s;
  }
  for (const auto& [field, list, must_be_private] :
       {std::tuple{"cleanup", &j.cleanup, true}, std::tuple{"undo_remove", &j.undo_remove, true},
        std::tuple{"prune_dirs", &j.prune_dirs, false}, std::tuple{"sync_dirs", &j.sync_dirs, false}}) {
    for (const auto& p : *list) {
      if (auto s = check(field, p, must_be_private); !s) return s;
    }
  }
  return ok_status();
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
  if (auto s = fs_.write_private_file(tmp, journal_to_json(j), /*sync=*/true); !s) return s;
  if (auto s = fs_.rename(tmp, path); !s) return s;
  return fs_.sync_dir(journal_dir_);
}

Status TransactionRunner::remove_journal(const Journal& j) {
  if (auto s = fs_.remove(journal_path(j.id)); !s && s.error().code != ErrorCode::kNotFound) return s;
  return fs_.sync_dir(journal_dir_);
}

bool TransactionRunner::move_done(const Journal& j, const Move& m) const {
  return m.private_to ? fs_.exists_below(j.root, m.to) : !fs_.exists_below(j.root, m.from);
}

Status TransactionRunner::begin(Journal& j) {
  j.phase = "staging";
  return write_journal(j);
}

Status TransactionRunner::roll_forward(Journal& j) {
  for (const auto& d : j.new_dirs) {
    auto info = fs_.lstat_below(j.root, d);
    if (!info || info->type != FileType::kDirectory) {
      if (auto s = fs_.make_dir_below(j.root, d); !s) return s;
    }
  }
  for (const auto& m : j.moves) {
    if (move_done(j, m)) continue;
    if (m.to.find('/') != std::string::npos) {
      if (auto s = fs_.make_dirs_below(j.root, paths::parent(m.to)); !s) return s;
    }
    if (auto s = fs_.rename_below(j.root, m.from, m.to); !s) return s;
  }
  for (const auto& d : j.sync_dirs) {
    if (auto info = fs_.lstat_below(j.root, d); info && info->type == FileType::kDirectory) {
      if (auto s = fs_.sync_dir(paths::join(j.root, d)); !s) return s;
    }
  }
  j.phase = "cleanup";
  if (auto s = write_journal(j); !s) return s;
  return finish_cleanup(j);
}

Status TransactionRunner::finish_cleanup(Journal& j) {
  for (const auto& p : j.cleanup) {
    if (!fs_.exists_below(j.root, p)) continue;
    if (auto s = fs_.remove_tree_below(j.root, p); !s) return s;
  }
  for (const auto& d : j.prune_dirs) {
    auto listing = fs_.list_dir_below(j.root, d);
    if (listing.ok() && listing->empty()) {
      if (auto s = fs_.remove_below(j.root, d); !s) return s;
    }
  }
  return remove_journal(j);
}

Status TransactionRunner::roll_back(Journal& j) {
  // While staging no move has run, and "done" cannot be read for moves out of a stage that is
  // still being filled, so only the private trees are removed.
  for (auto it = j.moves.rbegin(); j.phase != "staging" && it != j.moves.rend(); ++it) {
    if (!move_done(j, *it)) continue;
    if (auto s = fs_.rename_below(j.root, it->to, it->from); !s) return s;
  }
  for (const auto* list : {&j.cleanup, &j.undo_remove}) {
    for (const auto& p : *list) {
      if (!fs_.exists_below(j.root, p)) continue;
      if (auto s = fs_.remove_tree_below(j.root, p); !s) return s;
    }
  }
  for (auto it = j.new_dirs.rbegin(); it != j.new_dirs.rend(); ++it) {
    auto listing = fs_.list_dir_below(j.root, *it);
    if (listing.ok() && listing->empty()) {
      if (auto s = fs_.remove_below(j.root, *it); !s) return s;
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

Result<Journal> TransactionRunner::read_journal(const std::string& name) const {
  std::string path = paths::join(journal_dir_, name);
  auto refuse = [&](const std::string& why) {
    return make_error(ErrorCode::kPermission,
                      "the journal " + path + " was not acted on: " + why +
                          ". If it is yours, finish or undo the change it describes by hand and remove it",
                      path);
  };
  auto file = fs_.read_regular(path, kMaxJournalBytes, /*follow_link=*/false);
  if (!file) return refuse(file.error().message);
  if (file->info.other_owner) return refuse("it belongs to another user");
  if (file->info.others_may_write) return refuse("others may write to it (group or world writable)");
  auto j = journal_from_json(file->bytes);
  if (!j) return refuse(j.error().message);
  if (name != j->id + ".json") return refuse("its id does not match its file name");
  if (auto s = validate_journal(*j, store_root_); !s) return refuse(s.error().message);
  if (is_merge_kind(j->kind)) {
    // The toolkit must still be where the journal says, by its real path (a repointed link such
    // as /usr/local/cuda now names another directory), with cudnnup's private area in it.
    auto real = fs_.canonical(j->root);
    if (!real || *real != j->root) return refuse(j->root + " is not the toolkit's real path any more");
    auto area = fs_.lstat_below(j->root, ".cudnnup");
    if (j->phase != "staging" && (!area || area->type != FileType::kDirectory)) {
      return refuse(j->root + "/.cudnnup is missing or not a directory");
    }
  }
  return j;
}

Result<std::vector<std::string>> TransactionRunner::recover(std::vector<Error>* refused, const RepairWrapper& around) {
  std::vector<std::string> repaired;
  if (!fs_.is_dir(journal_dir_)) return repaired;
  auto entries = fs_.list_dir(journal_dir_);
  if (!entries) return entries.error();
  for (const auto& e : *entries) {
    std::string path = paths::join(journal_dir_, e.name);
    if (e.name.size() > 9 && e.name.compare(e.name.size() - 9, 9, ".json.tmp") == 0) {
      // A journal write that never got renamed into place: it was never in force. Only ours.
      auto info = fs_.lstat(path);
      if (!info || info->other_owner) continue;
      if (auto s = fs_.remove(path); !s) return s.error();
    }
  }
  for (const auto& e : *entries) {
    if (e.name.size() < 6 || e.name.compare(e.name.size() - 5, 5, ".json") != 0) continue;
    auto j = read_journal(e.name);
    if (!j) {
      if (refused) refused->push_back(j.error());
      continue;
    }
    std::string what = j->phase == "staging" ? "rolled back an interrupted " : j->phase == "commit" ? "completed an interrupted "
                                                                                                      : "cleaned up after ";
    auto repair = [&]() -> Status {
      if (j->phase == "staging") return roll_back(*j);
      if (j->phase == "commit") return roll_forward(*j);
      return finish_cleanup(*j);
    };
    Status s = around ? around(*j, repair) : repair();
    if (!s && around && s.error().code == ErrorCode::kConflict) continue;  // its toolkit is busy: next time
    if (!s) {
      return make_error(s.error().code, "cannot repair the interrupted change '" + j->description + "' (journal " +
                                            journal_path(j->id) + "): " + s.error().message, journal_path(j->id));
    }
    repaired.push_back(what + j->description);
  }
  return repaired;
}

}  // namespace cudnnup
