#include "explain/explain.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <optional>

#include "facts/cudnn_files.h"
#include "facts/known_archives.h"
#include "base/version.h"
#include "base/strings.h"
#include "base/numbers.h"

namespace cudnnup {
namespace {

// Lines longer than this are searched in a slice around the needle: libstdc++'s std::regex
// backtracks recursively, so very long inputs cost time and stack.
constexpr size_t kMaxWindowLine = 1500;
constexpr int kContinuationLines = 4;  // a wrapped or multi-line message may continue on the next four lines
constexpr int kFollowReach = 3;        // a "follows" message this many lines after its cause is dropped
constexpr size_t kMaxListedLines = 20;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }


std::string strip_ansi(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      size_t j = i + 2;
      while (j < text.size() && !(text[j] >= '@' && text[j] <= '~')) ++j;
      i = j;  // skips the final byte too
      continue;
    }
    out += text[i];
  }
  return out;
}

// "E0000 00:00:1751448150.986970   10148 cuda_dnn.cc:8579] ", "2023-10-09 13:36:23.355516: E
// tensorflow/...cc:9342] ", "2024-.. [E:onnxruntime:Default, provider_bridge_ort.cc:1745 ...] ",
// "11:10:31.475 [error] ": a line that starts like a timestamp or a glog level and has "] " early.
std::string strip_log_prefix(std::string line) {
  for (int round = 0; round < 2 && line.size() > 2; ++round) {
    bool looks_like_prefix = is_digit(line[0]) ||
                             (std::string("IWEF").find(line[0]) != std::string::npos && is_digit(line[1])) ||
                             (line[0] == '[' && is_digit(line[1]));
    if (!looks_like_prefix) break;
    size_t end = line.find("] ");
    if (end == std::string::npos || end > 200) break;
    line.erase(0, end + 2);
  }
  return line;
}

std::string clean_line(std::string line) {
  size_t start = 0;
  while (start < line.size() && (is_space(line[start]) || line[start] == '>')) ++start;  // indentation, "> " quotes
  line.erase(0, start);
  line = strip_log_prefix(std::move(line));
  while (!line.empty() && is_space(line.back())) line.pop_back();
  return line;
}

std::string collapse_spaces(std::string_view s, size_t max_len) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (is_space(c) || c == '\n') {
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

std::string basename_any(std::string s) {
  while (!s.empty() && (s.back() == '"' || s.back() == '\'')) s.pop_back();
  size_t slash = s.find_last_of("/\\");
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

// "(8, 7, 0)" / "8, 7, 0" -> "8.7.0"; 8907 / 90100 / 7005 -> cuDNN encodings; "8.9.4" unchanged.
std::string normalise_cudnn_version(const std::string& text) {
  std::string digits;
  bool commas = text.find(',') != std::string::npos;
  if (commas) {
    std::string out;
    for (char c : text) {
      if (is_digit(c)) out += c;
      else if (c == ',') out += '.';
    }
    return out;
  }
  if (all_digits(text) && text.size() >= 4 && text.size() <= 6) {
    return decode_cudnn_version_number(*checked_integer(text, 0, 999999)).str();
  }
  return text;
}

// The run of digits at `pos` ("12" of "libcudart.so.12.0"); a run too long for a number is
// refused by checked_int, so a name from a log cannot overflow it.
std::string_view leading_digits(std::string_view s, size_t pos) {
  size_t end = pos;
  while (end < s.size() && is_digit(s[end])) ++end;
  return s.substr(pos, end - pos);
}

// CUDA major from a CUDA library name: libcudart.so.11.0 -> 11, cudart64_110.dll -> 11,
// cublasLt64_12.dll -> 12. Only for libraries whose number is the CUDA major.
int cuda_major_from_library(const std::string& name) {
  std::string lower = ascii_lower(name);
  for (const char* base : {"libcudart.so.", "libcublaslt.so.", "libcublas.so.", "libnvrtc.so."}) {
    std::string b(base);
    if (lower.starts_with(b)) return checked_int(leading_digits(lower, b.size()), 0, 9999).value_or(0);
  }
  for (const char* base : {"cudart64_", "cublaslt64_", "cublas64_", "nvrtc64_"}) {
    std::string b(base);
    if (lower.starts_with(b)) {
      int v = checked_int(leading_digits(lower, b.size()), 0, 9999).value_or(0);
      return v >= 100 ? v / 10 : v;
    }
  }
  return 0;
}

std::string fill(const std::string& templ, const Variables& vars) {
  std::string out;
  for (size_t i = 0; i < templ.size(); ++i) {
    if (templ[i] == '{') {
      size_t close = templ.find('}', i);
      if (close != std::string::npos) {
        std::string name = templ.substr(i + 1, close - i - 1);
        bool ident = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        });
        if (ident) {
          auto it = vars.find(name);
          out += (it != vars.end() && !it->second.empty()) ? it->second : "<" + name + ">";
          i = close;
          continue;
        }
      }
    }
    out += templ[i];
  }
  return out;
}

