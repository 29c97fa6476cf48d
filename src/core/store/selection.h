// Which cuDNN version is selected here, and why (like `pyenv version-name` or rustup's override
// chain). Precedence, first match wins:
//   1. the command line (`cudnnup exec --version V`)
//   2. the CUDNNUP_VERSION environment variable (empty counts as unset)
//   3. the nearest `.cudnn-version` pin file, from the working directory up to the root
//   4. the global default in the store's state.json (`cudnnup use VERSION`)
// Each of them may also say `system` (`cudnnup use system`): no cudnnup version, the machine's
// own copies. A pin file that says so ends the search upward like any other pin file.
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
// The selection that means "no cudnnup version: this machine's own copies" (pyenv's `system`).
inline constexpr const char* kSystemSelection = "system";
bool is_system_selection(std::string_view text);

struct SelectionRequest {
  SelectionSource source = SelectionSource::kNone;
  std::string spec;    // as written there
  std::string origin;  // "--version", "CUDNNUP_VERSION", the pin file's path, state.json's path
  std::string describe() const;  // "set by CUDNNUP_VERSION", "set by /p/.cudnn-version", ...
  // The short form for one line of the shell hook: "from /p/.cudnn-version", "the global default".
  std::string short_origin() const;
  bool system() const { return source != SelectionSource::kNone && is_system_selection(spec); }
};

// The nearest pin file at or above `dir`, or nullopt.
std::optional<std::string> find_pin_file(const FileSystem& fs, const std::string& dir);
// The nearest entry called `name` at or above `dir` (the pin file, cudnn.lock), or nullopt.
std::optional<std::string> find_nearest_file(const FileSystem& fs, const std::string& dir, const std::string& name);
// The spec in a pin file (or `system`): its first line that is neither empty nor a # comment. The pin file
// must be a regular file (or a link to one) of at most kMaxPinFileBytes; a FIFO or device is
// refused without opening it for long. An unreadable, oversized, empty or malformed pin file is
// an error naming the file (kPermission / kUsage) that never repeats text from it other than a
// short run of spec characters.
inline constexpr size_t kMaxPinFileBytes = 4096;
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

// Resolves a request against what is installed. Fails (kNotFound) when nothing is selected, when
// `system` is (no store version applies: callers that can do without one check request.system()
// first), or when the selected spec is not installed; the message names where the request came from.
Result<Selection> resolve_request(const SelectionRequest& request, const std::vector<StoreVersionId>& installed,
                                  const StoreLayout& layout);

}  // namespace cudnnup
