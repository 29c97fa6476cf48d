// The parts of `--help` that differ between Linux and Windows: where the store is, where CUDA and
// cuDNN live, which variables `env` sets. One place, so no Windows help speaks of $XDG_DATA_HOME
// or /usr/local/cuda and no Linux help of %LOCALAPPDATA%.
#pragma once

#include <string>

namespace cudnnup {

struct HelpWords {
  std::string store;            // "$XDG_DATA_HOME/cudnnup (~/.local/share/cudnnup)" / "%LOCALAPPDATA%\cudnnup"
  std::string store_versions;   // the store's versions folder, as a path pattern
  std::string no_privileges;    // "no root needed" / "no administrator rights needed"
  std::string toolkit_search;   // where the first toolkit is looked for
  std::string verify_copy_example;  // a copy's library folder
  std::string pip_copy_example;     // a venv's pip wheel copy
  std::string default_copy_places;  // where verify and bench look without --copy
  std::string env_variables;    // what `env` sets before CUDNN_PATH/CUDNN_HOME
  std::string archive_kinds;    // the archive formats this build reads: NVIDIA ships .tar.xz for Linux, .zip for Windows
  std::string archive_example;  // NVIDIA's archive name for this system
  std::string merge_example;    // a whole `install --into` command line, elevated as it must be
};

// The words for the system this build runs on (platform/system.h host_os()).
const HelpWords& help_words();
// For one system: tests compare both.
const HelpWords& help_words(bool windows);

}  // namespace cudnnup
