// A snapshot of the process environment, passed into the logic as data so tests can describe
// any machine (Linux or Windows) without touching the real one.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudnnup {

enum class OsKind { kLinux, kWindows };

struct Environment {
  OsKind os = OsKind::kLinux;
  std::map<std::string, std::string> vars;  // on Windows, keys are stored upper-case
  std::string home;                         // $HOME or %USERPROFILE%, '/' separators
  std::string cwd;
  std::string arch = "x86_64";              // the CPU we run on: x86_64, aarch64, ppc64le

  bool windows() const { return os == OsKind::kWindows; }
  char list_separator() const { return windows() ? ';' : ':'; }
  std::optional<std::string> get(const std::string& name) const;
  // The entries of a list variable (PATH, LD_LIBRARY_PATH), empty entries kept.
  std::vector<std::string> get_list(const std::string& name) const;
};

}  // namespace cudnnup
