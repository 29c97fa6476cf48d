#include "app/cli/cli_definition.h"

#include <algorithm>

#include "app/cli/output_format.h"
#include "base/strings.h"
#include "child/protocol.h"

namespace cudnnup {

const char* const kProgramHelp =
    "cudnnup — install, switch, diagnose and verify NVIDIA cuDNN.\n\n"
    "Start with `cudnnup doctor`: it lists the driver, every CUDA toolkit and every cuDNN copy on\n"
    "this machine and says what is wrong and how to fix it. `cudnnup COMMAND --help` tells more.\n"
    "Exit codes: 0 ok, 1 problems found, 2 usage or tool error, 3 no NVIDIA driver/GPU, 4 locked or\n"
    "conflicting; `exec` also 126/127 like a shell (docs/exit-codes.md).";

namespace {

constexpr const char* kGlobalGroup = "Global options";

void add_global_options(CLI::App* cmd, GlobalArgs& a) {
  cmd->add_option("--format", a.format, output_format_help())
      ->check(CLI::IsMember(output_format_names()))
      ->type_name("FORMAT")
      ->group(kGlobalGroup);
  cmd->add_flag("--json", a.json, "Same as --format json")->group(kGlobalGroup);
  cmd->add_option("--color", a.color,
                  "Colour: auto (on a terminal, unless NO_COLOR is set and not empty, or TERM=dumb), always, never")
      ->check(CLI::IsMember(color_choice_names()))
      ->type_name("WHEN")
      ->group(kGlobalGroup);
  cmd->add_flag("--no-color", a.no_color, "Same as --color never")->group(kGlobalGroup);
  cmd->add_flag("-q,--quiet", a.quiet, "Print less: only problems (`list`: only the version ids)")->group(kGlobalGroup);
  cmd->add_option("--db", a.db_path, "Use this rules file instead of the built-in one (data/rules.json format)")
      ->type_name("FILE")
      ->group(kGlobalGroup);
  // `env --shell` is env's own option with the same meaning: it stays env's.
  if (!cmd->get_option_no_throw("--shell")) {
    cmd->add_option("--shell", a.shell,
                    "Write the commands cudnnup prints (fixes, undo lines) for this shell: bash, zsh, fish, pwsh, cmd "
                    "(default: $CUDNNUP_SHELL, else the shell cudnnup was started from)")
        ->check(CLI::IsMember(std::vector<std::string>{"bash", "zsh", "fish", "pwsh", "powershell", "cmd"}))
        ->type_name("SHELL")
        ->group(kGlobalGroup);
  }
}

void add_global_options_below(CLI::App* app, GlobalArgs& a) {
  for (CLI::App* sub : app->get_subcommands([](CLI::App* s) { return !s->get_group().empty(); })) {
    add_global_options(sub, a);
    add_global_options_below(sub, a);
  }
}

// Every top-level command, in `cudnnup --help` order, by the name its add_*_command gives it
// (tests/unit/app/cli_definition_test.cc checks that each adds exactly that one).
struct CommandEntry {
  const char* name;
  void (*add)(CLI::App&, CommandAction&);
};
constexpr CommandEntry kCommands[] = {
    {"doctor", add_doctor_command},
    {"explain", add_explain_command},
    {kChildEntryPoint, add_child_command},
    {"which", add_which_command},
    {"list", add_list_command},
    {"use", add_use_command},
    {"current", add_current_command},
    {"env", add_env_command},
    {"exec", add_exec_command},
    {"init", add_init_command},
    {"link", add_link_command},
    {"archive-info", add_archive_info_command},
    {"install", add_install_command},
    {"uninstall", add_uninstall_command},
    {"cache", add_cache_command},
    {"lock", add_lock_command},
    {"check", add_check_command},
    {"verify", add_verify_command},
    {"bench", add_bench_command},
    {"fleet", add_fleet_command},
    {"completions", add_completions_command},
};

}  // namespace

std::string named_command(const std::vector<std::string>& words, const CLI::App& app) {
  // The global options that take a value, as the definition says: their value is not a command's
  // name ("--format json doctor"; "--format=json" is one word).
  auto takes_value = [&app](const std::string& option) {
    const CLI::Option* o = app.get_option_no_throw(option);
    return o && o->get_items_expected_max() > 0;
  };
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "--") return "";
    if (!w.starts_with("-")) return w;
    if (takes_value(w)) ++i;
  }
  return "";
}

