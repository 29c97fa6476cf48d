// Where cudnnup keeps its own installations (docs/design.md, "The store").
#pragma once

#include <string>

#include "base/environment.h"

namespace cudnnup {

struct StoreLayout {
  std::string root;  // $CUDNNUP_HOME, else $XDG_DATA_HOME/cudnnup, else ~/.local/share/cudnnup;
                     // Windows: %LOCALAPPDATA%/cudnnup

  static StoreLayout for_environment(const Environment& env);
  std::string versions_dir() const { return root + "/versions"; }
  std::string version_dir(const std::string& id) const { return versions_dir() + "/" + id; }  // "9.19.0.56+cuda13"
  std::string current_link() const { return root + "/current"; }
  std::string state_file() const { return root + "/state.json"; }
  std::string journal_dir() const { return root + "/journal"; }
  std::string lock_file() const { return root + "/lock"; }
  std::string cache_dir() const { return root + "/cache"; }
  // Rows of NVIDIA archives read from a mirror's manifests (`archive-info --update-known`).
  std::string refreshed_known_archives() const { return root + "/known_archives.json"; }
  static constexpr const char* kManifestName = "cudnnup-manifest.json";
};

}  // namespace cudnnup
