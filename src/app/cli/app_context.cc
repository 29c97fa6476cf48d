#include "app/cli/app_context.h"

#include <nlohmann/json.hpp>
#include <iostream>

#include "app/cli/exit_codes.h"
#include "base/json_text.h"
#include "base/terminal_text.h"

namespace cudnnup {

int exit_code_for(const Error& error) { return error.code == ErrorCode::kConflict ? kExitConflict : kExitUsage; }

int report_error(const AppContext& ctx, const Error& error) { return report_error(ctx, error, exit_code_for(error)); }

int report_error(const AppContext& ctx, const Error& error, int exit_code, const std::vector<std::string>& suggestions,
                 const std::vector<std::string>& notes) {
  if (ctx.options.json) {
    nlohmann::ordered_json out;
    out["schema"] = "cudnnup.error/1";
    out["command"] = ctx.command.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(ctx.command);
    out["error"] = {{"code", error_code_name(error.code)}, {"message", error.message}};
    if (!error.path.empty()) out["error"]["path"] = error.path;
    if (!suggestions.empty()) out["error"]["did_you_mean"] = suggestions;
    if (!notes.empty()) out["error"]["notes"] = notes;
    out["exit_code"] = exit_code;
    std::cout << dump_json(out, 2) << std::endl;
  } else {
    // Usage errors come before main() installs the terminal filter: escape here too.
    std::cerr << "cudnnup: error: " << terminal_safe(error.message, /*keep_newlines=*/true) << std::endl;
    if (!suggestions.empty()) {
      std::cerr << "Did you mean";
      for (size_t i = 0; i < suggestions.size(); ++i) {
        std::cerr << (i == 0 ? " " : i + 1 == suggestions.size() ? " or " : ", ") << "`" << suggestions[i] << "`";
      }
      std::cerr << "?" << std::endl;
    }
  }
  return exit_code;
}

}  // namespace cudnnup