// `templ` filled in, or nullopt when it names a variable the message did not give: a command is
// printed whole or not at all, never with a placeholder in it.
std::optional<std::string> fill_all(const std::string& templ, const Variables& vars) {
  std::string filled = fill(templ, vars);
  for (size_t open = templ.find('{'); open != std::string::npos; open = templ.find('{', open + 1)) {
    size_t close = templ.find('}', open);
    if (close == std::string::npos) break;
    std::string name = templ.substr(open + 1, close - open - 1);
    bool ident = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
    auto it = vars.find(name);
    if (ident && (it == vars.end() || it->second.empty())) return std::nullopt;
  }
  return filled;
}

std::optional<FixStep> fill_step(FixStep step, const Variables& vars) {
  for (std::string* s : {&step.name, &step.value, &step.text, &step.note}) {
    auto f = fill_all(*s, vars);
    if (!f) return std::nullopt;
    *s = *f;
  }
  for (auto& word : step.argv) {
    auto f = fill_all(word, vars);
    if (!f) return std::nullopt;
    word = *f;
  }
  return step;
}

std::vector<FixStep> fill_steps(const std::vector<CatalogueStep>& steps, const Variables& vars) {
  std::vector<FixStep> out;
  for (const auto& s : steps) {
    if (auto f = fill_step(s.step, vars)) {
      out.push_back(std::move(*f));
    } else if (auto text = fill_all(s.otherwise, vars); text && !text->empty()) {
      out.push_back(fix::step(*text));
    }
  }
  return out;
}

// The framework the log comes from, by the names in it; "" when nothing says.
std::string guess_framework(const std::string& lower_text) {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> hints = {
      {"tensorflow", {"tensorflow", "local_xla", "tf-trt"}},
      {"pytorch", {"torch/", "torch\\", "import torch", "pytorch"}},
      {"onnxruntime", {"onnxruntime"}},
      {"ctranslate2", {"ctranslate2", "faster_whisper", "faster-whisper", "whisperx"}},
      {"jax", {"jaxlib", "jax.", "xlaruntimeerror"}},
      {"paddle", {"paddle"}},
  };
  std::string best;
  size_t best_count = 0;
  for (const auto& [name, words] : hints) {
    size_t count = 0;
    for (const auto& w : words) {
      for (size_t pos = lower_text.find(w); pos != std::string::npos && count < 1000; pos = lower_text.find(w, pos + 1)) ++count;
    }
    if (count > best_count) {
      best = name;
      best_count = count;
    }
  }
  return best;
}

struct Occurrence {
  const CatalogueEntry* entry = nullptr;
  int first = 0, last = 0;  // 0-based line indexes
  std::string text;
  Variables vars;
};

bool overlaps(const Occurrence& a, const Occurrence& b, int reach) {
  return a.first <= b.last + reach && b.first <= a.last + reach;
}

class Matcher {
 public:
  Matcher(const ErrorCatalogue& catalogue, const std::vector<std::string>& lines)
      : catalogue_(catalogue), lines_(lines) {
    // Two lower-case copies of the text: lines joined by a space (a message soft-wrapped at a
    // space) and joined by nothing (a terminal that cut a word: "no CUDA-\ncapable").
    for (auto* hay : {&spaced_, &tight_}) {
      hay->starts.reserve(lines.size() + 1);
      for (const auto& l : lines) {
        hay->starts.push_back(hay->text.size());
        hay->text += ascii_lower(l);
        if (hay == &spaced_) hay->text += ' ';
      }
      hay->starts.push_back(hay->text.size());
    }
  }

  const std::string& lower_text() const { return spaced_.text; }

