#include "app/cli/app_context.h"

#include <nlohmann/json.hpp>
#include <iostream>

#include "app/cli/exit_codes.h"
#include "base/fix.h"
#include "base/json_text.h"
#include "base/terminal_text.h"
#include "platform/process_tree.h"
#include "shell/fix_render.h"

namespace cudnnup {

const UserShell& user_shell(const AppContext& ctx) {
  if (ctx.named_shell) return *ctx.named_shell;
  // Deep enough for shell -> sudo -> cudnnup, shell -> python -> make -> cudnnup and the like.
  if (!ctx.guessed_shell) ctx.guessed_shell = guessed_user_shell(ctx.env, ancestor_program_names(6));
  return *ctx.guessed_shell;
}

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
    if (!error.fix.empty()) {
      nlohmann::ordered_json steps = nlohmann::ordered_json::array();
      for (const auto& s : error.fix) steps.push_back(nlohmann::ordered_json(fix_step_to_json(s)));
      out["error"]["fix"] = render_fix(error.fix, fix_shell(ctx));
      out["error"]["fix_shell"] = shell_name(fix_shell(ctx));
      out["error"]["fix_commands"] = fix_commands(error.fix);
      out["error"]["fix_steps"] = steps;
    }
    out["exit_code"] = exit_code;
    std::cout << dump_json(out, 2) << std::endl;
  } else {
    // Usage errors come before main() installs the terminal filter: escape here too.
    std::cerr << "cudnnup: error: " << terminal_safe(error.message, /*keep_newlines=*/true) << std::endl;
    for (const auto& line : render_fix(error.fix, fix_shell(ctx))) std::cerr << "  " << line << std::endl;
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
