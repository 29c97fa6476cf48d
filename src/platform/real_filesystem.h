// The FileSystem of the machine we run on.
#pragma once

#include <memory>

#include "base/filesystem.h"

namespace cudnnup {

std::unique_ptr<FileSystem> make_real_filesystem();

}  // namespace cudnnup
