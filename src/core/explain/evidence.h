// Causes ranked by what the log says: each cause names the catalogue's evidence rules that move
// it (a version newer or older than the build, a Windows error code, a driver version, free
// memory, the platform, a library, lines showing cuDNN reached the GPU); a rule whose conditions
// hold over the message's variables and the log's facts adds its effect and says why.
#pragma once

#include <string>
#include <vector>

#include "explain/error_catalogue.h"
#include "explain/log_facts.h"
#include "explain/placeholders.h"

namespace cudnnup {

struct EvidenceNote {
  std::string rule;  // the evidence rule's id
  int effect = 0;    // added to the cause's score
  std::string says;  // "the runtime cuDNN 7.3.1 is newer than the 7.0.3 the program was built with"
};

// A variable of the message, else a fact of the log; "" when neither has it.
std::string lookup(const Variables& vars, const LogFacts& facts, const std::string& name);

bool condition_holds(const Condition& c, const Variables& vars, const LogFacts& facts);
bool all_hold(const std::vector<Condition>& conditions, const Variables& vars, const LogFacts& facts);

// The notes of the cause's evidence rules that hold, in the cause's order.
std::vector<EvidenceNote> weigh_evidence(const CauseSpec& cause, const ErrorCatalogue& catalogue, const Variables& vars,
                                         const LogFacts& facts);

}  // namespace cudnnup
