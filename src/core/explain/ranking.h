// A message's causes in order: the catalogue's prior (how often each is the cause in reports),
// moved by what the log says (evidence.h) and by what this machine shows (explain_checks.h), each
// place explained ("ranked first because the log says ...").
#pragma once

#include <string>
#include <vector>

#include "base/model.h"
#include "explain/error_catalogue.h"
#include "explain/evidence.h"
#include "explain/explain_checks.h"

namespace cudnnup {

struct RankedCause {
  std::string text;                       // placeholders filled in
  std::string check;
  Verdict verdict = Verdict::kUnknown;
  std::string evidence;                   // what the machine check found
  std::vector<EvidenceNote> log_evidence; // what in the log moved it, up or down
  std::string reason;                     // why it has its place; "" when nothing moved it
  int score = 0;                          // weight + log evidence, +1000 when it holds, -1000 when ruled out
};

std::vector<RankedCause> rank_causes(const CatalogueEntry& entry, const ErrorCatalogue& catalogue, const Variables& vars,
                                     const LogFacts& facts, const MachineView& machine);

// Why this machine cannot stand for the one the log comes from, or "" when nothing says so: the
// log is from another platform, or shows a GPU (memory figures, a name, a compute capability)
// this machine does not have.
std::string machine_contradiction(const LogFacts& facts, const Report& report);

// "<what> is from windows and this machine runs linux" when `platform` is known and not this
// machine's, else "": for the whole log (above) and for one message in a log of both.
std::string platform_contradiction(const std::string& what, const std::string& platform, const Report& report);

}  // namespace cudnnup
