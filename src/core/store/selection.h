// Which cuDNN version is selected here, and why (like `pyenv version-name` or rustup's override
// chain). Precedence, first match wins:
//   1. the command line (`cudnnup exec --version V`)
//   2. the CUDNNUP_VERSION environment variable (empty counts as unset)
//   3. the nearest `.cudnn-version` pin file, from the working directory up to the root
//   4. the global default in the store's state.json (`cudnnup use VERSION`)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/environment.h"
#include "base/filesystem.h"
#include "base/result.h"
#include "store/state_store.h"
#include "store/store_layout.h"
#include "store/version_spec.h"

namespace cudnnup {

enum class SelectionSource { kCommandLine, kEnvironment, kPinFile, kGlobal, kNone };
const char* selection_source_name(SelectionSource source);  // "command-line", "environment", ...

inline constexpr const char* kPinFileName = ".cudnn-version";
inline constexpr const char* kVersionEnvVar = "CUDNNUP_VERSION";

struct SelectionRequest {
  SelectionSource source = SelectionSource::kNone;
  std::string spec;    // as written there
  std::string origin;  // "--version", "CUDNNUP_VERSION", the pin file's path, state.json's path
  std::string describe() const;  // "set by CUDNNUP_VERSION", "set by /p/.cudnn-version", ...
};

// The nearest pin file at or above `dir`, or nullopt.
std::optional<std::string> find_pin_file(const FileSystem& fs, const std::string& dir);
// The spec in a pin file: its first line that is neither empty nor a # comment. An unreadable,
// empty or malformed pin file is an error naming the file (kPermission / kUsage). Pin files come
// with cloned repositories, so they are hostile: only a regular file (links are followed and
// what they reach is checked) of at most kMaxPinFileBytes is read, and a line that is not a
// plain spec is never quoted back.
inline constexpr uint64_t kMaxPinFileBytes = 4096;
Result<std::string> read_pin_file(const FileSystem& fs, const std::string& path);
// The text written by `cudnnup use --local`.
std::string pin_file_contents(const std::string& spec);

// The request that wins the precedence above. `command_line` is exec's --version, if given.
Result<SelectionRequest> find_request(const FileSystem& fs, const Environment& env, const StoreState& state,
                                      const StoreLayout& layout,
                                      const std::optional<std::string>& command_line = std::nullopt);

struct Selection {
  SelectionRequest request;
  StoreVersionId id;
  std::string dir;  // versions/<id>
};

// Resolves a request against what is installed. Fails (kNotFound) when nothing is selected or the
// selected spec is not installed; the message names where the request came from.
Result<Selection> resolve_request(const SelectionRequest& request, const std::vector<StoreVersionId>& installed,
                                  const StoreLayout& layout);

}  // namespace cudnnup
