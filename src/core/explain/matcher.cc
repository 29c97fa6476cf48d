#include "explain/matcher.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "base/strings.h"
#include "explain/prefix_search.h"

namespace cudnnup {
namespace {

// Lines longer than this are searched in a slice around the needle: libstdc++'s std::regex
// backtracks recursively, so very long inputs cost time and stack.
constexpr size_t kMaxWindowLine = 1500;
constexpr int kContinuationLines = 4;  // a wrapped or multi-line message may continue on the next four lines of its record
constexpr int kFollowReach = 3;        // a "follows" message this many lines after its cause is dropped

bool is_space_or_newline(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\n'; }

std::string collapse_spaces(std::string_view s, size_t max_len) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (is_space_or_newline(c)) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
    if (out.size() >= max_len) {
      out += "...";
      break;
    }
  }
  return out;
}

bool overlaps(const Occurrence& a, const Occurrence& b, int reach) {
  return a.first <= b.last + reach && b.first <= a.last + reach;
}

int last_non_empty(const LogLines& lines) {
  for (int i = int(lines.size()) - 1; i >= 0; --i) {
    if (!lines.text[i].empty()) return i;
  }
  return -1;
}

class Matcher {
 public:
  Matcher(const ErrorCatalogue& catalogue, const LogLines& lines, const NeedleHits& hits)
      : catalogue_(catalogue), lines_(lines), hits_(hits), last_line_(last_non_empty(lines)) {}

  std::vector<Occurrence> run() {
    std::vector<Occurrence> out;
    for (size_t e = 0; e < catalogue_.entries.size(); ++e) {
      const CatalogueEntry& entry = catalogue_.entries[e];
      for (const NeedleCandidate& c : hits_.entries[e]) {
        if (entry.at_end && c.line != last_line_) continue;
        match_at(entry, c, out);
      }
    }
    return out;
  }

 private:
  // The same window (a line repeated thousands of times in a log) is searched once per entry; the
  // matches are kept with lines relative to the window's first line.
  void match_at(const CatalogueEntry& entry, const NeedleCandidate& c, std::vector<Occurrence>& out) {
    const int line = c.line;
    std::string key = window_key(entry, line, c.at);
    if (c.cut) key += "\0cut";
    auto it = memo_.find(key);
    if (it == memo_.end()) {
      std::vector<Occurrence> found;
      search_window(entry, c, found);
      for (auto& o : found) {
        o.first -= line;
        o.last -= line;
      }
      it = memo_.emplace(std::move(key), std::move(found)).first;
    }
    for (Occurrence o : it->second) {
      o.first += line;
      o.last += line;
      out.push_back(std::move(o));
    }
  }

  // What decides a search's result: the entry, the line (or the slice a long line is searched
  // in) and the lines that may continue it, with their lengths.
  std::string window_key(const CatalogueEntry& entry, int line, size_t needle_at) const {
    std::string key = entry.id;
    key += '\0';
    const std::string& first = lines_.text[line];
    if (first.size() > kMaxWindowLine) {
      size_t from = needle_at > 300 ? needle_at - 300 : 0;
      return key + std::string("slice\0", 6) + first.substr(from, kMaxWindowLine);
    }
    key += first;
    for (int k : continuation_lines(lines_, line, kContinuationLines, kMaxWindowLine)) key += '\n' + lines_.text[k];
    return key;
  }

  void search_window(const CatalogueEntry& entry, const NeedleCandidate& c, std::vector<Occurrence>& out) {
    const int line = c.line;
    const size_t needle_at = c.at;
    const std::string& first = lines_.text[line];
    if (first.size() > kMaxWindowLine) {
      size_t from = needle_at > 300 ? needle_at - 300 : 0;
      std::string slice = first.substr(from, kMaxWindowLine);
      search(entry, line, slice, {}, slice.size(), "", out);
      return;
    }
    std::vector<int> more = continuation_lines(lines_, line, kContinuationLines, kMaxWindowLine);
    // Joined with a space (a soft-wrapped message), then, where the needle itself was cut by a
    // terminal's wrap ("no CUDA-\ncapable"), with nothing.
    for (const char* joiner : {" ", ""}) {
      std::string window = first;
      for (int k : more) window += joiner + lines_.text[k];
      if (search(entry, line, window, more, first.size(), joiner, out)) return;
      if (more.empty() || !c.cut) return;
    }
  }

