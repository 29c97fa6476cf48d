// A permission problem during install ends with nothing changed and, as the error's fix steps,
// the command that would work: on Linux with sudo; on Windows (a toolkit under C:\Program Files
// is writable only by administrators) the same install in a terminal run as administrator, with
// absolute paths since an elevated terminal starts in System32. Either way, store mode is
// offered: it needs no rights beyond the user's own.
#pragma once

#include <string>

#include "base/result.h"
#include "install/install_pipeline.h"

namespace cudnnup {

// `e` itself unless it is a kPermission error, which gets the message above for `dir`.
Error with_permission_hint(const Error& e, const std::string& dir, const InstallOptions& options);

}  // namespace cudnnup
