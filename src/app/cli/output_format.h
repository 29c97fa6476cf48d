// How a command prints its answer: the one definition of `--format` (and its alias `--json`)
// for every command. A new format (prometheus, nfd, html) is one more row in the table of
// output_format.cc and a renderer in the commands that offer it; a command says which formats
// it offers with offer_formats(), and asking for another one is a usage error that lists them.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cudnnup {

enum class OutputFormat { kText, kJson, kPrometheus, kNfd, kHtml };

struct FormatInfo {
  OutputFormat format;
  const char* name;  // as given to --format
  const char* help;
};

const std::vector<FormatInfo>& output_formats();
std::vector<std::string> output_format_names();
// "Output format: text (the default, for people), json (docs/json-schema.md), ..." for --help,
// from the table above, so that a new format is named in one place.
std::string output_format_help();
const char* output_format_name(OutputFormat f);

// Every command offers text and json unless it says otherwise here, by its path ("doctor",
// "cache clean"), when it is added to the command line. A command given a format it does not offer
// refuses it as a usage error (exit 2; cli_definition.cc) rather than printing another one.
void offer_formats(const std::string& command_path, std::vector<OutputFormat> formats);
std::vector<OutputFormat> offered_formats(const std::string& command_path);

// When colour is used: --color=auto|always|never (--no-color is --color=never).
enum class ColorChoice { kAuto, kAlways, kNever };
std::vector<std::string> color_choice_names();

// The colour decision, made once per run: never for JSON; `always` wins over everything else
// (a per-run option overrides the environment, as no-color.org asks); `auto` colours a terminal
// unless NO_COLOR is set to a non-empty value (no-color.org: an empty one does not count) or
// TERM is "dumb".
bool use_color(ColorChoice choice, OutputFormat format, const std::optional<std::string>& no_color_env,
               const std::optional<std::string>& term_env, bool stdout_is_tty);

}  // namespace cudnnup
