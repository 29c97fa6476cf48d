// `cudnnup explain` as a pure function: find every known message in a text (a log with noise,
// CRLF, wrapped lines, log prefixes), pull out its variables (library names, versions, status
// codes, framework) and the log's facts, and rank the catalogue's candidate causes by what the
// log says and what this machine shows.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "explain/error_catalogue.h"
#include "explain/explain_checks.h"
#include "explain/log_facts.h"
#include "explain/ranking.h"

namespace cudnnup {

struct FilledFix {
  std::string text;
  std::vector<FixStep> linux_steps;  // placeholders filled; a step whose variable is missing is left out
  std::vector<FixStep> windows_steps;
};

struct Explanation {
  const CatalogueEntry* entry = nullptr;
  std::string matched_text;         // the message as matched (log prefixes and line breaks removed)
  std::vector<int> lines;           // 1-based line of each occurrence (at most 20 listed)
  int occurrences = 0;
  Variables variables;              // captured + derived (major, component, status_meaning, ...)
  std::string meaning;              // placeholders filled in
  std::vector<RankedCause> causes;  // most likely first
  std::vector<FilledFix> fixes;     // those whose `when` holds
  // Other catalogue messages this one stands for (matcher.h's Occurrence::folded), with the
  // 1-based line of each: recognised, and explained by this entry.
  std::vector<std::pair<const CatalogueEntry*, int>> folded;
  // Why this message's causes are ranked by the log alone though the log as a whole is not set
  // aside ("this message is from windows and this machine runs linux"); "" otherwise.
  std::string machine_set_aside;
};

constexpr size_t kMaxExplanations = 100;

struct ExplainReport {
  // In order of first appearance; at most kMaxExplanations distinct messages, errors and
  // warnings before harmless ones (a log of harmless lines must not push its failure out).
  std::vector<Explanation> matches;
  // Distinct messages recognised beyond those, not explained: a log of thousands of different
  // versions made hundreds of MB of output and GBs of memory.
  int matches_left_out = 0;
  int lines_read = 0;
  LogFacts facts;                    // what the log says beyond its messages (log_facts.h)
  // Why the machine was set aside and the causes ranked by the log alone ("the log is from
  // windows and this machine runs linux"); "" when the machine was used or there was none.
  std::string machine_set_aside;
  bool has_problem() const;          // a match that is not harmless
};

// One message's variables after the derivations: library name -> component/major/cuda_major,
// (8, 7, 0) / 8700 / 90100 -> dotted versions, required + found -> direction (older, newer,
// same, older_major, newer_major), status -> status_meaning, driver_cuda -> version.
void derive_variables(Variables& vars, const ErrorCatalogue& catalogue);

// The log's lines as explain reads them (log_records.h). Exposed for tests.
std::vector<std::string> normalise_log_lines(std::string_view text);

ExplainReport explain_text(std::string_view text, const ErrorCatalogue& catalogue, const MachineView& machine);

}  // namespace cudnnup