  std::vector<Occurrence> run() {
    std::vector<Occurrence> out;
    for (const auto& entry : catalogue_.entries) {
      // Lines where a needle starts, and the line before (the message may start there and wrap).
      std::map<int, size_t> candidates;  // line -> offset of the needle in it (or 0)
      for (const auto& needle : entry.needles) {
        // Boyer-Moore-Horspool: needles are long and their first letters common, so this is
        // several times faster than string::find on a 1 MB log (bench/explain_bench.py).
        const std::boyer_moore_horspool_searcher searcher(needle.begin(), needle.end());
        for (const Haystack* hay : {&spaced_, &tight_}) {
          auto from = hay->text.begin();
          while (true) {
            auto hit = std::search(from, hay->text.end(), searcher);
            if (hit == hay->text.end()) break;
            size_t pos = size_t(hit - hay->text.begin());
            int line = int(std::upper_bound(hay->starts.begin(), hay->starts.end(), pos) - hay->starts.begin()) - 1;
            candidates.emplace(line, std::min(pos - hay->starts[line], lines_[line].size()));
            if (line > 0) candidates.emplace(line - 1, 0);
            from = hay->text.begin() + std::ptrdiff_t(hay->starts[line + 1]);
          }
        }
      }
      for (const auto& [line, needle_at] : candidates) match_at(entry, line, needle_at, out);
    }
    return out;
  }

 private:
  void match_at(const CatalogueEntry& entry, int line, size_t needle_at, std::vector<Occurrence>& out) {
    const std::string& first = lines_[line];
    if (first.size() > kMaxWindowLine) {
      size_t from = needle_at > 300 ? needle_at - 300 : 0;
      std::string slice = first.substr(from, kMaxWindowLine);
      search(entry, line, slice, {}, slice.size(), "", out);
      return;
    }
    std::vector<int> more;
    for (int k = 1; k <= kContinuationLines && line + k < int(lines_.size()); ++k) {
      if (lines_[line + k].size() > kMaxWindowLine) break;
      more.push_back(line + k);
    }
    // Joined with a space (a soft-wrapped message), then with nothing (a terminal wrapped it
    // mid-word, "no CUDA-\ncapable").
    for (const char* joiner : {" ", ""}) {
      std::string window = first;
      for (int k : more) window += joiner + lines_[k];
      if (search(entry, line, window, more, first.size(), joiner, out)) return;
      if (more.empty()) return;
    }
  }

  bool search(const CatalogueEntry& entry, int line, const std::string& window, const std::vector<int>& more,
              size_t first_len, const std::string& joiner, std::vector<Occurrence>& out) {
    bool found = false;
    for (const auto& pattern : entry.patterns) {
      for (std::sregex_iterator it(window.begin(), window.end(), pattern.regex), end; it != end; ++it) {
        const std::smatch& m = *it;
        if (size_t(m.position(0)) >= first_len) break;  // starts on a later line: found from there
        Occurrence occ;
        occ.entry = &entry;
        occ.first = line;
        size_t end_pos = size_t(m.position(0) + m.length(0));
        occ.last = line;
        size_t covered = first_len;
        for (int k : more) {
          if (end_pos <= covered) break;
          covered += joiner.size() + lines_[k].size();
          occ.last = k;
        }
        // Show whole lines (the message with its context on the line), unless they are long.
        std::string whole = first_len == lines_[line].size() ? lines_[line] : std::string();
        for (int k : more) {
          if (k > occ.last) break;
          whole += " " + lines_[k];
        }
        occ.text = !whole.empty() && whole.size() <= 400 ? collapse_spaces(whole, 400) : collapse_spaces(m.str(0), 400);
        for (size_t g = 1; g < pattern.group_names.size() && g < m.size(); ++g) {
          if (pattern.group_names[g].empty() || !m[g].matched) continue;
          occ.vars.emplace(pattern.group_names[g], collapse_spaces(m[g].str(), 300));
        }
        out.push_back(std::move(occ));
        found = true;
        if (m.length(0) == 0) break;
      }
    }
    return found;
  }

  struct Haystack {
    std::string text;
    std::vector<size_t> starts;  // offset of each line in text, plus the end
  };
  const ErrorCatalogue& catalogue_;
  const std::vector<std::string>& lines_;
  Haystack spaced_, tight_;
};

