// Before `uninstall --into` removes anything: is every installed entry still what cudnnup put
// there? Files by sha256, links by target, directories it created by being directories; an
// entry now reached through a link, or replaced by something of another kind (a link by a file,
// a file by a directory with the user's contents in it), counts as changed.
#pragma once

#include <string>
#include <vector>

#include "install/install_manifest.h"
#include "install/toolkit_target.h"

namespace cudnnup {

struct ChangedEntry {
  std::string path;  // absolute, for people
  std::string why;   // "contents differ", "was a link to X, is now a directory", ...
};

struct MergeCheck {
  std::vector<ChangedEntry> changed;
  std::vector<std::string> missing;  // installed entries that are gone (nothing to remove there)
};

MergeCheck check_merge_unchanged(const FileSystem& fs, const ToolkitTarget& t, const InstallManifest& m,
                                 const BelowHasher& hash);

// A transaction of another cudnnup store still pending in the toolkit (its stage or trash in
// .cudnnup/, other than `own_txid`'s): the directory's name, or "". Changing the toolkit now
// would mix two changes; the store that began it repairs it on its next run.
std::string pending_transaction_in(const FileSystem& fs, const ToolkitTarget& t, const std::string& own_txid);

}  // namespace cudnnup
