// The environment that makes one store version the cuDNN that programs load and build against,
// and its rendering for each shell (`cudnnup env`, `cudnnup exec`, the `cudnnup init` hook).
//
// Library search list (LD_LIBRARY_PATH on Linux, PATH on Windows), CPATH and LIBRARY_PATH get the
// selected version's dir first. Entries of other cuDNN copies are removed so nothing shadows it:
// every other store version (and the store's `current` alias), the extra dirs the caller names
// (copies the doctor found), and any entry that holds cuDNN files and nothing else. An entry that
// holds cuDNN next to other libraries (a CUDA toolkit's lib64 with cuDNN copied in) is kept, after
// the selected dir, because removing it would also hide cudart/cuBLAS; the plan notes it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/environment.h"
#include "base/filesystem.h"
#include "base/result.h"

namespace cudnnup {

enum class Shell { kBash, kZsh, kFish, kPwsh, kCmd };
std::optional<Shell> parse_shell(std::string_view name);  // "bash", "zsh", "fish", "pwsh"/"powershell", "cmd"
const char* shell_name(Shell shell);

// The dirs of one store version as this OS lays them out (docs/design.md).
struct VersionDirs {
  std::string root, lib, include, bin;  // bin: Windows only (DLLs); empty on Linux
  static VersionDirs of(const std::string& version_dir, bool windows);
  std::string loader_dir() const { return bin.empty() ? lib : bin; }  // where the loader looks
};

struct EnvChange {
  std::string name;
  std::optional<std::string> value;  // nullopt: unset
};

struct EnvPlan {
  std::vector<EnvChange> changes;
  std::vector<std::string> removed;  // "LD_LIBRARY_PATH: /dir (why)"
  std::vector<std::string> notes;    // entries kept on purpose, and why
};

struct EnvInputs {
  std::string version_dir;                      // the selected store version
  std::vector<std::string> other_version_dirs;  // the other store versions, and `current`
  std::vector<std::string> other_copy_dirs;     // lib/include/bin dirs of copies found elsewhere
};

EnvPlan plan_environment(const FileSystem& fs, const Environment& env, const EnvInputs& inputs);

// The environment under `system` (no cudnnup version: the machine's own copies): the store's
// directories (`inputs.other_version_dirs`: every store version and `current`) are taken out of
// the search lists (a list left with no entry is unset), and CUDNN_PATH/CUDNN_HOME are unset
// where they name one of those versions.
// Nothing else is touched, other cuDNN copies included: they are the machine's own. Only the
// variables that change are in `changes`. `inputs.version_dir` is not used.
EnvPlan plan_system_environment(const FileSystem& fs, const Environment& env, const EnvInputs& inputs);

// The shell variable (not exported) in which the bash, zsh and fish hooks of `cudnnup init` keep
// the version they applied: `cudnnup env --hook` prints its assignment, the hook passes it back
// as --previous. And the environment variable that silences the hook's line on stderr.
inline constexpr const char* kHookActiveVar = "_CUDNNUP_ACTIVE";
inline constexpr const char* kHookQuietVar = "CUDNNUP_HOOK_QUIET";

// Every variable the plans set, in their order: LD_LIBRARY_PATH, LIBRARY_PATH, CPATH (on Windows
// PATH, LIB, INCLUDE: what MSVC reads), CUDNN_PATH, CUDNN_HOME. The `cudnnup init` hooks save and restore exactly these.
std::vector<std::string> environment_variable_names(bool windows);

// Shell code that applies the plan: `export`/`set -gx`/`$env:`/`set "..."` lines, every value
// through the shell's escaper (shell/shell_quote.h), and comments that cannot end early. A value
// the shell cannot hold (a path with a line break) is an error naming it, and nothing is printed.
struct RenderOptions {
  bool comments = true;           // the `init` hook evals without them: nothing foreign to misparse
  std::string header;             // cudnnup's own first comment line ("cuDNN 9.19.0.56+cuda13 ")
  std::string header_detail;      // foreign text for it (where the selection came from)
};
Result<std::string> render_environment(const EnvPlan& plan, Shell shell, const RenderOptions& options = {});

// 'text' for sh/bash/zsh, with embedded single quotes escaped.
std::string quote_posix(const std::string& text);
// `text` as one sh word: unchanged when it needs no quoting (/usr/bin/python3), else quote_posix.
std::string posix_word(const std::string& text);

// The variables a child gets under the plan (for exec).
std::map<std::string, std::string> apply_environment(const Environment& env, const EnvPlan& plan);

}  // namespace cudnnup
