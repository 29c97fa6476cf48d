// Which cuDNN release `cudnnup install 9`, `install 9.19` or `install latest` means. NVIDIA's
// redist directory (https://developer.download.nvidia.com/compute/cudnn/redist/) lists one
// redistrib_<release>.json per release; a mirror directory holds the same files. A partial
// version picks the newest listed release it is a prefix of. When the listing cannot be read,
// cudnnup's own table of NVIDIA archives (data/known_archives.json) stands in, and says so.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/version.h"
#include "facts/known_archives.h"

namespace cudnnup {

// What the user asked for: an exact release (9.19.0, 9.19.0.56) or a partial one (9, 9.19,
// latest). Anything else is not a release spec (it may be a file name).
struct ReleaseSpec {
  std::string text;       // as typed
  Version prefix;         // empty for "latest"
  bool exact = false;     // three or more parts: names one manifest, no listing needed
};
std::optional<ReleaseSpec> parse_release_spec(std::string_view text);

// The release a manifest's file name names: the whole of "redistrib_9.19.0.json" (8.x also four
// parts); nullopt for anything else ("redistrib_9.19.0.json.bak", "redistrib_latest.json").
std::optional<Version> release_of_file_name(std::string_view name);

// The releases an index page links to (href values whose last component is such a name), newest
// first, each once.
std::vector<Version> releases_in_index_page(std::string_view page);

// Newest first, each once.
std::vector<Version> newest_first(std::vector<Version> releases);

// The releases of the listing that `spec` matches, newest first.
std::vector<Version> matching_releases(const ReleaseSpec& spec, const std::vector<Version>& releases);

// "9" -> "the newest cuDNN 9", "latest" -> "the newest cuDNN", "9.19" -> "the newest cuDNN 9.19".
std::string describe_release_spec(const ReleaseSpec& spec);

}  // namespace cudnnup
