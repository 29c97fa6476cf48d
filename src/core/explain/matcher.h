// Finding the catalogue's messages in a log: needles first (fast), then the entries' regexes on
// the few candidate windows, a window being a line with the rest of its record. Overlapping
// matches are then reduced (a specific entry replaces a generic one, a consequence printed right
// after its cause is dropped).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "explain/error_catalogue.h"
#include "explain/log_records.h"
#include "explain/placeholders.h"

namespace cudnnup {

struct Occurrence {
  const CatalogueEntry* entry = nullptr;
  int first = 0, last = 0;  // 0-based line indexes
  std::string text;         // the lines it covers (or the match alone when they are long)
  Variables vars;           // the pattern's named captures
  // Messages this one stands for: a generic match of the same lines, an entry it overrides, a
  // consequence printed right after it ("Possibly insufficient driver version" after "Could
  // not create cudnn handle"). They are recognised, and explained here. 0-based lines.
  std::vector<std::pair<const CatalogueEntry*, int>> folded;
};

// Where the catalogue's needles are, from one pass of its scanner over both ways of joining the
// lines: for each entry, the lines a message may start on (a needle's line, and the line before
// when the needle's line continues it) with the needle's offset in the line; for each log fact,
// the lines its needles are on, in order.
// (Not "Candidate": loader/resolution.h has one, and two classes of one name in one namespace
// are one class to the linker: the portable build's vector<Candidate> code built strings here.)
struct NeedleCandidate {
  int line = 0;
  size_t at = 0;       // the needle's offset in the line (0 for the line before)
  bool cut = false;    // found only with the lines joined by nothing: a word cut by a wrap
};
struct NeedleHits {
  std::vector<std::vector<NeedleCandidate>> entries;  // sorted by line, one per line
  std::vector<std::vector<int>> facts;
};
NeedleHits find_needles(const ErrorCatalogue& catalogue, const LogLines& lines);

// Every match of every entry, sorted by first line, with the superseded ones dropped.
std::vector<Occurrence> find_messages(const ErrorCatalogue& catalogue, const LogLines& lines, const NeedleHits& hits);

}  // namespace cudnnup
