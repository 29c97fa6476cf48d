// Refreshing cudnnup's table of NVIDIA archives (data/known_archives.json, compiled in) from a
// mirror's redistrib manifests, for releases that came out after the build:
// `cudnnup archive-info --update-known`. The refreshed rows live in the store
// (StoreLayout::refreshed_known_archives) beside, never instead of, the built-in table: on a file
// name both have, the built-in row wins, and a mirror that disagrees with it is reported, not
// written.
#pragma once

#include <string>
#include <vector>

#include "facts/known_archives.h"
#include "install/mirror.h"

namespace cudnnup {

struct KnownRefresh {
  std::vector<KnownArchive> rows;      // the refreshed table: earlier refreshes' rows and the new ones
  std::vector<KnownArchive> added;     // the rows new with this refresh
  std::vector<std::string> conflicts;  // a manifest's sha256 or size that differs from a kept row
  std::vector<std::string> problems;   // manifests that could not be read
  size_t manifests = 0;                // manifests read
  size_t already_known = 0;            // archives the built-in table has, with the same hash
};

// Reads every release the mirror lists and each of its manifests, adding to `earlier` (the rows
// of earlier refreshes, perhaps from other mirrors): a manifest that disagrees with a built-in or
// an earlier row is a conflict, and that row stays. An error, and nothing to write, when no
// manifest could be read at all.
Result<KnownRefresh> refresh_known_archives(const FileSystem& fs, const Mirror& mirror, const std::vector<KnownArchive>& builtin,
                                            const std::vector<KnownArchive>& earlier, const HttpClient& http);

// The file the rows are kept in: data/known_archives.json's format, each row's source the
// manifest it was read from.
std::string refreshed_known_archives_json(const std::vector<KnownArchive>& rows, const std::string& mirror_root);

// The table install and archive-info check against: the built-in rows, then the refreshed file's
// rows for names the built-in table lacks. A missing file is no error; an unreadable one is.
Result<std::vector<KnownArchive>> known_archives_with_refreshed(const FileSystem& fs, const std::string& refreshed_path,
                                                                const std::vector<KnownArchive>& builtin);

}  // namespace cudnnup
