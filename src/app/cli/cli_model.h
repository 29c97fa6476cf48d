// The command line as plain data, read from CLI11's App tree: what completions are generated
// from and what tests walk to check every command (help, JSON, ...). Nothing here is kept by
// hand: a command, option or choice added to the CLI shows up here by itself.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace cudnnup {

// What an option's value (or a positional) is, for completion: from the CLI11 type name the
// command gave it (`->type_name("FILE")`, "DIR", "PATH", "COMMAND") and its IsMember check.
enum class ValueKind { kNone, kAny, kChoice, kFile, kDir, kCommand };

struct OptionSpec {
  std::vector<std::string> names;  // "-q", "--quiet"; empty for a positional
  std::string name;                // a positional's name ("VERSION")
  std::string help;                // first line of the description
  ValueKind value = ValueKind::kNone;
  std::vector<std::string> choices;
  bool repeatable = false;
};

struct CommandSpec {
  std::string name;                // "" for the program itself
  std::string path;                // "cache clean"
  std::string help;                // the one-line purpose
  std::vector<OptionSpec> options;
  std::vector<OptionSpec> positionals;
  std::vector<CommandSpec> commands;
  bool prefix = false;             // arguments after the first positional belong to it (exec)
};

// The visible commands (hidden ones, group "", are left out) and their options, --help included.
CommandSpec describe_cli(const CLI::App& app);

// Every command below `root`, depth first, the root itself first.
std::vector<const CommandSpec*> all_commands(const CommandSpec& root);

// The first line of a help text, cut at a word boundary to at most `width` characters.
std::string short_help(const std::string& text, size_t width = 80);

}  // namespace cudnnup
