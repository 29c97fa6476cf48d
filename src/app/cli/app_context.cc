#include "app/cli/app_context.h"

#include <nlohmann/json.hpp>
#include <iostream>

#include "app/cli/exit_codes.h"
#include "base/json_text.h"

namespace cudnnup {

int report_error(const AppContext& ctx, const Error& error) {
  int code = error.code == ErrorCode::kConflict ? kExitConflict : kExitUsage;
  if (ctx.options.json) {
    nlohmann::json out;
    out["error"] = {{"code", error_code_name(error.code)}, {"message", error.message}};
    if (!error.path.empty()) out["error"]["path"] = error.path;
    out["exit_code"] = code;
    std::cout << dump_json(out, 2) << std::endl;
  } else {
    std::cerr << "cudnnup: error: " << error.message << std::endl;
  }
  return code;
}

}  // namespace cudnnup
