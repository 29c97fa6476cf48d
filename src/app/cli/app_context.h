// What every command gets: global options, the machine (filesystem, environment) and output.
#pragma once

#include <memory>
#include <string>

#include "base/environment.h"
#include "base/filesystem.h"
#include "base/result.h"

namespace cudnnup {

struct GlobalOptions {
  bool json = false;
  bool no_color = false;
  bool quiet = false;
  std::string db_path;  // --db FILE overrides the embedded rules
};

struct AppContext {
  GlobalOptions options;
  std::unique_ptr<FileSystem> fs;
  Environment env;
  bool color = false;  // decided once: terminal, no --no-color, no NO_COLOR, not --json
};

// Prints an error the same way for every command (text or JSON) and returns kExitUsage or the
// code that fits the error.
int report_error(const AppContext& ctx, const Error& error);

}  // namespace cudnnup
