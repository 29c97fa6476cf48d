// The error catalogue `cudnnup explain` matches against (data/error_catalogue.json, embedded at
// build time). Each entry: needles (cheap literal pre-filter), regexes with named captures, what
// the message means, candidate causes (each with a machine check), fixes and sources. The format
// is documented in docs/commands/explain.md.
#pragma once

#include <map>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/fix.h"
#include "base/result.h"

namespace cudnnup {

enum class MessageSeverity { kHarmless, kWarning, kError };
const char* message_severity_name(MessageSeverity s);

// A regex written with (?<name>...) groups, translated to std::regex (ECMAScript has no named
// groups in std::regex) with the group numbers remembered. Compiled once, case-insensitive.
struct CompiledPattern {
  std::string source;                      // as written in the catalogue
  std::regex regex;
  std::vector<std::string> group_names;    // index = group number; "" for unnamed groups
};

// Translates and compiles; the error names the problem (unbalanced group, bad name, regex error).
Result<CompiledPattern> compile_pattern(const std::string& source);

struct CauseSpec {
  std::string text;     // may hold {variable} placeholders
  std::string check;    // id of a check in core/explain_checks.h
  int weight = 0;       // prior: how often this is the cause in reports (higher = more common)
  // The cause applies only when each named variable exists and matches the regex (case-insensitive).
  std::vector<std::pair<std::string, std::regex>> when;
  std::vector<std::pair<std::string, std::string>> when_source;  // as written, for --json and docs
  std::map<std::string, std::string> params;  // check parameters, e.g. min_cc
};

// One step of a catalogue fix (base/fix.h's data form). Its words may hold {variable} placeholders,
// filled from the matched message; when the message did not give a variable, the step becomes the
// plain step `otherwise` (itself filled), or is left out: never printed with a placeholder.
struct CatalogueStep {
  FixStep step;
  std::string otherwise;
};

// A fix: what to do, then the steps for each OS.
struct FixSpec {
  std::string text;
  std::vector<CatalogueStep> linux_steps;
  std::vector<CatalogueStep> windows_steps;
};

struct CatalogueEntry {
  std::string id;
  std::string title;
  std::vector<std::string> needles;   // lower case; a line must contain one before regexes run
  std::vector<CompiledPattern> patterns;
  std::string meaning;
  MessageSeverity severity = MessageSeverity::kError;
  std::string framework;              // "" when the message is not specific to one
  bool generic = false;               // dropped when a specific entry matched the same lines
  std::vector<std::string> follows;   // dropped when one of these matched just before (its cause)
  std::vector<std::string> overrides; // entry ids this one replaces when both match the same lines
  std::vector<CauseSpec> causes;
  std::vector<FixSpec> fixes;
  std::vector<std::string> sources;
};

struct CudnnStatusInfo {
  std::string name;
  std::optional<int> code8, code9;  // cudnnStatus_t values in 8.x and 9.x (not comparable across)
  std::string meaning;
};

struct ErrorCatalogue {
  int schema = 0;
  std::string data_version;
  std::vector<CudnnStatusInfo> statuses;
  std::vector<CatalogueEntry> entries;

  const CudnnStatusInfo* status(std::string_view name) const;
  const CatalogueEntry* entry(std::string_view id) const;
};

// Parses and compiles every pattern. Unknown check ids are an error, so a typo in the data
// fails the build's tests rather than a user's run.
Result<ErrorCatalogue> parse_error_catalogue(std::string_view json_text, const std::string& origin);

// The catalogue compiled into the binary, parsed once (regex compilation is the costly part).
const Result<ErrorCatalogue>& builtin_error_catalogue();
// The built-in catalogue's data_version, read without compiling its patterns (--version).
std::string builtin_error_catalogue_version();

}  // namespace cudnnup