// Specific entries replace the generic ones and the entries they override on the same lines.
// `all` is sorted by first line, so only neighbours within a few lines need comparing (a log with
// thousands of repeated messages stays linear).
std::vector<Occurrence> drop_superseded(std::vector<Occurrence> all) {
  const int reach = kContinuationLines + kFollowReach;
  std::vector<bool> drop(all.size(), false);
  for (size_t i = 0; i < all.size(); ++i) {
    const Occurrence& o = all[i];
    size_t lo = i;
    while (lo > 0 && all[lo - 1].first >= o.first - reach) --lo;
    for (size_t j = lo; j < all.size() && all[j].first <= o.last + reach && !drop[i]; ++j) {
      if (i == j) continue;
      const Occurrence& p = all[j];
      if (p.entry == o.entry) {
        // The same entry twice on the same line (two of its patterns): keep the first.
        if (j < i && p.first == o.first) drop[i] = true;
        continue;
      }
      const auto& ov = p.entry->overrides;
      if (std::find(ov.begin(), ov.end(), o.entry->id) != ov.end() && overlaps(o, p, 0)) drop[i] = true;
      if (o.entry->generic && !p.entry->generic && p.entry->severity != MessageSeverity::kHarmless &&
          overlaps(o, p, 0)) {
        drop[i] = true;
      }
      // A generic message next to a specific one that captured the same values adds nothing
      // (Paddle prints its CUDNN_STATUS twice on adjacent lines).
      if (o.entry->generic && !p.entry->generic && !o.vars.empty() && overlaps(o, p, kFollowReach) &&
          std::all_of(o.vars.begin(), o.vars.end(), [&p](const auto& kv) {
            auto it = p.vars.find(kv.first);
            return it != p.vars.end() && ascii_lower(it->second) == ascii_lower(kv.second);
          })) {
        drop[i] = true;
      }
      // A consequence printed just after its cause ("Invalid handle" after "Unable to load").
      const auto& fol = o.entry->follows;
      if (std::find(fol.begin(), fol.end(), p.entry->id) != fol.end() && p.first <= o.first &&
          p.last >= o.first - kFollowReach) {
        drop[i] = true;
      }
    }
  }
  std::vector<Occurrence> kept;
  for (size_t i = 0; i < all.size(); ++i) {
    if (!drop[i]) kept.push_back(std::move(all[i]));
  }
  return kept;
}

std::vector<RankedCause> rank_causes(const CatalogueEntry& entry, const Variables& vars, const MachineView& machine) {
  std::vector<RankedCause> out;
  for (const auto& cause : entry.causes) {
    bool applies = true;
    for (const auto& [name, re] : cause.when) {
      auto it = vars.find(name);
      if (it == vars.end() || !std::regex_search(it->second, re)) applies = false;
    }
    if (!applies) continue;
    CheckResult r = run_check(cause.check, machine, vars, cause.params);
    RankedCause rc;
    rc.text = fill(cause.text, vars);
    rc.check = cause.check;
    rc.verdict = r.verdict;
    rc.evidence = r.evidence;
    rc.score = cause.weight + (r.verdict == Verdict::kHolds ? 1000 : r.verdict == Verdict::kDoesNotHold ? -1000 : 0);
    out.push_back(std::move(rc));
  }
  std::stable_sort(out.begin(), out.end(), [](const RankedCause& a, const RankedCause& b) { return a.score > b.score; });
  return out;
}

std::string vars_key(const Occurrence& o) {
  std::string key = o.entry->id;
  for (const auto& [k, v] : o.vars) key += '\x1f' + k + '=' + v;
  return key;
}

}  // namespace

bool ExplainReport::has_problem() const {
  return std::any_of(matches.begin(), matches.end(),
                     [](const Explanation& e) { return e.entry->severity != MessageSeverity::kHarmless; });
}

std::vector<std::string> normalise_log_lines(std::string_view text) {
  std::string plain = strip_ansi(text);
  std::vector<std::string> lines;
  std::string current;
  for (size_t i = 0; i < plain.size(); ++i) {
    char c = plain[i];
    if (c == '\r' || c == '\n') {
      lines.push_back(clean_line(std::move(current)));
      current.clear();
      if (c == '\r' && i + 1 < plain.size() && plain[i + 1] == '\n') ++i;
      continue;
    }
    current += c;
  }
  if (!current.empty()) lines.push_back(clean_line(std::move(current)));
  return lines;
}

namespace {

// What `cudnnup install RELEASE --cuda N` can take: the required version when it names a release
// (three parts), else the newest release of the major for the message's CUDA major that cudnnup
// knows an official archive of; "" when neither is known.
std::string release_for(const Variables& vars) {
  auto get = [&vars](const char* k) { auto it = vars.find(k); return it == vars.end() ? std::string() : it->second; };
  if (auto v = Version::parse(get("required")); v && v->parts.size() >= 3) return v->truncated(3).str();
  auto major = checked_integer(get("major"), 1, 99);
  auto cuda = checked_integer(get("cuda_major"), 1, 99);
  if (!major || !cuda) return "";
  auto v = newest_known_release(builtin_known_archives(), int(*major), int(*cuda), get("platform") == "windows");
  return v ? v->str() : "";
}

}  // namespace

