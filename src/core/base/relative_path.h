// Paths that cudnnup's own records keep relative to a root (journals, install manifests, the
// link manifest; docs/security.md): the only form they may take, checked before any is used.
// The check is textual and strict; links inside the root are the FileSystem's *_below calls'
// job (base/filesystem.h), which refuse to pass through one.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace cudnnup {

// Why Windows would not store `name` (one path component) as given, or "" when it is fine:
// "x.dll:s" is the alternate data stream "s" of x.dll; a trailing '.' or ' ' is dropped
// ("cudnn64_9.dll." is cudnn64_9.dll); CON, NUL, COM1 ... (with any extension) are devices;
// <>"|?* and control characters are invalid. Refused on every OS: a store or toolkit may be
// shared with Windows (WSL), and no file cudnnup installs has such a name.
std::string windows_name_hazard(std::string_view name);

// What the FileSystem *_below calls require: a path that cannot name anything outside its root
// on any OS. Refuses (kCorrupt, the message says why) an empty path, absolute forms ("/x",
// "C:/x", "C:x", "\\server\x", "\\?\C:\x"), '\' anywhere (a separator on Windows), and
// empty components or ones made only of dots and spaces ("..", ".. " is ".." on Windows).
Status check_stays_below(std::string_view rel);

// What cudnnup's records may hold (stricter): check_stays_below, and no component that
// windows_name_hazard() reports. Accepts "lib/libcudnn.so.9".
Status check_relative_path(std::string_view rel);

// One component that check_relative_path accepts: a store version id, a journal id.
bool is_plain_name(std::string_view name);

// `path` made relative to `root` when it lies below it (compared after paths::normalize, with
// no ".." left over); "" otherwise. Reads older records that stored absolute paths.
std::string relative_below(std::string_view root, std::string_view path);

}  // namespace cudnnup
