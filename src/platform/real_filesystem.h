// The FileSystem of the machine we run on.
#pragma once

#include <memory>

#include "base/filesystem.h"

namespace cudnnup {

std::unique_ptr<FileSystem> make_real_filesystem();

// This process's standard input, front to back (`... | cudnnup explain -`), up to `max_bytes`
// (longer is kCorrupt). Closed, a folder or unreadable is an error that names "standard input".
Result<std::string> read_standard_input(size_t max_bytes);

}  // namespace cudnnup