void derive_variables(Variables& vars, const ErrorCatalogue& catalogue) {
  auto set_if_absent = [&vars](const std::string& k, const std::string& v) {
    if (!v.empty() && (vars.find(k) == vars.end() || vars[k].empty())) vars[k] = v;
  };
  if (auto it = vars.find("lib"); it != vars.end()) {
    std::string name = basename_any(it->second);
    it->second = name;
    if (auto parsed = parse_cudnn_library_name(name)) {
      set_if_absent("component", parsed->component);
      if (parsed->major) set_if_absent("major", std::to_string(parsed->major));
      if (parsed->version.known()) set_if_absent("lib_version", parsed->version.str());
      set_if_absent("platform", parsed->windows ? "windows" : "linux");
    } else if (int cuda = cuda_major_from_library(name)) {
      set_if_absent("cuda_major", std::to_string(cuda));
    }
  }
  for (const char* key : {"required", "found"}) {
    if (auto it = vars.find(key); it != vars.end()) it->second = normalise_cudnn_version(it->second);
  }
  if (auto it = vars.find("required"); it != vars.end()) {
    if (auto v = Version::parse(it->second)) set_if_absent("major", std::to_string(v->major()));
  }
  set_if_absent("release", release_for(vars));
  if (auto it = vars.find("status"); it != vars.end()) {
    std::string name = ascii_upper(it->second);
    it->second = name;
    const CudnnStatusInfo* s = catalogue.status(name);
    set_if_absent("status_meaning", s ? s->meaning : "a status that is not in the cuDNN 8.x or 9.x headers");
    if (s) {
      std::string codes;
      if (s->code8) codes += "8.x: " + std::to_string(*s->code8);
      if (s->code9) codes += std::string(codes.empty() ? "" : ", ") + "9.x: " + std::to_string(*s->code9);
      set_if_absent("status_codes", codes);
    }
  }
  if (auto it = vars.find("driver_cuda"); it != vars.end()) {
    std::string d = it->second;
    if (all_digits(d) && d.size() <= 6) {
      set_if_absent("driver_cuda_version", decode_cuda_version_number(*checked_integer(d, 0, 999999)).str());
    }
  }
}

ExplainReport explain_text(std::string_view text, const ErrorCatalogue& catalogue, const MachineView& machine) {
  ExplainReport report;
  std::vector<std::string> lines = normalise_log_lines(text);
  report.lines_read = int(lines.size());
  Matcher matcher(catalogue, lines);
  std::vector<Occurrence> occurrences = matcher.run();
  std::sort(occurrences.begin(), occurrences.end(), [](const Occurrence& a, const Occurrence& b) {
    return a.first != b.first ? a.first < b.first : a.entry < b.entry;
  });
  occurrences = drop_superseded(std::move(occurrences));

  const std::string framework = guess_framework(matcher.lower_text());
  std::map<std::string, size_t> by_key;
  for (auto& occ : occurrences) {
    derive_variables(occ.vars, catalogue);
    if (!occ.entry->framework.empty()) occ.vars.emplace("framework", occ.entry->framework);
    else if (!framework.empty()) occ.vars.emplace("framework", framework);
    std::string key = vars_key(occ);
    auto it = by_key.find(key);
    if (it != by_key.end()) {
      Explanation& e = report.matches[it->second];
      ++e.occurrences;
      if (e.lines.size() < kMaxListedLines) e.lines.push_back(occ.first + 1);
      continue;
    }
    Explanation e;
    e.entry = occ.entry;
    e.matched_text = occ.text;
    e.lines.push_back(occ.first + 1);
    e.occurrences = 1;
    e.variables = occ.vars;
    e.meaning = fill(occ.entry->meaning, e.variables);
    e.causes = rank_causes(*occ.entry, e.variables, machine);
    for (const auto& f : occ.entry->fixes) {
      FilledFix ff;
      ff.text = fill(f.text, e.variables);
      ff.linux_steps = fill_steps(f.linux_steps, e.variables);
      ff.windows_steps = fill_steps(f.windows_steps, e.variables);
      e.fixes.push_back(std::move(ff));
    }
    by_key[key] = report.matches.size();
    report.matches.push_back(std::move(e));
  }
  return report;
}

}  // namespace cudnnup
