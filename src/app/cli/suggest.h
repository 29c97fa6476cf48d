// "Did you mean": the known words closest to a mistyped command or option.
#pragma once

#include <string>
#include <vector>

namespace cudnnup {

// Optimal string alignment distance (Levenshtein plus swapping two neighbours), so `doctr`,
// `dcotor` and `docter` are each one edit from `doctor`.
size_t edit_distance(const std::string& a, const std::string& b);

// The candidates close enough to `word` to be what was meant, best first: at most 2 edits for
// words of 5 or more characters, 1 for shorter ones; a candidate that starts with `word`
// (`--probe` for `--probe-frameworks`) counts as close too. Empty when nothing is close.
std::vector<std::string> suggest(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace cudnnup
