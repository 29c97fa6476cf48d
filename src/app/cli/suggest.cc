#include "app/cli/suggest.h"

#include <algorithm>

namespace cudnnup {

size_t edit_distance(const std::string& a, const std::string& b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

std::vector<std::string> suggest(const std::string& word, const std::vector<std::string>& candidates) {
  // Option dashes are not letters: "--jsn" is as close to "--json" as "jsn" to "json".
  auto letters = [](const std::string& s) { return s.substr(std::min(s.find_first_not_of('-'), s.size())); };
  const std::string w = letters(word);
  if (w.empty()) return {};
  const size_t limit = w.size() >= 5 ? 2 : 1;
  std::vector<std::pair<size_t, std::string>> close;
  for (const auto& c : candidates) {
    std::string l = letters(c);
    if (l.empty() || c == word) continue;
    size_t d = edit_distance(w, l);
    bool prefix = w.size() >= 3 && l.rfind(w, 0) == 0;
    if (d <= limit || prefix) close.emplace_back(prefix ? std::min<size_t>(d, 1) : d, c);
  }
  std::stable_sort(close.begin(), close.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (auto& [d, c] : close) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

}  // namespace cudnnup
