// Editing the persistent user PATH (Windows: HKCU\Environment, value Path) for
// `cudnnup env --persist` / `--unpersist`. Pure string logic; the registry read/write is
// platform/registry.h.
//
// Rules (never the `setx` way):
//  * Every entry that is not cudnnup's stays exactly as written: same text, same case, the same
//    unexpanded %VAR% forms (the value is REG_EXPAND_SZ), same order, duplicates and empty
//    entries included, a trailing ';' kept. No length limit (setx cuts at 1024 characters).
//  * cudnnup's entries are the ones inside the store (its root, compared without case and
//    with either slash, after expanding %VAR% with the given variables): a new `--persist`
//    replaces them instead of stacking, `--unpersist` removes them.
//  * The new entry goes first in the user PATH. Windows puts the machine PATH before the user
//    PATH, so a CUDA toolkit on the machine PATH still comes earlier (the plan says so).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudnnup {

// What a folder's name may not hold to be one entry of the persistent PATH: ';' ends an entry, '%'
// starts a variable of the REG_EXPAND_SZ value, '"' quotes.
inline constexpr const char* kNotInPathEntry = ";%\"";

struct PathEditPlan {
  std::string old_value;
  std::string new_value;
  bool changed = false;
  std::vector<std::string> removed;  // entries taken out, as they were written
  std::string added;                 // the entry put in ("" for unpersist)
  // Unpersist took out every entry: the value is deleted rather than left empty, so a user PATH
  // that `--persist` created is gone again (absent stays absent), as Windows had it.
  bool remove_value = false;
};

// Expands %NAME% references with `vars` (names without case, as Windows does); unknown
// references stay as written. Used only to compare entries, never to write.
std::string expand_windows_vars(const std::string& text, const std::map<std::string, std::string>& vars);

// True when `entry` (after expansion) is `store_root` or inside it.
bool is_store_path_entry(const std::string& entry, const std::string& store_root,
                         const std::map<std::string, std::string>& vars);

// `dir` first, every earlier store entry removed, everything else untouched.
PathEditPlan plan_persist_path(const std::string& old_value, const std::string& dir, const std::string& store_root,
                               const std::map<std::string, std::string>& vars);

// Every store entry removed, everything else untouched.
PathEditPlan plan_unpersist_path(const std::string& old_value, const std::string& store_root,
                                 const std::map<std::string, std::string>& vars);

// The longest value a Windows environment variable may have (32,767 characters with the NUL).
constexpr size_t kMaxEnvironmentValue = 32767;

}  // namespace cudnnup