  // m's positions are from the start of `window` (prefix_search.h).
  Occurrence occurrence(const CatalogueEntry& entry, const CompiledPattern& pattern, const std::string& window,
                        const std::smatch& m, int line, const std::vector<int>& more, size_t first_len,
                        const std::string& joiner) const {
    Occurrence occ;
    occ.entry = &entry;
    occ.first = occ.last = line;
    size_t end_pos = size_t(m[0].second - window.begin());
    size_t covered = first_len;
    for (int k : more) {
      if (end_pos <= covered) break;
      covered += joiner.size() + lines_.text[k].size();
      occ.last = k;
    }
    // Show whole lines (the message with its context on the line), unless they are long.
    std::string whole = first_len == lines_.text[line].size() ? lines_.text[line] : std::string();
    for (int k : more) {
      if (k > occ.last) break;
      whole += " " + lines_.text[k];
    }
    occ.text = !whole.empty() && whole.size() <= 400 ? collapse_spaces(whole, 400) : collapse_spaces(m.str(0), 400);
    for (size_t g = 1; g < pattern.group_names.size() && g < m.size(); ++g) {
      if (pattern.group_names[g].empty() || !m[g].matched) continue;
      occ.vars.emplace(pattern.group_names[g], collapse_spaces(m[g].str(), 300));
    }
    return occ;
  }

  bool search(const CatalogueEntry& entry, int line, const std::string& window, const std::vector<int>& more,
              size_t first_len, const std::string& joiner, std::vector<Occurrence>& out) {
    bool found = false;
    const std::string lower_window = ascii_lower(window);
    for (const auto& pattern : entry.patterns) {
      // A match that starts on a later line is found from that line.
      for_each_match(pattern, window, lower_window, first_len, [&](const std::smatch& m) {
        out.push_back(occurrence(entry, pattern, window, m, line, more, first_len, joiner));
        found = true;
        return true;
      });
    }
    return found;
  }

  const ErrorCatalogue& catalogue_;
  const LogLines& lines_;
  const NeedleHits& hits_;
  int last_line_;
  std::unordered_map<std::string, std::vector<Occurrence>> memo_;
};

bool same_values(const Occurrence& generic, const Occurrence& specific) {
  return std::all_of(generic.vars.begin(), generic.vars.end(), [&specific](const auto& kv) {
    auto it = specific.vars.find(kv.first);
    return it != specific.vars.end() && ascii_lower(it->second) == ascii_lower(kv.second);
  });
}

// Whether `o` is replaced by its neighbour `p`.
bool superseded_by(const Occurrence& o, const Occurrence& p) {
  const auto& ov = p.entry->overrides;
  if (std::find(ov.begin(), ov.end(), o.entry->id) != ov.end() && overlaps(o, p, 0)) return true;
  bool specific_neighbour = o.entry->generic && !p.entry->generic;
  if (specific_neighbour && p.entry->severity != MessageSeverity::kHarmless && overlaps(o, p, 0)) return true;
  // A generic message next to a specific one that captured the same values adds nothing
  // (Paddle prints its CUDNN_STATUS twice on adjacent lines).
  if (specific_neighbour && !o.vars.empty() && overlaps(o, p, kFollowReach) && same_values(o, p)) return true;
  // A consequence printed just after its cause ("Invalid handle" after "Unable to load").
  const auto& fol = o.entry->follows;
  return std::find(fol.begin(), fol.end(), p.entry->id) != fol.end() && p.first <= o.first &&
         p.last >= o.first - kFollowReach;
}

// Specific entries replace the generic ones and the entries they override on the same lines.
// `all` is sorted by first line, so only neighbours within a few lines need comparing (a log with
// thousands of repeated messages stays linear).
std::vector<Occurrence> drop_superseded(std::vector<Occurrence> all) {
  const int reach = kContinuationLines + kFollowReach;
  std::vector<bool> drop(all.size(), false);
  std::vector<size_t> by(all.size());  // the occurrence that replaced each dropped one
  for (size_t i = 0; i < all.size(); ++i) {
    const Occurrence& o = all[i];
    size_t lo = i;
    while (lo > 0 && all[lo - 1].first >= o.first - reach) --lo;
    for (size_t j = lo; j < all.size() && all[j].first <= o.last + reach && !drop[i]; ++j) {
      if (i == j) continue;
      const Occurrence& p = all[j];
      // The same entry twice on the same line (two of its patterns): keep the first, with what
      // either captured.
      if (p.entry == o.entry) {
        drop[i] = j < i && p.first == o.first;
        if (drop[i]) all[j].vars.insert(o.vars.begin(), o.vars.end());
      } else {
        drop[i] = superseded_by(o, p);
      }
      by[i] = j;
    }
  }
  for (size_t i = 0; i < all.size(); ++i) {
    if (!drop[i] || all[by[i]].entry == all[i].entry) continue;
    size_t k = by[i];
    for (int hops = 0; drop[k] && hops < 8; ++hops) k = by[k];  // replaced in turn: fold into the survivor
    if (!drop[k]) all[k].folded.emplace_back(all[i].entry, all[i].first);
  }
  std::vector<Occurrence> kept;
  for (size_t i = 0; i < all.size(); ++i) {
    if (!drop[i]) kept.push_back(std::move(all[i]));
  }
  return kept;
}

}  // namespace

