// A web for install tests on the in-memory filesystem: https://HOST/PATH is the file
// /remote/HOST/PATH, a directory there answers with an index page linking each entry (as
// NVIDIA's redist directory does), anything else is a 404. Downloads copy the file to the part
// path they are given.
#pragma once

#include <string>
#include <vector>

#include "install/mirror.h"
#include "support/memory_fs.h"

namespace cudnnup::testing {

// `fetched` records every get_text URL, `downloads` every download URL (either may be null).
HttpClient memory_web(MemoryFileSystem& fs, std::vector<std::string>* fetched = nullptr, std::vector<std::string>* downloads = nullptr);

}  // namespace cudnnup::testing