void define_cli(CLI::App& app, GlobalArgs& args, CommandAction& action, const std::vector<std::string>* words) {
  // CLI11 turns on "/option" parsing on Windows, which would read a path like "/tmp/x" or
  // "//server/share" as an option; cudnnup paths use '/' everywhere, so keep it off.
  app.allow_windows_style_options(false);
  app.require_subcommand(0, 1);  // none only with --version; main() says what to do otherwise
  app.add_flag("--version", args.version, "Print the version, the commit it was built from and the data versions");
  add_global_options(&app, args);

  // Only the command the words name is defined: the other twenty were half the instructions of a
  // start that only parses (CLI11 builds every option, validator and help string at run time;
  // callgrind of `cudnnup doctor --bogus`: 2.2 M -> 1.1 M), and a command line that
  // names one command never reaches another (require_subcommand(0, 1) above). A word that names
  // no command (a typo: "did you mean" needs every name), `completions` (it prints every command)
  // and no words at all get the whole definition.
  std::string named = words ? named_command(*words, app) : "";
  const CommandEntry* only = nullptr;
  for (const CommandEntry& c : kCommands) {
    if (named == c.name && named != "completions") only = &c;
  }
  for (const CommandEntry& c : kCommands) {
    if (!only || only == &c) c.add(app, action);
  }
  add_global_options_below(&app, args);
}

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const CommandEntry& c : kCommands) names.push_back(c.name);
  return names;
}

Result<GlobalOptions> resolve_global_options(const GlobalArgs& args, const CLI::App* command) {
  GlobalOptions o;
  std::string format = args.format.empty() ? (args.json ? "json" : "text") : args.format;
  if (args.json && format != "json") {
    return make_error(ErrorCode::kUsage, "--json and --format " + format + " disagree; give one of them");
  }
  for (const auto& f : output_formats()) {
    if (format == f.name) o.format = f.format;
  }
  if (command) {
    auto offered = offered_formats(command_path(command));
    if (std::find(offered.begin(), offered.end(), o.format) == offered.end()) {
      std::vector<std::string> names;
      for (auto f : offered) names.push_back(output_format_name(f));
      return make_error(ErrorCode::kUsage,
                        "`cudnnup " + command_path(command) + "` prints " + join(names, ", ") + ", not " + format);
    }
  }
  o.json = o.format == OutputFormat::kJson;
  if (args.no_color && (args.color == "always" || args.color == "auto")) {
    return make_error(ErrorCode::kUsage, "--no-color and --color " + args.color + " disagree; give one of them");
  }
  o.color = args.no_color || args.color == "never" ? ColorChoice::kNever
            : args.color == "always"               ? ColorChoice::kAlways
                                                   : ColorChoice::kAuto;
  o.quiet = args.quiet;
  o.db_path = args.db_path;
  o.shell = args.shell;
  return o;
}

const CLI::App* chosen_command(const CLI::App& app) {
  const CLI::App* at = nullptr;
  for (const CLI::App* sub = &app;;) {
    auto chosen = sub->get_subcommands();
    if (chosen.empty()) break;
    at = sub = chosen.front();
  }
  return at;
}

std::string command_path(const CLI::App* command) {
  std::string path;
  for (const CLI::App* c = command; c && c->get_parent(); c = c->get_parent()) {
    path = c->get_name() + (path.empty() ? "" : " " + path);
  }
  return path;
}

}  // namespace cudnnup