NeedleHits find_needles(const ErrorCatalogue& catalogue, const LogLines& lines) {
  NeedleHits hits;
  hits.entries.resize(catalogue.entries.size());
  hits.facts.resize(catalogue.facts.size());
  if (!catalogue.scanner || lines.size() == 0) return hits;
  const JoinedLines spaced(lines.text, 1), tight(lines.text, 0);
  // The tight text's candidates come after all of the spaced text's, as if each text were
  // scanned in turn: the first one found on a line keeps its offset.
  std::vector<std::vector<NeedleCandidate>> tight_entries(catalogue.entries.size());
  catalogue.scanner->scan_lines(lines.text, [&](int needle, bool cut, size_t pos) {
    auto [line, at] = (cut ? tight : spaced).locate(pos);
    for (const NeedleOwner& owner : catalogue.needle_owners[needle]) {
      if (owner.fact) {
        auto& f = hits.facts[owner.index];
        if (!cut && (f.empty() || f.back() != line)) f.push_back(line);
        continue;
      }
      auto& e = (cut ? tight_entries : hits.entries)[owner.index];
      if (line > 0 && !lines.starts_record[line]) e.push_back(NeedleCandidate{line - 1, 0, cut});
      e.push_back(NeedleCandidate{line, at, cut});
    }
  });
  for (size_t i = 0; i < hits.entries.size(); ++i) {
    hits.entries[i].insert(hits.entries[i].end(), tight_entries[i].begin(), tight_entries[i].end());
  }
  // One candidate per line: the first found keeps its offset (as a map's emplace would, without a
  // node per hit), and is marked cut when any needle on that line was found only in the tight join.
  for (auto& e : hits.entries) {
    std::stable_sort(e.begin(), e.end(), [](const NeedleCandidate& a, const NeedleCandidate& b) { return a.line < b.line; });
    size_t kept = 0;
    for (size_t i = 0; i < e.size(); ++i) {
      if (kept > 0 && e[kept - 1].line == e[i].line) {
        e[kept - 1].cut = e[kept - 1].cut || e[i].cut;
      } else {
        e[kept++] = e[i];
      }
    }
    e.resize(kept);
  }
  return hits;
}

std::vector<Occurrence> find_messages(const ErrorCatalogue& catalogue, const LogLines& lines, const NeedleHits& hits) {
  std::vector<Occurrence> all = Matcher(catalogue, lines, hits).run();
  // Stable: an entry's patterns keep their catalogue order on a line, so the first one wins.
  std::stable_sort(all.begin(), all.end(), [](const Occurrence& a, const Occurrence& b) {
    return a.first != b.first ? a.first < b.first : a.entry < b.entry;
  });
  return drop_superseded(std::move(all));
}

}  // namespace cudnnup
