// The command line as defined (app/cli/cli_definition.cc), read back through CLI11's App tree:
// every command's --help teaches, global options are everywhere, usage errors say what was
// meant, the colour and format decisions, and the completion generator on a fixed toy CLI
// (its PowerShell output is compared with a golden file: PowerShell is not in Debian, so it
// cannot be driven for real here; bash, zsh and fish are, in tests/cli/completions_posix_test.cc).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "app/cli/cli_definition.h"
#include "app/cli/cli_model.h"
#include "app/cli/completion_scripts.h"
#include "app/cli/output_format.h"
#include "app/cli/suggest.h"
#include "app/cli/usage_errors.h"
#include "base/strings.h"
#include "child/protocol.h"

namespace cudnnup {
namespace {

struct Cli {
  CLI::App app{kProgramHelp, "cudnnup"};
  GlobalArgs global;
  CommandAction action;
  Cli() { define_cli(app, global, action); }
};

TEST(Suggest, ClosestCommandsAndOptions) {
  std::vector<std::string> commands = {"doctor", "which", "list", "use", "install", "uninstall", "explain"};
  EXPECT_EQ(suggest("doctr", commands), std::vector<std::string>{"doctor"});
  EXPECT_EQ(suggest("dcotor", commands), std::vector<std::string>{"doctor"});  // two letters swapped
  EXPECT_EQ(suggest("instal", commands), std::vector<std::string>{"install"});
  EXPECT_EQ(suggest("unistall", commands).front(), "uninstall") << "the closest first";
  EXPECT_TRUE(suggest("frobnicate", commands).empty());
  EXPECT_EQ(suggest("--jsn", {"--json", "--no-color", "--db"}), std::vector<std::string>{"--json"});
  EXPECT_EQ(suggest("--probe", {"--probe-frameworks", "--probe-timeout", "--deep"}),
            (std::vector<std::string>{"--probe-frameworks", "--probe-timeout"}));
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(CliDefinition, NamedCommandSkipsOptionsAndGlobalValues) {
  using W = std::vector<std::string>;
  Cli cli;
  auto named_command = [&cli](const W& words) { return cudnnup::named_command(words, cli.app); };
  EXPECT_EQ(named_command(W{"doctor", "--json"}), "doctor");
  EXPECT_EQ(named_command(W{"--format", "json", "doctor"}), "doctor") << "json is --format's value";
  EXPECT_EQ(named_command(W{"--db", "doctor", "which"}), "which") << "a file named doctor given to --db";
  EXPECT_EQ(named_command(W{"--shell", "zsh", "doctor"}), "doctor") << "zsh is --shell's value";
  EXPECT_EQ(named_command(W{"--format=json", "-q", "cache", "clean"}), "cache");
  EXPECT_EQ(named_command(W{"--version"}), "");
  EXPECT_EQ(named_command(W{"--", "doctor"}), "");
  EXPECT_EQ(named_command(W{}), "");
  EXPECT_EQ(named_command(W{"--color", "never", "-q", "which"}), "which") << "--color takes a value, -q does not";
}

// The table define_cli picks from names what each add_*_command adds: given a command's name,
// the definition holds that command alone; given nothing, every command in the table's order.
TEST(CliDefinition, TheCommandTableNamesWhatEachCommandAdds) {
  Cli whole;
  std::vector<std::string> defined;
  for (const CLI::App* sub : whole.app.get_subcommands([](CLI::App*) { return true; })) defined.push_back(sub->get_name());
  EXPECT_EQ(defined, command_names());
  for (const std::string& name : command_names()) {
    CLI::App app{kProgramHelp, "cudnnup"};
    GlobalArgs global;
    CommandAction action;
    std::vector<std::string> words = {"--color", "never", name, "--json"};
    define_cli(app, global, action, &words);
    auto subs = app.get_subcommands([](CLI::App*) { return true; });
    if (name == "completions") {
      EXPECT_EQ(subs.size(), defined.size()) << "completions prints every command, so it gets them all";
      continue;
    }
    ASSERT_EQ(subs.size(), 1u) << name;
    EXPECT_EQ(subs.front()->get_name(), name);
    EXPECT_EQ(name == kChildEntryPoint, subs.front()->get_option_no_throw("--json") == nullptr)
        << name << ": global options below every visible command";
  }
  // A word that names no command gets the whole definition: "did you mean" needs every name.
  CLI::App app{kProgramHelp, "cudnnup"};
  GlobalArgs global;
  CommandAction action;
  std::vector<std::string> words = {"doctr"};
  define_cli(app, global, action, &words);
  EXPECT_EQ(app.get_subcommands([](CLI::App*) { return true; }).size(), defined.size());
}

// What a command line does with one definition: the help it prints, the usage error (as main()
// reports it, with its suggestions), or the command it chose.
std::string parse_outcome(const std::vector<std::string>& words, bool only_named) {
  CLI::App app{kProgramHelp, "cudnnup"};
  GlobalArgs global;
  CommandAction action;
  define_cli(app, global, action, only_named ? &words : nullptr);
  std::vector<std::string> args = {"cudnnup"};
  args.insert(args.end(), words.begin(), words.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::Success& e) {
    std::ostringstream out, err;
    int rc = app.exit(e, out, err);
    return "help " + std::to_string(rc) + "\n" + out.str() + err.str();
  } catch (const CLI::ParseError& e) {
    UsageProblem p = explain_parse_error(app, words, e);
    return "usage error in '" + p.command + "': " + p.error.message + "\nsuggested: " + join(p.suggestions, " | ");
  }
  const CLI::App* chosen = chosen_command(app);
  return "chose '" + command_path(chosen) + "'" + (action ? " with an action" : "") +
         (chosen && !action ? "; " + missing_command(*chosen).error.message : "");
}

// Defining only the named command changes nothing a user can see: for every command, its help,
// its typos, unknown and global options, stray words and every other command's name after it give
// the same help, error, suggestions and choice as the whole definition.
TEST(CliDefinition, OnlyTheNamedCommandBehavesAsTheWholeDefinition) {
  const std::vector<std::string> names = command_names();
  size_t compared = 0;
  for (const std::string& name : names) {
    if (name == "completions") continue;
    std::vector<std::vector<std::string>> lines = {
        {name},           {name, "--help"},   {name, "-h"},           {name, "--bogus"},
        {name, "--jsn"},  {name, "--json"},   {"--json", name},       {"--format", "json", name, "--quiet"},
        {name, "frobnicate"}, {name, "a", "b", "c"}, {name, "--format", "yaml"}, {name, "--", "x"},
        {name, "--db"},   {name, "--color"},  {name, "--json", "--format", "text"}, {name, "-qz"},
    };
    for (const std::string& other : names) lines.push_back({name, other});
    if (name == "cache") {
      for (auto tail : {"clean", "clen", "--help"}) lines.push_back({"cache", tail, "--help"});
      lines.push_back({"cache", "clean", "--bogus"});
    }
    for (const auto& words : lines) {
      SCOPED_TRACE(join(words, " "));
      EXPECT_EQ(parse_outcome(words, true), parse_outcome(words, false));
      ++compared;
    }
  }
  EXPECT_GT(compared, 700u);
}

TEST(Color, NoColorOrgRulesTermDumbAndTheOption) {
  std::optional<std::string> unset, empty = "", one = "1", dumb = "dumb", xterm = "xterm-256color";
  auto text = OutputFormat::kText;
  EXPECT_TRUE(use_color(ColorChoice::kAuto, text, unset, xterm, true));
  EXPECT_FALSE(use_color(ColorChoice::kAuto, text, unset, xterm, false)) << "piped: plain";
  EXPECT_TRUE(use_color(ColorChoice::kAuto, text, empty, xterm, true)) << "NO_COLOR= (empty) does not count";
  EXPECT_FALSE(use_color(ColorChoice::kAuto, text, one, xterm, true));
  EXPECT_FALSE(use_color(ColorChoice::kAuto, text, unset, dumb, true));
  EXPECT_TRUE(use_color(ColorChoice::kAuto, text, unset, unset, true)) << "no TERM at all is not dumb";
  EXPECT_TRUE(use_color(ColorChoice::kAlways, text, one, dumb, false)) << "the option wins over the environment";
  EXPECT_FALSE(use_color(ColorChoice::kNever, text, unset, xterm, true));
  EXPECT_FALSE(use_color(ColorChoice::kAlways, OutputFormat::kJson, unset, xterm, true)) << "JSON is never coloured";
}

TEST(GlobalOptions, FormatJsonAliasAndColourChoices) {
  GlobalArgs a;
  EXPECT_EQ(resolve_global_options(a, nullptr)->format, OutputFormat::kText);
  a.json = true;
  EXPECT_TRUE(resolve_global_options(a, nullptr)->json);
  a.format = "text";
  EXPECT_FALSE(resolve_global_options(a, nullptr).ok()) << "--json with --format text";
  a = GlobalArgs{};
  a.format = "json";
  EXPECT_EQ(resolve_global_options(a, nullptr)->format, OutputFormat::kJson);
  a = GlobalArgs{};
  a.no_color = true;
  EXPECT_EQ(resolve_global_options(a, nullptr)->color, ColorChoice::kNever);
  a.color = "always";
  EXPECT_FALSE(resolve_global_options(a, nullptr).ok());
  a = GlobalArgs{};
  a.color = "always";
  EXPECT_EQ(resolve_global_options(a, nullptr)->color, ColorChoice::kAlways);
}

TEST(GlobalOptions, AFormatACommandDoesNotOfferIsAUsageError) {
  CLI::App app{"demo"};
  auto* only_text = app.add_subcommand("only-text", "prints text");
  offer_formats("only-text", {OutputFormat::kText});
  GlobalArgs a;
  a.format = "json";
  auto r = resolve_global_options(a, only_text);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("prints text, not json"), std::string::npos) << r.error().message;
}

TEST(CliDefinition, EveryCommandsHelpTeachesItsPurposeOptionsExamplesAndExitCodes) {
  Cli cli;
  CommandSpec spec = describe_cli(cli.app);
  ASSERT_GE(spec.commands.size(), 15u);
  for (const CommandSpec* c : all_commands(spec)) {
    if (c->path.empty()) continue;
    SCOPED_TRACE(c->path);
    const CLI::App* app = &cli.app;
    std::istringstream words(c->path);
    for (std::string w; words >> w;) app = app->get_subcommand(w);
    std::string help = app->help();
    EXPECT_FALSE(c->help.empty()) << "a one-line purpose";
    EXPECT_NE(help.find("Exit codes"), std::string::npos) << help;
    EXPECT_NE(help.find("Example"), std::string::npos) << help;
    for (const char* global : {"--json", "--format", "--color", "--no-color", "--quiet", "Global options"}) {
      EXPECT_NE(help.find(global), std::string::npos) << global << " missing from\n" << help;
    }
  }
  EXPECT_NE(cli.app.help().find("Exit codes"), std::string::npos);
}

TEST(CliDefinition, HiddenChildCommandsStayOutOfTheModel) {
  Cli cli;
  CommandSpec spec = describe_cli(cli.app);
  for (const CommandSpec* c : all_commands(spec)) {
    EXPECT_NE(c->name.rfind("__", 0), 0u) << c->path;
  }
}

UsageProblem parse_failure(Cli& cli, std::vector<std::string> args) {
  std::vector<std::string> argv = {"cudnnup"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> ptrs;
  for (auto& a : argv) ptrs.push_back(a.data());
  try {
    cli.app.parse(int(ptrs.size()), ptrs.data());
  } catch (const CLI::ParseError& e) {
    return explain_parse_error(cli.app, args, e);
  }
  ADD_FAILURE() << "parsed without an error";
  return {};
}

TEST(UsageErrors, UnknownCommandsAndOptionsNameWhatWasMeant) {
  {
    Cli cli;
    auto p = parse_failure(cli, {"doctr"});
    EXPECT_NE(p.error.message.find("no command 'doctr'"), std::string::npos) << p.error.message;
    EXPECT_EQ(p.suggestions, std::vector<std::string>{"cudnnup doctor"});
  }
  {
    Cli cli;
    auto p = parse_failure(cli, {"doctor", "--jsn"});
    EXPECT_NE(p.error.message.find("`cudnnup doctor` has no option --jsn"), std::string::npos) << p.error.message;
    EXPECT_EQ(p.suggestions, std::vector<std::string>{"--json"});
    EXPECT_EQ(p.command, "doctor");
  }
  {
    Cli cli;
    auto p = parse_failure(cli, {"cache", "cleen"});
    EXPECT_EQ(p.suggestions, std::vector<std::string>{"cudnnup cache clean"});
  }
  {
    Cli cli;  // an option's value is not taken for a command
    auto p = parse_failure(cli, {"--db", "rules.json", "doctr"});
    EXPECT_EQ(p.suggestions, std::vector<std::string>{"cudnnup doctor"});
  }
  EXPECT_TRUE(json_requested({"doctr", "--json"}));
  EXPECT_TRUE(json_requested({"--format", "json", "doctr"}));
  EXPECT_TRUE(json_requested({"--format=json"}));
  EXPECT_FALSE(json_requested({"exec", "--", "tool", "--json"}));
}

// A small CLI with every kind of thing the generator handles, so the golden file changes only
// when the generator does.
struct ToyCli {
  CLI::App app{"demo tool", "demo"};
  std::string s, shell, file, dir;
  std::vector<std::string> rest;
  bool flag = false;
  ToyCli() {
    app.add_flag("-q,--quiet", flag, "Say less");
    app.add_option("--format", s, "Output format")->check(CLI::IsMember(std::vector<std::string>{"text", "json"}));
    auto* greet = app.add_subcommand("greet", "Say hello to someone's file");
    greet->add_option("--shell", shell, "Which shell")->check(CLI::IsMember(std::vector<std::string>{"bash", "zsh"}));
    greet->add_option("FILE", file, "A file")->type_name("FILE");
    greet->add_option("--into", dir, "A folder [default: here]")->type_name("DIR");
    auto* run = app.add_subcommand("run", "Run a command");
    run->add_option("COMMAND", rest, "The command")->type_name("COMMAND");
    run->positionals_at_end();
    auto* cache = app.add_subcommand("cache", "Manage the cache");
    cache->add_subcommand("clean", "Remove it all")->add_flag("--dry-run", flag, "Change nothing");
    app.add_subcommand("__hidden", "")->group("");
  }
};

TEST(Completions, TheModelReadsChoicesPathsAndCommandsFromTheAppTree) {
  ToyCli toy;
  CommandSpec spec = describe_cli(toy.app);
  ASSERT_EQ(spec.commands.size(), 3u) << "the hidden command is left out";
  const CommandSpec& greet = spec.commands[0];
  EXPECT_EQ(greet.path, "greet");
  ASSERT_EQ(greet.positionals.size(), 1u);
  EXPECT_EQ(greet.positionals[0].value, ValueKind::kFile);
  bool saw_shell = false;
  for (const auto& o : greet.options) {
    if (o.names == std::vector<std::string>{"--shell"}) {
      saw_shell = true;
      EXPECT_EQ(o.value, ValueKind::kChoice);
      EXPECT_EQ(o.choices, (std::vector<std::string>{"bash", "zsh"}));
    }
  }
  EXPECT_TRUE(saw_shell);
  EXPECT_TRUE(spec.commands[1].prefix);
  EXPECT_EQ(spec.commands[1].positionals[0].value, ValueKind::kCommand);
  EXPECT_EQ(spec.commands[2].commands[0].path, "cache clean");
}

TEST(Completions, PowerShellScriptMatchesTheGoldenFile) {
  ToyCli toy;
  std::string script = completion_script(describe_cli(toy.app), CompletionShell::kPowerShell, "demo");
  std::string golden_path = std::string(CUDNNUP_SOURCE_DIR) + "/tests/unit/app/golden/demo_completions.ps1";
  std::ifstream in(golden_path, std::ios::binary);
  std::stringstream golden;
  golden << in.rdbuf();
  if (std::getenv("CUDNNUP_UPDATE_GOLDEN")) std::ofstream(golden_path, std::ios::binary) << script;
  EXPECT_EQ(script, golden.str()) << "regenerate with CUDNNUP_UPDATE_GOLDEN=1 after checking the difference";
}

TEST(Completions, EveryShellNamesEveryRealCommand) {
  Cli cli;
  CommandSpec spec = describe_cli(cli.app);
  for (auto shell : {CompletionShell::kBash, CompletionShell::kZsh, CompletionShell::kFish, CompletionShell::kPowerShell}) {
    std::string script = completion_script(spec, shell, "cudnnup");
    for (const auto& c : spec.commands) EXPECT_NE(script.find(c.name), std::string::npos) << c.name;
    EXPECT_EQ(script.find("__verify-child"), std::string::npos);
  }
}

}  // namespace
}  // namespace cudnnup
