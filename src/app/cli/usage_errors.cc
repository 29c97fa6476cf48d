#include "app/cli/usage_errors.h"

#include "app/cli/cli_definition.h"
#include "app/cli/suggest.h"
#include "base/strings.h"

namespace cudnnup {
namespace {

std::vector<const CLI::App*> visible_commands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); });
}

const CLI::App* find_command(const CLI::App& app, const std::string& name) {
  auto found = app.get_subcommands([&](const CLI::App* s) { return s->check_name(name); });
  return found.empty() ? nullptr : found.front();
}

std::string program_and(const CLI::App* command) {
  std::string path = command_path(command);
  return "cudnnup" + (path.empty() ? "" : " " + path);
}

std::vector<std::string> app_option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    for (const auto& n : o->get_lnames()) names.push_back("--" + n);
    for (const auto& n : o->get_snames()) names.push_back("-" + n);
  }
  return names;
}

bool known_option(const CLI::App& app, const std::string& word) {
  if (word.rfind("--", 0) == 0) return app.get_option_no_throw(word) != nullptr;
  // -q, or a bundle of short flags such as -qv
  for (size_t i = 1; i < word.size(); ++i) {
    const CLI::Option* o = app.get_option_no_throw(std::string("-") + word[i]);
    if (!o) return false;
    if (o->get_items_expected_max() > 0) return true;  // the rest of the word is its value
  }
  return true;
}

bool option_takes_value(const CLI::App& app, const std::string& word) {
  const CLI::Option* o = app.get_option_no_throw(word);
  return o && o->get_items_expected_max() > 0;
}

std::string hint(const CLI::App* command) { return " (`" + program_and(command) + " --help` lists them)"; }

}  // namespace

bool json_requested(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (a == "--json" || a == "--format=json") return true;
    if (a == "--format" && i + 1 < args.size() && args[i + 1] == "json") return true;
  }
  return false;
}

UsageProblem explain_parse_error(const CLI::App& app, const std::vector<std::string>& args, const CLI::ParseError& e) {
  const CLI::App* at = &app;
  bool positional_seen = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& w = args[i];
    if (w == "--") break;
    if (w.size() > 1 && w[0] == '-' && !(positional_seen && at->get_positionals_at_end())) {
      std::string name = w.substr(0, w.find('='));
      if (!known_option(*at, name)) {
        UsageProblem p{make_error(ErrorCode::kUsage, "`" + program_and(at) + "` has no option " + name + hint(at)),
                       suggest(name, app_option_names(*at)), command_path(at)};
        return p;
      }
      bool separate_value = name == w && (name.rfind("--", 0) == 0 || name.size() == 2);
      if (separate_value && option_takes_value(*at, name)) ++i;
      continue;
    }
    if (positional_seen && at->get_positionals_at_end()) break;
    if (const CLI::App* sub = positional_seen ? nullptr : find_command(*at, w)) {
      at = sub;
      continue;
    }
    bool wants_command = !visible_commands(*at).empty() && at->get_options([](const CLI::Option* o) {
                                                              return o->get_positional();
                                                            }).empty();
    if (wants_command) {
      std::vector<std::string> names, suggestions;
      for (const CLI::App* s : visible_commands(*at)) names.push_back(s->get_name());
      for (const auto& s : suggest(w, names)) suggestions.push_back(program_and(at) + " " + s);
      std::string message = (at == &app ? std::string("cudnnup") : "`" + program_and(at) + "`") + " has no command '" + w + "'";
      return {make_error(ErrorCode::kUsage, message + hint(at)),
              suggestions, command_path(at)};
    }
    positional_seen = true;
  }
  std::string message = e.what();
  return {make_error(ErrorCode::kUsage, "`" + program_and(at) + "`: " + message + " (`" + program_and(at) + " --help` says more)"),
          {}, command_path(at)};
}

UsageProblem missing_command(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::App* s : visible_commands(command)) names.push_back(s->get_name());
  return {make_error(ErrorCode::kUsage, "say which command: " + join(names, ", ") + hint(&command)), {}, command_path(&command)};
}

// Where "" is a value: the words `exec` hands to the program it runs (`python -c ""`), and the
// version the shell hook applied last, which is "" before the first (app/commands/cmd_init.cc).
bool empty_is_meaningful(const std::string& command, const std::string& option) {
  return (command == "exec" && option == "COMMAND") || (command == "env" && option == "--previous");
}

std::optional<UsageProblem> empty_value(const CLI::App& app, const CLI::App* command) {
  std::vector<const CLI::App*> chain;
  for (const CLI::App* a = command; a; a = a->get_parent()) chain.push_back(a);
  if (chain.empty() || chain.back() != &app) chain.push_back(&app);
  for (const CLI::App* a : chain) {
    for (const CLI::Option* o : a->get_options()) {
      if (o->count() == 0 || o->get_type_size_max() == 0) continue;  // not given, or a flag
      if (empty_is_meaningful(a->get_name(), o->get_name())) continue;
      for (const std::string& value : o->results()) {
        if (!value.empty()) continue;
        std::string name = o->get_lnames().empty() ? ascii_upper(o->get_name()) : "--" + o->get_lnames().front();
        UsageProblem p;
        p.command = command_path(command);
        p.error = make_error(ErrorCode::kUsage, "`" + program_and(command) + "`: " + name +
                                                    ": an empty value names nothing: give one, or leave it out");
        return p;
      }
    }
  }
  return std::nullopt;
}

CLI::Validator timeout_seconds() { return CLI::Range(1, kMaxTimeoutSeconds); }

}  // namespace cudnnup
