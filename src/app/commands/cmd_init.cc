// `cudnnup init SHELL`: a shell hook that re-applies `cudnnup env` whenever the directory or
// $CUDNNUP_VERSION changes, and after every `cudnnup` command (so `use` takes effect at once),
// and puts the user's own values back where no version applies, the way pyenv's and direnv's
// hooks work. Installed with `eval "$(cudnnup init bash)"`.
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

// How the bash, zsh and fish hooks keep the user's own values (docs/commands/versions.md, "Shell
// integration"). Before the hook first changes the variables `cudnnup env` sets, it copies each
// into _CUDNNUP_SAVED_<NAME>, or leaves that unset when the variable was unset (so "unset" and
// "empty", which differ to glibc, come back as they were), and sets _CUDNNUP_SAVED=1. It starts
// every `cudnnup env --hook` from those saved values, not from its own earlier changes. When no
// version applies (env --hook prints nothing) it puts them back and forgets them. A variable the
// user changed by hand since the hook set it (_CUDNNUP_SET_<NAME> keeps what was set) is taken as
// the user's new own value at the next run.

// One line per variable: copy `from` into `to`, or unset `to` when `from` is unset (bash, zsh).
std::string posix_copy(const std::string& from, const std::string& to, bool export_to) {
  return "  if [[ -n \"${" + from + "+x}\" ]]; then " + (export_to ? "export " : "") + to + "=\"$" + from + "\"; else unset " +
         to + "; fi\n";
}

std::string bash_or_zsh_state_functions(const std::vector<std::string>& vars) {
  std::string originals, save, adopt, mark, forget = "_CUDNNUP_SAVED _CUDNNUP_ACTIVE";
  for (const auto& v : vars) {
    originals += posix_copy("_CUDNNUP_SAVED_" + v, v, /*export_to=*/true);
    save += posix_copy(v, "_CUDNNUP_SAVED_" + v, false);
    adopt += "  [[ \"${" + v + "+x}${" + v + "-}\" == \"${_CUDNNUP_SET_" + v + "+x}${_CUDNNUP_SET_" + v + "-}\" ]] ||\n  " +
             posix_copy(v, "_CUDNNUP_SAVED_" + v, false);
    mark += posix_copy(v, "_CUDNNUP_SET_" + v, false);
    forget += " _CUDNNUP_SAVED_" + v + " _CUDNNUP_SET_" + v;
  }
  return "_cudnnup_originals() {  # your own values back (in $(...) only: for cudnnup to start from)\n"
         "  [[ -n \"${_CUDNNUP_SAVED-}\" ]] || return 0\n" + originals + "  return 0\n}\n"
         "_cudnnup_restore() {  # your own values back for good, and forgotten\n"
         "  _cudnnup_originals\n  unset " + forget + "\n  return 0\n}\n"
         "_cudnnup_save() {  # before the first change: your own values, unset kept as unset\n"
         "  [[ -n \"${_CUDNNUP_SAVED-}\" ]] && return 0\n  _CUDNNUP_SAVED=1\n" + save + "  return 0\n}\n"
         "_cudnnup_adopt() {  # a variable you changed by hand since the hook set it is your own value now\n"
         "  [[ -n \"${_CUDNNUP_SAVED-}\" ]] || return 0\n" + adopt + "  return 0\n}\n"
         "_cudnnup_mark() {  # what the hook set, to see hand changes by\n" + mark + "  return 0\n}\n";
}

// `q` is cudnnup's own path, already through the shell's escaper; the rest is fixed text.
std::string bash_or_zsh_hook(const std::string& q, Shell shell, const std::vector<std::string>& vars) {
  std::string name = shell_name(shell);
  std::string out =
      "# cudnnup hook (" + name + "): applies the selected cuDNN (`cudnnup env`) when the directory or\n"
      "# CUDNNUP_VERSION changes, and puts your own values back where no version applies.\n" +
      bash_or_zsh_state_functions(vars) +
      "_cudnnup_hook() {\n"
      "  local key=\"$PWD|${CUDNNUP_VERSION-}\"\n"
      "  [[ \"$key\" == \"${_CUDNNUP_LAST-}\" ]] && return 0\n"
      "  _CUDNNUP_LAST=\"$key\"\n"
      "  _cudnnup_adopt\n"
      "  local out\n"
      "  out=\"$(_cudnnup_originals; command " + q + " env --shell " + name + " --hook --previous \"${_CUDNNUP_ACTIVE-}\")\" ||\n"
      "    return 0\n"
      "  if [[ -n \"$out\" ]]; then\n"
      "    _cudnnup_save\n"
      "    eval \"$out\"\n"
      "    _cudnnup_mark\n"
      "  else\n"
      "    _cudnnup_restore\n"
      "  fi\n"
      "  return 0\n"
      "}\n"
      "cudnnup() {\n"
      "  command " + q + " \"$@\"\n"
      "  local rc=$?\n"
      "  _CUDNNUP_LAST=\n"
      "  _cudnnup_hook\n"
      "  return $rc\n"
      "}\n";
  if (shell == Shell::kZsh) {
    // chpwd runs on every directory change, in scripts too; precmd catches CUDNNUP_VERSION.
    out += "autoload -Uz add-zsh-hook\nadd-zsh-hook chpwd _cudnnup_hook\nadd-zsh-hook precmd _cudnnup_hook\n";
  } else {
    out +=
        "if [[ \";${PROMPT_COMMAND-};\" != *\";_cudnnup_hook;\"* ]]; then\n"
        "  PROMPT_COMMAND=\"_cudnnup_hook${PROMPT_COMMAND:+;$PROMPT_COMMAND}\"\n"
        "fi\n";
  }
  return out + "_cudnnup_hook\n";
}

