// `cudnnup explain` as a pure function: find every known message in a text (a log with noise,
// CRLF, wrapped lines, log prefixes), pull out its variables (library names, versions, status
// codes, framework) and rank the catalogue's candidate causes by what this machine shows.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "explain/error_catalogue.h"
#include "explain/explain_checks.h"

namespace cudnnup {

struct RankedCause {
  std::string text;       // placeholders filled in
  std::string check;
  Verdict verdict = Verdict::kUnknown;
  std::string evidence;
  int score = 0;          // weight, +1000 when it holds, -1000 when ruled out
};

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
  std::vector<FilledFix> fixes;
};

struct ExplainReport {
  std::vector<Explanation> matches;  // in order of first appearance
  int lines_read = 0;
  bool has_problem() const;          // a match that is not harmless
};

// One message's variables after the derivations: library name -> component/major/cuda_major,
// (8, 7, 0) / 8700 / 90100 -> dotted versions, status -> status_meaning, driver_cuda -> version.
void derive_variables(Variables& vars, const ErrorCatalogue& catalogue);

// Normalises a log into logical lines: CRLF/CR, ANSI colour codes, quote markers and log prefixes
// (glog/absl "E0000 00:00:...] ", TensorFlow "2024-.. W tensorflow/...cc:12] ", ONNX Runtime
// "[E:onnxruntime:...] ") removed. Exposed for tests.
std::vector<std::string> normalise_log_lines(std::string_view text);

ExplainReport explain_text(std::string_view text, const ErrorCatalogue& catalogue, const MachineView& machine);

}  // namespace cudnnup
