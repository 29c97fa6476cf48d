// Usage errors said the same way for every command: an unknown command or option names the
// closest ones ("did you mean"), and with --json / --format json the error is the JSON error
// document like every other failure.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace cudnnup {

// Whether the arguments (without the program name) ask for JSON. Used when parsing failed, so
// the options were not read; arguments after `--` belong to someone else.
bool json_requested(const std::vector<std::string>& args);

struct UsageProblem {
  Error error;                           // code kUsage
  std::vector<std::string> suggestions;  // "cudnnup doctor", "--json"
  std::string command;                   // the command path reached before the problem
};

// Turns CLI11's parse error into a message that names the command and what was meant.
UsageProblem explain_parse_error(const CLI::App& app, const std::vector<std::string>& args, const CLI::ParseError& e);

// `cudnnup` (or `cudnnup cache`) without a command.
UsageProblem missing_command(const CLI::App& command);

// An option or argument given an empty value, on the way from `app` to `command`: an empty value
// names nothing, and read as absent it turned `link --into ""` into the current folder and
// `verify --copy ""` into the default copy. Except where "" is a value: the words `exec` runs,
// and `env --previous` (the shell hook's last version, none at first).
std::optional<UsageProblem> empty_value(const CLI::App& app, const CLI::App* command);

// The range every "--timeout S"-like option accepts: at least a second, and at most a day, so the
// milliseconds fit an int (a negative or overflowed timeout stopped a healthy child at once, and
// verify called the copy broken).
inline constexpr int kMaxTimeoutSeconds = 86400;
CLI::Validator timeout_seconds();

}  // namespace cudnnup