std::string fish_hook(const std::string& q, const std::vector<std::string>& vars) {
  std::string names;
  for (const auto& v : vars) names += " " + v;
  return "# cudnnup hook (fish): applies the selected cuDNN (`cudnnup env`) when the directory or\n"
         "# CUDNNUP_VERSION changes, and puts your own values back where no version applies.\n"
         "function __cudnnup_copy --argument-names from to  # `to` as `from` reads, or unset like it\n"
         "    if set -q $from\n"
         "        set -g $to \"$$from\"\n"
         "    else\n"
         "        set -e -g $to\n"
         "    end\n"
         "end\n"
         "function __cudnnup_same --argument-names a b  # both unset, or both set to the same text\n"
         "    if set -q $a\n"
         "        set -q $b; and test \"$$a\" = \"$$b\"\n"
         "    else\n"
         "        not set -q $b\n"
         "    end\n"
         "end\n"
         "function __cudnnup_env  # `cudnnup env --hook`, started from your own values\n"
         "    set -l unset\n"
         "    set -l own\n"
         "    if set -q _CUDNNUP_SAVED\n"
         "        for v in" + names + "\n"
         "            set -l saved _CUDNNUP_SAVED_$v\n"
         "            if set -q $saved\n"
         "                set -a own \"$v=$$saved\"\n"
         "            else\n"
         "                set -a unset -u $v\n"
         "            end\n"
         "        end\n"
         "    end\n"
         "    command env $unset $own " + q + " env --shell fish --hook --previous \"$_CUDNNUP_ACTIVE\"\n"
         "end\n"
         "function __cudnnup_restore  # your own values back for good, and forgotten\n"
         "    set -q _CUDNNUP_SAVED; or return 0\n"
         "    for v in" + names + "\n"
         "        set -l saved _CUDNNUP_SAVED_$v\n"
         "        if set -q $saved\n"
         "            set -gx $v $$saved\n"
         "        else\n"
         "            set -e -g $v\n"
         "        end\n"
         "        set -e -g $saved _CUDNNUP_SET_$v\n"
         "    end\n"
         "    set -e -g _CUDNNUP_SAVED _CUDNNUP_ACTIVE\n"
         "end\n"
         "function __cudnnup_hook --on-variable PWD --on-variable CUDNNUP_VERSION\n"
         "    if set -q _CUDNNUP_SAVED  # a variable you changed by hand since the hook set it is your own now\n"
         "        for v in" + names + "\n"
         "            __cudnnup_same $v _CUDNNUP_SET_$v; or __cudnnup_copy $v _CUDNNUP_SAVED_$v\n"
         "        end\n"
         "    end\n"
         "    set -l out (__cudnnup_env)\n"
         "    or return 0\n"
         "    if test (count $out) -eq 0\n"
         "        __cudnnup_restore\n"
         "        return 0\n"
         "    end\n"
         "    if not set -q _CUDNNUP_SAVED\n"
         "        set -g _CUDNNUP_SAVED 1\n"
         "        for v in" + names + "\n"
         "            __cudnnup_copy $v _CUDNNUP_SAVED_$v\n"
         "        end\n"
         "    end\n"
         "    string join \\n -- $out | source\n"
         "    for v in" + names + "\n"
         "        __cudnnup_copy $v _CUDNNUP_SET_$v\n"
         "    end\n"
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
  std::vector<std::string> vars = environment_variable_names(ctx.env.windows());
  std::string script;
  switch (*shell) {
    case Shell::kBash:
    case Shell::kZsh: script = bash_or_zsh_hook(*exe, *shell, vars); break;
    case Shell::kFish: script = fish_hook(*exe, vars); break;
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
      "`cudnnup` command. bash, zsh and fish: it saves your own LD_LIBRARY_PATH, LIBRARY_PATH, CPATH,\n"
      "CUDNN_PATH and CUDNN_HOME first and puts them back exactly where no version applies (outside\n"
      "pinned directories without a global default, after `cudnnup use system` or `cudnnup use --unset`),\n"
      "and says each change in one line on stderr; `export CUDNNUP_HOOK_QUIET=1` silences it.\n"
      "bash runs the hook at the prompt only: a script that cd's gets nothing from it; run the script\n"
      "with `cudnnup exec` instead (zsh and fish run it on every cd).\n"
      "Exit codes: 0 printed; 2 unknown shell.\n"
      "Examples:\n  eval \"$(cudnnup init bash)\"\n  cudnnup exec ./train.sh");
  cmd->add_option("SHELL", shell, "bash, zsh, fish or pwsh")
      ->check(CLI::IsMember(std::vector<std::string>{"bash", "zsh", "fish", "pwsh"}))
      ->required();
  cmd->callback([&action] { action = [](AppContext& ctx) { return run_init(ctx, shell); }; });
}

}  // namespace cudnnup
