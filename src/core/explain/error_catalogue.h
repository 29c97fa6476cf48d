// The error catalogue `cudnnup explain` matches against (data/error_catalogue.json, embedded at
// build time). Each entry: needles (cheap literal pre-filter), regexes with named captures, what
// the message means, candidate causes (each with a machine check), fixes and sources. The format
// is documented in docs/commands/explain.md.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/fix.h"
#include "base/result.h"
#include "explain/catalogue_regex.h"
#include "explain/needle_scanner.h"

namespace cudnnup {

enum class MessageSeverity { kHarmless, kWarning, kError };
const char* message_severity_name(MessageSeverity s);

// A case-insensitive ECMAScript regex compiled on first use: the catalogue has several hundred, and
// a log needs a few of them (compiling them all took most of a short run). Copies share the
// compiled form. get() is nullptr when it does not compile (the tests compile every one:
// ErrorCatalogue::first_bad_regex).
class LazyRegex {
 public:
  LazyRegex() = default;
  LazyRegex(std::string source, size_t groups);  // groups: the capture groups it must have, or npos
  const CatalogueRegex* get() const;
  const std::string& source() const { return state_->source; }

 private:
  struct State {
    std::string source;
    size_t groups = 0;
    bool tried = false;
    std::unique_ptr<CatalogueRegex> compiled;
  };
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

// A regex written with (?<name>...) groups, translated to std::regex (ECMAScript has no named
// groups in std::regex) with the group numbers remembered.
struct CompiledPattern {
  std::string source;                      // as written in the catalogue
  LazyRegex regex;                         // the translation
  std::vector<std::string> group_names;    // index = group number; "" for unnamed groups
  // Where a match can start (prefix_search.h, match_starts): at one of these texts (lower case),
  // and, when run_breaks is not empty, where the search starts or right after one of its chars.
  // Both empty: unknown, anywhere.
  std::vector<std::string> literal_prefixes;
  std::string run_breaks;
};

// Translates (without compiling); the error names a bad or unbalanced group name.
Result<CompiledPattern> translate_pattern(const std::string& source);
// Translates and compiles now; the error also names a regex that does not compile.
Result<CompiledPattern> compile_pattern(const std::string& source);

// A test of one variable of a message or one fact of the log: a regex (case-insensitive), or a
// comparison with a number ("<10", ">=512") when it starts with < or >. A variable that is
// missing, or not a number where one is compared, fails the test.
struct Condition {
  enum class Op { kRegex, kLess, kLessOrEqual, kGreater, kGreaterOrEqual };
  std::string name;
  std::string source;  // as written
  Op op = Op::kRegex;
  LazyRegex regex;
  double number = 0;
};
Result<Condition> compile_condition(const std::string& name, const std::string& source);

// A fact read from anywhere in the log, not only from the message a pattern matched: memory
// figures, a driver version, a GPU's compute capability, the platform, lines showing cuDNN
// already reached the GPU. The pattern's named captures become facts, and so do the `set` pairs.
struct FactSpec {
  std::string id;
  std::vector<std::string> needles;  // lower case, as for entries
  CompiledPattern pattern;
  std::map<std::string, std::string> set;
};

// A piece of evidence a log may hold: when every condition holds (over the message's variables
// and the log's facts), the causes that name it move by the effect they give it, and `says`
// (placeholders filled) is given as the reason ("the runtime cuDNN 7.3.1 is newer than ...").
struct EvidenceRule {
  std::string id;
  std::vector<Condition> when;
  std::string says;
};

struct CauseSpec {
  std::string text;     // may hold {variable} placeholders
  std::string check;    // id of a check in core/explain_checks.h
  int weight = 0;       // prior: how often this is the cause in reports (higher = more common)
  // The cause applies only when every condition holds (a variable or a log fact).
  std::vector<Condition> when;
  // The catalogue's evidence rules that move this cause, each with its effect on the score
  // (positive: the evidence makes the cause more likely; negative: less).
  std::vector<std::pair<std::string, int>> evidence;
  std::map<std::string, std::string> params;  // check parameters, e.g. min_cc
};

// One step of a catalogue fix (base/fix.h's data form). Its words may hold {variable} placeholders,
// filled from the matched message; when the message did not give a variable, the step becomes the
// plain step `otherwise` (itself filled), or is left out: never printed with a placeholder.
struct CatalogueStep {
  FixStep step;
  std::string otherwise;
};

// A fix: what to do, then the steps for each OS; `when` as for causes (a fix that only helps
// one cause, e.g. "reduce the batch" for memory, is not offered for a version mismatch).
struct FixSpec {
  std::string text;
  std::vector<Condition> when;
  // The causes (check ids) this fix answers. Where this machine shows the cause ranked first (its
  // check holds), the fixes for it are printed first; otherwise the catalogue's order stands.
  std::vector<std::string> for_checks;
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
  bool at_end = false;                // matches only on the log's last non-empty line (a program
                                      // that stops silently right after printing it)
  std::vector<CauseSpec> causes;
  std::vector<FixSpec> fixes;
  std::vector<std::string> sources;
};

struct CudnnStatusInfo {
  std::string name;
  std::optional<int> code8, code9;  // cudnnStatus_t values in 8.x and 9.x (not comparable across)
  std::string meaning;
};

// Who asked for a needle: an entry or a log fact, by index.
struct NeedleOwner {
  bool fact = false;
  int index = 0;
};

struct ErrorCatalogue {
  int schema = 0;
  std::string data_version;
  std::vector<CudnnStatusInfo> statuses;
  std::vector<FactSpec> facts;
  std::map<std::string, EvidenceRule, std::less<>> evidence;
  std::vector<CatalogueEntry> entries;
  // Every needle of the entries and the facts once, the ones that asked for it, and the automaton
  // that finds them all in one pass (needle_scanner.h).
  std::vector<std::string> needles;
  std::vector<std::vector<NeedleOwner>> needle_owners;
  std::shared_ptr<const NeedleScanner> scanner;

  const CudnnStatusInfo* status(std::string_view name) const;
  const CatalogueEntry* entry(std::string_view id) const;
  // Compiles every regex of the catalogue (they compile on first use otherwise): the first one
  // that does not compile, where it is, or "" when all do. For the tests of the data.
  std::string first_bad_regex() const;
};

// Parses and compiles every pattern. Unknown check ids are an error, so a typo in the data
// fails the build's tests rather than a user's run.
Result<ErrorCatalogue> parse_error_catalogue(std::string_view json_text, const std::string& origin);

// The catalogue compiled into the binary, parsed once (regex compilation is the costly part).
const Result<ErrorCatalogue>& builtin_error_catalogue();
// The built-in catalogue's data_version, read without compiling its patterns (--version).
std::string builtin_error_catalogue_version();

}  // namespace cudnnup
