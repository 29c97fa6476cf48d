#include "explain/explain.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <optional>

#include "base/numbers.h"
#include "base/strings.h"
#include "base/version.h"
#include "explain/matcher.h"
#include "explain/needle_scanner.h"
#include "explain/placeholders.h"
#include "facts/cudnn_files.h"
#include "facts/known_archives.h"
#include "facts/rules.h"

namespace cudnnup {
namespace {

constexpr size_t kMaxListedLines = 20;


std::string basename_any(std::string s) {
  while (!s.empty() && (s.back() == '"' || s.back() == '\'')) s.pop_back();
  size_t slash = s.find_last_of("/\\");
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

// "(8, 7, 0)" / "8, 7, 0" -> "8.7.0"; 8907 / 90100 / 7005 -> cuDNN encodings; "8.9.4" unchanged.
std::string normalise_cudnn_version(const std::string& text) {
  if (text.find(',') != std::string::npos) {
    std::string out;
    for (char c : text) {
      if (is_ascii_digit(c)) out += c;
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
  while (end < s.size() && is_ascii_digit(s[end])) ++end;
  return s.substr(pos, end - pos);
}

// CUDA major from a CUDA library name: libcudart.so.11.0 -> 11, cudart64_110.dll -> 11,
// cublasLt64_12.dll -> 12. Only for libraries whose number is the CUDA major.
int cuda_major_from_library(const std::string& name) {
  std::string lower = ascii_lower(name);
  for (const char* base : {"libcudart.so.", "libcublaslt.so.", "libcublas.so.", "libnvrtc.so.", "libnvjitlink.so."}) {
    std::string b(base);
    if (lower.starts_with(b)) return checked_int(leading_digits(lower, b.size()), 0, 9999).value_or(0);
  }
  for (const char* base : {"cudart64_", "cublaslt64_", "cublas64_", "nvrtc64_", "nvjitlink_"}) {
    std::string b(base);
    if (lower.starts_with(b)) {
      int v = checked_int(leading_digits(lower, b.size()), 0, 9999).value_or(0);
      return v >= 100 ? v / 10 : v;
    }
  }
  return 0;
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

// The framework the log comes from, by the names in it (counted in one pass over the lines joined
// by spaces, at most 1000 each); "" when nothing says.
std::string guess_framework(const std::vector<std::string>& lines) {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> hints = {
      {"tensorflow", {"tensorflow", "local_xla", "tf-trt"}},
      {"pytorch", {"torch/", "torch\\", "import torch", "pytorch"}},
      {"onnxruntime", {"onnxruntime"}},
      {"ctranslate2", {"ctranslate2", "faster_whisper", "faster-whisper", "whisperx"}},
      {"jax", {"jaxlib", "jax.", "xlaruntimeerror"}},
      {"paddle", {"paddle"}},
  };
  static const auto [scanner, framework_of] = [] {
    std::vector<std::string> words;
    std::vector<size_t> owner;
    for (size_t f = 0; f < hints.size(); ++f) {
      for (const auto& w : hints[f].second) {
        words.push_back(w);
        owner.push_back(f);
      }
    }
    return std::pair{NeedleScanner(words), owner};
  }();
  std::vector<size_t> count(hints.size(), 0);
  scanner.scan_lines(lines, [&](int word, bool tight, size_t) {
    if (tight) return;
    size_t& c = count[framework_of[word]];
    c = std::min<size_t>(c + 1, 1000);
  });
  size_t best = hints.size(), best_count = 0;
  for (size_t f = 0; f < hints.size(); ++f) {
    if (count[f] > best_count) {
      best = f;
      best_count = count[f];
    }
  }
  return best == hints.size() ? std::string() : hints[best].first;
}

std::string vars_key(const Occurrence& o) {
  std::string key = o.entry->id;
  for (const auto& [k, v] : o.vars) key += '\x1f' + k + '=' + v;
  return key;
}

// What `cudnnup install RELEASE --cuda N` can take: a release NVIDIA published an archive of for
// the message's CUDA major (data/known_archives.json), so a printed command never names a build
// that does not exist. The required release when there is one, else the newest release the
// program accepts (same major, the required minor or newer), else the newest of the major; ""
// when the CUDA major is unknown or the table has no such build (cuDNN 7 and older are not in
// NVIDIA's redistributable index: the fix's `otherwise` sentence is printed instead).
// The releases of known_releases for a platform and CUDA major, read once per process (each call
// matches every archive name with a regex).
const std::vector<Version>& releases_for(bool windows, int cuda) {
  static std::map<std::pair<bool, int>, std::vector<Version>> cache;
  auto [it, fresh] = cache.try_emplace({windows, cuda});
  if (fresh) it->second = known_releases(builtin_known_archives(), windows ? "windows-x86_64" : "linux-x86_64", cuda);
  return it->second;
}

std::string release_for(const Variables& vars) {
  auto cuda = checked_integer(value_of(vars, "cuda_major"), 1, 99);
  if (!cuda) return "";
  bool windows = value_of(vars, "platform") == "windows";
  const std::vector<Version>& releases = releases_for(windows, int(*cuda));
  if (auto required = Version::parse(value_of(vars, "required"))) {
    for (const auto& v : releases) {
      if (required->parts.size() >= 3 && v == required->truncated(3)) return v.str();
    }
    for (const auto& v : releases) {
      if (v.major() == required->major() && v.truncated(2) >= required->truncated(2)) return v.str();
    }
    return "";
  }
  auto major = checked_integer(value_of(vars, "major"), 1, 99);
  for (const auto& v : releases) {
    if (major && v.major() == int(*major)) return v.str();
  }
  return "";
}

// Which builds of a cuDNN major exist, for a fix that cannot name one: the CUDA majors NVIDIA builds
// it for (rules.json's cudnn_cuda_variants), or for cuDNN 7 and older the official archives cudnnup
// knows (their CUDA versions are in the names). Never a build that does not exist.
std::string builds_of(int major) {
  std::string out;
  for (const auto& row : builtin_rules().cuda_variants) {
    bool starts_here = row.first.major() == major, ends_here = row.last.known() && row.last.major() == major;
    if (row.first.major() > major || (row.last.known() && row.last.major() < major)) continue;
    out += (out.empty() ? "" : ", ") + std::string("CUDA ") + std::to_string(row.cuda_major) +
           (starts_here && row.first.truncated(2) != Version{major, 0} ? " from " + row.first.str() : "") +
           (ends_here ? " up to " + row.last.str() : "");
  }
  if (!out.empty()) return "cuDNN " + std::to_string(major) + " is built for " + out + "; give install the release and --cuda";
  std::string legacy;
  for (const auto& [cudnn, cuda] : known_legacy_builds(builtin_known_archives(), major)) {
    legacy += (legacy.empty() ? "" : ", ") + cudnn.str() + " for CUDA " + cuda.str();
  }
  if (!legacy.empty()) return "official cuDNN " + std::to_string(major) + " archives known here: " + legacy + "; NVIDIA's cuDNN archive page has the others";
  return "NVIDIA's cuDNN archive page lists the cuDNN " + std::to_string(major) + " builds by CUDA version";
}

// How the version found at run time relates to the one the program was built with.
std::string direction_of(const Version& required, const Version& found) {
  if (found.major() != required.major()) return found.major() < required.major() ? "older_major" : "newer_major";
  Version r = required.truncated(2), f = found.truncated(2);
  return f < r ? "older" : r < f ? "newer" : "same";
}

// cudnnStatusArchMismatch (a Python wrapper's exception class) -> CUDNN_STATUS_ARCH_MISMATCH.
std::string status_name(const std::string& text) {
  if (!text.starts_with("cudnnStatus")) return ascii_upper(text);
  std::string out = "CUDNN_STATUS";
  for (char c : text.substr(11)) {
    if (c >= 'A' && c <= 'Z') out += '_';
    out += ascii_upper(std::string(1, c));
  }
  return out;
}

void derive_library(Variables& vars, const std::function<void(const std::string&, const std::string&)>& set_if_absent) {
  auto it = vars.find("lib");
  if (it == vars.end()) return;
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

// The library the loader reports missing, when it is not the one the program asked for
// ("Could not load dynamic library 'libcusolver.so.11'; dlerror: libnvJitLink.so.12: ..."):
// the dependency is what is missing.
void derive_dependency(Variables& vars, const std::function<void(const std::string&, const std::string&)>& set_if_absent) {
  std::string missing = basename_any(value_of(vars, "missing"));
  if (missing.empty() || ascii_lower(missing) == ascii_lower(value_of(vars, "lib"))) return;
  vars["dependency"] = missing;
  if (int cuda = cuda_major_from_library(missing)) set_if_absent("cuda_major", std::to_string(cuda));
}

}  // namespace

bool ExplainReport::has_problem() const {
  return std::any_of(matches.begin(), matches.end(),
                     [](const Explanation& e) { return e.entry->severity != MessageSeverity::kHarmless; });
}

std::vector<std::string> normalise_log_lines(std::string_view text) { return normalise_log(text).text; }

void derive_variables(Variables& vars, const ErrorCatalogue& catalogue) {
  auto set_if_absent = [&vars](const std::string& k, const std::string& v) {
    if (!v.empty() && (vars.find(k) == vars.end() || vars[k].empty())) vars[k] = v;
  };
  derive_library(vars, set_if_absent);
  derive_dependency(vars, set_if_absent);
  for (const char* key : {"required", "found"}) {
    if (auto it = vars.find(key); it != vars.end()) it->second = normalise_cudnn_version(it->second);
  }
  auto required = Version::parse(value_of(vars, "required"));
  if (required) set_if_absent("major", std::to_string(required->major()));
  if (auto found = Version::parse(value_of(vars, "found")); required && found) set_if_absent("direction", direction_of(*required, *found));
  set_if_absent("release", release_for(vars));
  if (auto major = checked_integer(value_of(vars, "major"), 1, 99)) {
    static std::map<int, std::string> builds;  // per process: builds_of reads the archive table
    auto [it, fresh] = builds.try_emplace(int(*major));
    if (fresh) it->second = builds_of(int(*major));
    set_if_absent("builds", it->second);
    // `cudnnup use 9` only where NVIDIA builds the major for a CUDA major (8 and later): not 7.
    const auto& variants = builtin_rules().cuda_variants;
    bool built = std::any_of(variants.begin(), variants.end(), [&major](const CudaVariantRange& r) {
      return r.first.major() <= *major && (!r.last.known() || r.last.major() >= *major);
    });
    if (built) set_if_absent("installable_major", std::to_string(*major));
  }
  if (auto it = vars.find("status"); it != vars.end()) {
    std::string name = status_name(it->second);
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

namespace {

Explanation explain_occurrence(const Occurrence& occ, const ErrorCatalogue& catalogue, const LogFacts& facts,
                               const MachineView& machine) {
  Explanation e;
  e.entry = occ.entry;
  e.matched_text = occ.text;
  e.variables = occ.vars;
  e.meaning = fill(occ.entry->meaning, e.variables);
  e.causes = rank_causes(*occ.entry, catalogue, e.variables, facts, machine);
  // Where the machine shows the first cause, its fixes come first (a stable partition: the
  // catalogue's order otherwise).
  const std::string shown = !e.causes.empty() && e.causes[0].verdict == Verdict::kHolds ? e.causes[0].check : "";
  std::vector<const FixSpec*> specs;
  for (const auto& f : occ.entry->fixes) {
    if (all_hold(f.when, e.variables, facts)) specs.push_back(&f);
  }
  std::stable_partition(specs.begin(), specs.end(), [&shown](const FixSpec* f) {
    return !shown.empty() && std::find(f->for_checks.begin(), f->for_checks.end(), shown) != f->for_checks.end();
  });
  for (const FixSpec* f : specs) {
    FilledFix ff;
    ff.text = fill(f->text, e.variables);
    ff.linux_steps = fill_steps(f->linux_steps, e.variables);
    ff.windows_steps = fill_steps(f->windows_steps, e.variables);
    e.fixes.push_back(std::move(ff));
  }
  return e;
}

}  // namespace

namespace {

// Occurrences with the same captured values, explained once: a log that repeats a message
// thousands of times is derived and ranked once per distinct message.
struct Group {
  Occurrence first;
  std::vector<int> lines;  // 0-based first line of every occurrence
  std::vector<std::pair<const CatalogueEntry*, int>> folded;
};

std::vector<Group> group_occurrences(std::vector<Occurrence> occurrences) {
  std::vector<Group> groups;
  std::map<std::string, size_t> index;
  for (auto& occ : occurrences) {
    auto [it, fresh] = index.emplace(vars_key(occ), groups.size());
    if (fresh) groups.push_back(Group{occ, {}, {}});
    Group& g = groups[it->second];
    g.lines.push_back(occ.first);
    g.folded.insert(g.folded.end(), occ.folded.begin(), occ.folded.end());
  }
  return groups;
}

void add_group(Explanation& e, const Group& g) {
  e.occurrences += int(g.lines.size());
  for (int line : g.lines) e.lines.push_back(line + 1);
  std::sort(e.lines.begin(), e.lines.end());
  if (e.lines.size() > kMaxListedLines) e.lines.resize(kMaxListedLines);
  for (const auto& [entry, line] : g.folded) e.folded.emplace_back(entry, line + 1);
}

}  // namespace

ExplainReport explain_text(std::string_view text, const ErrorCatalogue& catalogue, const MachineView& machine) {
  ExplainReport report;
  LogLines lines = normalise_log(text);
  report.lines_read = int(lines.size());
  NeedleHits hits = find_needles(catalogue, lines);
  std::vector<Group> groups = group_occurrences(find_messages(catalogue, lines, hits));

  const std::string framework = groups.empty() ? std::string() : guess_framework(lines.text);
  std::vector<std::pair<std::string, std::string>> message_facts;
  for (auto& g : groups) {
    Variables& vars = g.first.vars;
    derive_variables(vars, catalogue);
    if (!g.first.entry->framework.empty()) vars.emplace("framework", g.first.entry->framework);
    else if (!framework.empty()) vars.emplace("framework", framework);
    // A Windows or Linux library name in a message says where the log comes from.
    if (auto p = vars.find("platform"); p != vars.end()) message_facts.emplace_back("platform", p->second);
  }
  report.facts = read_log_facts(lines, hits.facts, catalogue, message_facts);

  // A log from another machine is judged by what it says, not by this machine.
  MachineView view = machine;
  if (machine.report) report.machine_set_aside = machine_contradiction(report.facts, *machine.report);
  if (!report.machine_set_aside.empty()) view = MachineView{};

  // The distinct messages explained: the first kMaxExplanations, errors and warnings first.
  std::set<std::string> explained;
  for (bool harmless : {false, true}) {
    for (const auto& g : groups) {
      if ((g.first.entry->severity == MessageSeverity::kHarmless) != harmless) continue;
      if (explained.size() < kMaxExplanations) explained.insert(vars_key(g.first));
    }
  }
  std::map<std::string, size_t> by_key;
  constexpr size_t kLeftOut = SIZE_MAX;
  for (const auto& g : groups) {
    const std::string key = vars_key(g.first);
    auto [it, fresh] = by_key.emplace(key, report.matches.size());
    if (fresh && !explained.count(key)) {
      it->second = kLeftOut;
      ++report.matches_left_out;
    }
    if (it->second == kLeftOut) continue;
    if (fresh) {
      // A Windows DLL's message in a log that also shows Linux libraries (so the log as a whole
      // has no platform) is still not about this Linux machine, nor the other way round.
      std::string aside = report.machine_set_aside;
      if (aside.empty() && machine.report) {
        aside = platform_contradiction("this message", value_of(g.first.vars, "platform"), *machine.report);
      }
      report.matches.push_back(explain_occurrence(g.first, catalogue, report.facts, aside.empty() ? view : MachineView{}));
      if (!aside.empty()) {
        for (auto& c : report.matches.back().causes) c.evidence = "Not checked here: " + aside + ".";
        if (report.machine_set_aside.empty()) report.matches.back().machine_set_aside = aside;
      }
    }
    add_group(report.matches[it->second], g);
  }
  return report;
}

}  // namespace cudnnup
