// Store version ids ("9.19.0.56+cuda13") and the partial specs a user types to pick one
// ("9", "9.1", "9.1.0.70", "+cuda12", "9.1+cuda12"). A spec resolves to the highest installed
// id it matches, the way rustup and pyenv resolve a partial toolchain name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/filesystem.h"
#include "base/result.h"
#include "store/store_layout.h"
#include "base/version.h"

namespace cudnnup {

// The name of one directory under versions/: "<cuDNN version>+cuda<CUDA major>".
struct StoreVersionId {
  Version version;     // 9.19.0.56
  int cuda_major = 0;  // 13
  std::string id;      // "9.19.0.56+cuda13", exactly the directory name

  static std::optional<StoreVersionId> parse(std::string_view name);
  // Highest cuDNN version first; for equal versions, highest CUDA major first.
  bool better_than(const StoreVersionId& other) const;
};

struct VersionSpec {
  std::string text;                // as typed, for messages
  Version prefix;                  // empty when only "+cudaM" was given
  std::optional<int> cuda_major;

  // Accepts "9", "9.1", "9.1.0.70", "+cuda12", "9.1+cuda12" (surrounding spaces ignored).
  static Result<VersionSpec> parse(std::string_view text);
  bool matches(const StoreVersionId& id) const;
};

// Every valid version directory in the store, best first. Directories whose names are not ids
// (leftover temp dirs of an interrupted install) are skipped. A missing store is an empty list.
Result<std::vector<StoreVersionId>> list_installed(const FileSystem& fs, const StoreLayout& layout);

// The installed version a user names on the command line (`cudnnup uninstall NAME`): only the
// name of a real directory in versions/ (as `cudnnup list` prints it; a trailing '/' and a leading
// "./" as tab completion writes them are dropped), or a spec that matches exactly one. Paths are
// refused (kUsage): "../x", "/", "versions/x", "x/y"; so is a link in versions/, which is never
// followed. On Windows names compare without letter case, and "\" counts as '/'.
Result<StoreVersionId> find_installed(const FileSystem& fs, const StoreLayout& layout, std::string_view arg, bool windows);

// The best installed match, or kNotFound whose message lists what is installed and the fix.
Result<StoreVersionId> resolve_spec(const VersionSpec& spec, const std::vector<StoreVersionId>& installed);

// "9.19.0.56+cuda13, 9.1.0.70+cuda12" or "nothing".
std::string describe_installed(const std::vector<StoreVersionId>& installed);

}  // namespace cudnnup
