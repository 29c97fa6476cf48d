#include "app/cli/cli_model.h"

#include "base/strings.h"

namespace cudnnup {
namespace {

// CLI11 shows an IsMember check in the type name as ":{a,b,c}".
std::vector<std::string> choices_of(const std::string& type_name) {
  auto open = type_name.find(":{");
  auto close = type_name.find('}', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos) return {};
  std::vector<std::string> out;
  for (auto& item : split(std::string_view(type_name).substr(open + 2, close - open - 2), ',')) {
    if (!item.empty()) out.push_back(std::move(item));
  }
  return out;
}

OptionSpec describe_option(const CLI::Option& o) {
  OptionSpec s;
  for (const auto& n : o.get_snames()) s.names.push_back("-" + n);
  for (const auto& n : o.get_lnames()) s.names.push_back("--" + n);
  if (s.names.empty()) s.name = o.get_name(true);
  s.help = short_help(o.get_description());
  if (o.get_items_expected_max() > 0) {
    std::string type = o.get_type_name();
    std::string base = type.substr(0, type.find(':'));
    s.choices = choices_of(type);
    if (!s.choices.empty()) s.value = ValueKind::kChoice;
    else if (base == "FILE" || base == "PATH") s.value = ValueKind::kFile;
    else if (base == "DIR") s.value = ValueKind::kDir;
    else if (base == "COMMAND") s.value = ValueKind::kCommand;
    else s.value = ValueKind::kAny;
  }
  s.repeatable = o.get_items_expected_max() > 1 || o.get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
  return s;
}

CommandSpec describe(const CLI::App& app, const std::string& parent_path) {
  CommandSpec c;
  c.name = app.get_name();
  c.path = parent_path.empty() ? c.name : parent_path + " " + c.name;
  if (app.get_parent() == nullptr) c.path.clear();
  c.help = short_help(app.get_description());
  c.prefix = app.get_positionals_at_end();
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_group().empty()) continue;  // hidden
    OptionSpec s = describe_option(*o);
    (s.names.empty() ? c.positionals : c.options).push_back(std::move(s));
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); })) {
    c.commands.push_back(describe(*sub, c.path));
  }
  return c;
}

void collect(const CommandSpec& c, std::vector<const CommandSpec*>& out) {
  out.push_back(&c);
  for (const auto& sub : c.commands) collect(sub, out);
}

}  // namespace

CommandSpec describe_cli(const CLI::App& app) { return describe(app, ""); }

std::vector<const CommandSpec*> all_commands(const CommandSpec& root) {
  std::vector<const CommandSpec*> out;
  collect(root, out);
  return out;
}

std::string short_help(const std::string& text, size_t width) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() <= width) return line;
  size_t cut = line.rfind(' ', width - 1);
  if (cut == std::string::npos || cut < width / 2) cut = width - 1;
  return line.substr(0, cut) + "...";
}

}  // namespace cudnnup
