// `cudnnup init SHELL`: a shell hook that re-applies `cudnnup env` whenever the directory or
// $CUDNNUP_VERSION changes, and after every `cudnnup` command (so `use` takes effect at once),
// the way pyenv's and direnv's hooks work. Installed with `eval "$(cudnnup init bash)"`.
#include <nlohmann/json.hpp>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"
#include "app/cli/terminal_stream.h"
#include "base/json_text.h"
#include "shell/shell_env.h"
#include "shell/shell_quote.h"
#include "platform/process.h"

namespace cudnnup {
namespace {

// `q` is cudnnup's own path, already through the shell's escaper; the rest is fixed text.
std::string bash_or_zsh_hook(const std::string& q, Shell shell) {
  std::string name = shell_name(shell);
  std::string out =
      "# cudnnup hook (" + name + "): re-applies `cudnnup env` when the directory or CUDNNUP_VERSION changes.\n"
      "_cudnnup_hook() {\n"
      "  local key=\"$PWD|${CUDNNUP_VERSION-}\"\n"
      "  [[ \"$key\" == \"${_CUDNNUP_LAST-}\" ]] && return 0\n"
      "  _CUDNNUP_LAST=\"$key\"\n"
      "  local out\n"
      "  out=\"$(command " + q + " env --shell " + name + " --hook)\" && eval \"$out\"\n"
      "}\n"
      "cudnnup() {\n"
      "  command " + q + " \"$@\"\n"
      "  local rc=$?\n"
      "  _CUDNNUP_LAST=\n"
      "  _cudnnup_hook\n"
      "  return $rc\n"
      "}\n";
  if (shell == Shell::kZsh) {
    out += "autoload -Uz add-zsh-hook\nadd-zsh-hook precmd _cudnnup_hook\n";
  } else {
    out +=
        "if [[ \";${PROMPT_COMMAND-};\" != *\";_cudnnup_hook;\"* ]]; then\n"
        "  PROMPT_COMMAND=\"_cudnnup_hook${PROMPT_COMMAND:+;$PROMPT_COMMAND}\"\n"
        "fi\n";
  }
  return out + "_cudnnup_hook\n";
}

std::string fish_hook(const std::string& q) {
  return "# cudnnup hook (fish): re-applies `cudnnup env` when the directory or CUDNNUP_VERSION changes.\n"
         "function __cudnnup_hook --on-variable PWD --on-variable CUDNNUP_VERSION\n"
         "    set -l out (command " + q + " env --shell fish --hook | string collect)\n"
         "    and eval $out\n"
         "end\n"
         "function cudnnup\n"
         "    command " + q + " $argv\n"
         "    set -l rc $status\n"
         "    __cudnnup_hook\n"
         "    return $rc\n"
         "end\n"
         "__cudnnup_hook\n";
}

std::string pwsh_hook(const std::string& q) {
  return "# cudnnup hook (PowerShell): re-applies `cudnnup env` when the directory or CUDNNUP_VERSION changes.\n"
         "$global:__cudnnupLast = $null\n"
         "function global:__cudnnupHook {\n"
         "  $key = \"$PWD|$env:CUDNNUP_VERSION\"\n"
         "  if ($key -eq $global:__cudnnupLast) { return }\n"
         "  $global:__cudnnupLast = $key\n"
         "  $out = & " + q + " env --shell pwsh --hook\n"
         "  if ($LASTEXITCODE -eq 0 -and $out) { Invoke-Expression ($out -join \"`n\") }\n"
         "}\n"
         "$global:__cudnnupPrompt = $function:prompt\n"
         "function global:prompt { __cudnnupHook; & $global:__cudnnupPrompt }\n"
         "function global:cudnnup {\n"
         "  & " + q + " @args\n"
         "  $rc = $LASTEXITCODE\n"
         "  $global:__cudnnupLast = $null\n"
         "  __cudnnupHook\n"
         "  $global:LASTEXITCODE = $rc\n"
         "}\n"
         "__cudnnupHook\n";
}

int run_init(AppContext& ctx, const std::string& shell_text) {
  auto shell = parse_shell(shell_text);
  if (!shell || *shell == Shell::kCmd) {
    return report_error(ctx, make_error(ErrorCode::kUsage,
                                        "cannot hook '" + shell_text + "'; use bash, zsh, fish or pwsh (cmd has no "
                                        "prompt hook: run `cudnnup env --shell cmd` instead)"));
  }
  // cudnnup's own path goes through the shell's escaper like any other foreign text.
  auto exe = shell_quote(*shell, self_executable_path());
  if (!exe) return report_error(ctx, exe.error());
  std::string script;
  switch (*shell) {
    case Shell::kBash:
    case Shell::kZsh: script = bash_or_zsh_hook(*exe, *shell); break;
    case Shell::kFish: script = fish_hook(*exe); break;
    case Shell::kPwsh: script = pwsh_hook(*exe); break;
    case Shell::kCmd: break;
  }
  if (ctx.options.json) {
    nlohmann::ordered_json out = {{"schema", "cudnnup.init/1"}, {"shell", shell_name(*shell)}, {"script", script}};
    std::cout << dump_json(out, 2) << std::endl;
  } else {
    write_raw_stdout(script);  // shell code: its bytes are the escaper's, and must not change
  }
  return kExitOk;
}

}  // namespace

void add_init_command(CLI::App& app, CommandAction& action) {
  static std::string shell;
  auto* cmd = app.add_subcommand("init", "Print a shell hook that keeps the environment on the selected cuDNN");
  cmd->footer(
      "Add one line to your shell's startup file:\n"
      "  bash (~/.bashrc):  eval \"$(cudnnup init bash)\"\n"
      "  zsh  (~/.zshrc):   eval \"$(cudnnup init zsh)\"\n"
      "  fish (config.fish): cudnnup init fish | source\n"
      "  pwsh ($PROFILE):   cudnnup init pwsh | Out-String | Invoke-Expression\n"
      "The hook runs `cudnnup env` when you change directory or CUDNNUP_VERSION, and after each\n"
      "`cudnnup` command.\n"
      "Exit codes: 0 printed; 2 unknown shell.\n"
      "Example:\n  eval \"$(cudnnup init bash)\"");
  cmd->add_option("SHELL", shell, "bash, zsh, fish or pwsh")
      ->check(CLI::IsMember(std::vector<std::string>{"bash", "zsh", "fish", "pwsh"}))
      ->required();
  cmd->callback([&action] { action = [](AppContext& ctx) { return run_init(ctx, shell); }; });
}

}  // namespace cudnnup
