// `cudnnup completions bash|zsh|fish|powershell`: a completion script generated from the command
// line's definition (app/cli/cli_model.h), so it knows every command, option and choice.
#include <nlohmann/json.hpp>
#include <iostream>

#include "base/json_text.h"
#include "app/cli/cli_model.h"
#include "app/cli/commands.h"
#include "app/cli/completion_scripts.h"
#include "app/cli/exit_codes.h"

namespace cudnnup {

void add_completions_command(CLI::App& app, CommandAction& action) {
  static std::string shell;
  auto names = completion_shell_names();
  names.push_back("pwsh");
  auto* cmd = app.add_subcommand("completions", "Print a shell completion script for cudnnup's commands and options");
  cmd->footer(
      "Install it once:\n"
      "  bash:  cudnnup completions bash > ~/.local/share/bash-completion/completions/cudnnup\n"
      "  zsh:   cudnnup completions zsh > ~/.zfunc/_cudnnup   (with fpath+=(~/.zfunc) before compinit)\n"
      "  fish:  cudnnup completions fish > ~/.config/fish/completions/cudnnup.fish\n"
      "  PowerShell: add `cudnnup completions powershell | Out-String | Invoke-Expression` to $PROFILE\n"
      "Exit codes: 0 printed; 2 unknown shell.\n"
      "Example:\n  source <(cudnnup completions bash)");
  cmd->add_option("SHELL", shell, "bash, zsh, fish or powershell (pwsh)")->check(CLI::IsMember(names))->required();
  const CLI::App* root = &app;
  cmd->callback([&action, root] {
    action = [root](AppContext& ctx) {
      auto which = parse_completion_shell(shell);
      if (!which) return report_error(ctx, make_error(ErrorCode::kUsage, "unknown shell '" + shell + "'"));
      std::string script = completion_script(describe_cli(*root), *which, "cudnnup");
      if (ctx.options.json) {
        nlohmann::ordered_json out = {{"schema", "cudnnup.completions/1"}, {"shell", shell}, {"script", script}};
        std::cout << dump_json(out, 2) << std::endl;
      } else {
        std::cout << script;
      }
      return int(kExitOk);
    };
  });
}

}  // namespace cudnnup
