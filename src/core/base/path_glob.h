// Shell-style wildcards (`*`, `?`, `[...]`) over the FileSystem interface, as glob(3) does them:
// used for ld.so.conf `include` lines and PyTorch's `nvidia/*/lib/libcudnn.so.*[0-9]` preload.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/filesystem.h"

namespace cudnnup {

// fnmatch(3) without flags except that a leading '.' must be matched explicitly (glob's rule).
bool glob_match(std::string_view pattern, std::string_view name);

// Every existing path that matches `pattern` (absolute, '/' separators), sorted per directory
// level like glob(3) (byte order). Wildcards may appear in any component. Unreadable
// directories are skipped, as glob(3) does without GLOB_ERR.
std::vector<std::string> expand_glob(const FileSystem& fs, const std::string& pattern);

}  // namespace cudnnup
