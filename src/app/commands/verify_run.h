// A verify run as a value: `cudnnup verify` prints it, `doctor --format html --with-verify` puts
// it in the page. The stages themselves are in cmd_verify.cc (docs/commands/verify.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/app_context.h"
#include "gpu/verify_model.h"
#include "shell/fix_render.h"

namespace cudnnup {

struct VerifyOptions {
  std::string copy;
  std::string version;
  std::string gpu = "0";
  std::string libcuda;
  int timeout_s = 120;
};

struct VerifyRun {
  std::vector<VerifyReport> reports;  // one per GPU tested, never empty
  std::string lib_dir;
  std::string chosen_by;  // "--copy", "--version", "selection", "default"
  std::string reason;     // for people: "cuDNN 9.19.0.56+cuda13 (the global default)"
  int exit_code = 0;      // verify's: 0 passed, 1 a stage failed, 3 no driver/GPU here
  double seconds = 0;
};

// Picks the copy (--copy, --version, the selection, the usual places) and runs every stage. An
// error is a usage or lookup error (no copy); a failed stage is in the run, not an error.
Result<VerifyRun> run_verify_stages(AppContext& ctx, const VerifyOptions& opt);
// The `cudnnup.verify/1` document (docs/commands/verify.md).
nlohmann::json verify_run_to_json(const VerifyRun& run, Shell shell);

}  // namespace cudnnup
