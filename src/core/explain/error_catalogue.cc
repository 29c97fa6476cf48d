#include "explain/error_catalogue.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <nlohmann/json.hpp>

#include "explain/explain_checks.h"
#include "explain/prefix_search.h"
#include "base/json_reader.h"
#include "base/strings.h"

extern const char embedded_error_catalogue_json[];
extern const unsigned long long embedded_error_catalogue_json_size;

namespace cudnnup {
namespace {

using nlohmann::json;

constexpr auto kRegexFlags = std::regex::ECMAScript | std::regex::icase | std::regex::optimize;

std::string string_field(const json& row, const char* key) {
  return row.is_object() && row.contains(key) && row[key].is_string() ? row[key].get<std::string>() : std::string();
}

// The catalogue is data compiled into the binary; a wrongly typed field reads as absent (and the
// tests of the embedded file catch it) rather than throwing.
int int_field(const json& row, const char* key, int fallback) {
  if (!row.is_object() || !row.contains(key) || !row[key].is_number_integer()) return fallback;
  auto v = row[key].get<long long>();
  return v < INT_MIN || v > INT_MAX ? fallback : static_cast<int>(v);
}

bool bool_field(const json& row, const char* key, bool fallback) {
  return row.is_object() && row.contains(key) && row[key].is_boolean() ? row[key].get<bool>() : fallback;
}

const json& array_field(const json& row, const char* key) {
  static const json kEmpty = json::array();
  return row.is_object() && row.contains(key) && row[key].is_array() ? row[key] : kEmpty;
}

std::vector<std::string> string_list(const json& row, const char* key) {
  std::vector<std::string> out;
  if (!row.is_object() || !row.contains(key) || !row[key].is_array()) return out;
  for (const auto& v : row[key]) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}


// A fix's steps for one OS: an array of step objects (base/fix.h's data form).
Result<std::vector<CatalogueStep>> fix_steps(const json& fix, const char* os, const std::string& where) {
  std::vector<CatalogueStep> out;
  if (!fix.contains(os)) return out;
  if (!fix[os].is_array()) return make_error(ErrorCode::kCorrupt, where + ": fix '" + os + "' must be an array of steps");
  for (const auto& item : fix[os]) {
    JsonReader reader(where + ": fix '" + os + "'");
    if (!item.is_object()) {
      return make_error(ErrorCode::kCorrupt, where + ": a fix step must be an object such as {\"cudnnup\": [\"doctor\"]}, not " +
                                                 item.dump());
    }
    CatalogueStep step;
    json plain = item;
    if (plain.contains("otherwise")) {
      if (!plain["otherwise"].is_string()) return make_error(ErrorCode::kCorrupt, where + ": 'otherwise' must be a string");
      step.otherwise = plain["otherwise"].get<std::string>();
      plain.erase("otherwise");
    }
    step.step = fix_step_from_json(reader.read_object(plain));
    if (!reader.ok()) return reader.status().error();
    out.push_back(std::move(step));
  }
  return out;
}

Error data_error(const std::string& origin, const std::string& where, const std::string& what) {
  return make_error(ErrorCode::kCorrupt, origin + ": " + where + ": " + what, origin);
}

// {"name": "regex or <N / >=N", ...}: every test must hold.
Result<std::vector<Condition>> conditions(const json& row, const char* key, const std::string& where) {
  std::vector<Condition> out;
  if (!row.is_object() || !row.contains(key)) return out;
  if (!row[key].is_object()) return make_error(ErrorCode::kCorrupt, where + ": '" + key + "' must be an object");
  for (const auto& [name, test] : row[key].items()) {
    if (!test.is_string()) return make_error(ErrorCode::kCorrupt, where + ": '" + key + "' values must be strings");
    auto c = compile_condition(name, test.get<std::string>());
    if (!c) return make_error(ErrorCode::kCorrupt, where + ": " + c.error().message);
    out.push_back(std::move(*c));
  }
  return out;
}

Result<std::vector<FactSpec>> fact_specs(const json& doc, const std::string& origin) {
  std::vector<FactSpec> out;
  for (const auto& row : array_field(doc, "log_facts")) {
    FactSpec f;
    f.id = string_field(row, "id");
    const std::string where = "log fact '" + f.id + "'";
    for (auto& n : string_list(row, "needles")) f.needles.push_back(ascii_lower(n));
    auto pattern = translate_pattern(string_field(row, "pattern"));
    if (f.id.empty() || f.needles.empty() || std::count(f.needles.begin(), f.needles.end(), "") || !pattern) {
      return data_error(origin, where, pattern ? "needs an id, needles and a pattern" : pattern.error().message);
    }
    f.pattern = std::move(*pattern);
    if (row.contains("set") && row["set"].is_object()) {
      for (const auto& [k, v] : row["set"].items()) {
        if (v.is_string()) f.set[k] = v.get<std::string>();
      }
    }
    out.push_back(std::move(f));
  }
  return out;
}

Result<std::map<std::string, EvidenceRule, std::less<>>> evidence_rules(const json& doc, const std::string& origin) {
  std::map<std::string, EvidenceRule, std::less<>> out;
  if (!doc.contains("evidence") || !doc["evidence"].is_object()) return out;
  for (const auto& [id, row] : doc["evidence"].items()) {
    EvidenceRule r;
    r.id = id;
    const std::string where = "evidence '" + id + "'";
    auto when = conditions(row, "when", origin + ": " + where);
    if (!when) return when.error();
    r.when = std::move(*when);
    r.says = string_field(row, "says");
    if (r.when.empty() || r.says.empty()) return data_error(origin, where, "needs when and says");
    out.emplace(id, std::move(r));
  }
  return out;
}

}  // namespace

const char* message_severity_name(MessageSeverity s) {
  switch (s) {
    case MessageSeverity::kHarmless: return "harmless";
    case MessageSeverity::kWarning: return "warning";
    case MessageSeverity::kError: return "error";
  }
  return "error";
}

Result<Condition> compile_condition(const std::string& name, const std::string& source) {
  Condition c;
  c.name = name;
  c.source = source;
  static const std::pair<const char*, Condition::Op> kOps[] = {{"<=", Condition::Op::kLessOrEqual},
                                                              {">=", Condition::Op::kGreaterOrEqual},
                                                              {"<", Condition::Op::kLess},
                                                              {">", Condition::Op::kGreater}};
  for (const auto& [text, op] : kOps) {
    if (!source.starts_with(text)) continue;
    std::string number = source.substr(std::string(text).size());
    char* end = nullptr;
    c.number = std::strtod(number.c_str(), &end);
    if (number.empty() || end != number.c_str() + number.size()) {
      return make_error(ErrorCode::kCorrupt, "'" + name + "': '" + source + "' compares with something that is not a number");
    }
    c.op = op;
    return c;
  }
  c.regex = LazyRegex(source, std::string::npos);
  return c;
}

LazyRegex::LazyRegex(std::string source, size_t groups) {
  state_->source = std::move(source);
  state_->groups = groups;
}

const CatalogueRegex* LazyRegex::get() const {
  State& st = *state_;
  if (!st.tried) {
    st.tried = true;
    try {
      auto re = std::make_unique<CatalogueRegex>(st.source, kRegexFlags);
      if (st.groups == std::string::npos || re->mark_count() + 1 == st.groups) st.compiled = std::move(re);
    } catch (const std::regex_error&) {
      // left null: a pattern that does not compile matches nothing (the tests compile them all)
    }
  }
  return st.compiled.get();
}

Result<CompiledPattern> translate_pattern(const std::string& source) {
  CompiledPattern out;
  out.source = source;
  out.group_names.push_back("");  // group 0: the whole match
  std::string translated;
  translated.reserve(source.size());
  bool in_class = false;
  for (size_t i = 0; i < source.size(); ++i) {
    char c = source[i];
    if (c == '\\') {  // an escape: copy it and the next character untouched
      translated += c;
      if (i + 1 < source.size()) translated += source[++i];
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      translated += c;
      continue;
    }
    if (c == '[') {
      in_class = true;
      translated += c;
      if (i + 1 < source.size() && source[i + 1] == '^') translated += source[++i];
      if (i + 1 < source.size() && source[i + 1] == ']') translated += source[++i];  // literal ] first
      continue;
    }
    if (c == '(') {
      if (i + 1 < source.size() && source[i + 1] == '?') {
        if (i + 2 < source.size() && source[i + 2] == '<' && i + 3 < source.size() && source[i + 3] != '=' &&
            source[i + 3] != '!') {
          size_t close = source.find('>', i + 3);
          if (close == std::string::npos) return make_error(ErrorCode::kCorrupt, "unterminated group name in: " + source);
          std::string name = source.substr(i + 3, close - i - 3);
          if (name.empty()) return make_error(ErrorCode::kCorrupt, "empty group name in: " + source);
          for (char n : name) {
            if (!std::isalnum(static_cast<unsigned char>(n)) && n != '_') {
              return make_error(ErrorCode::kCorrupt, "bad group name '" + name + "' in: " + source);
            }
          }
          out.group_names.push_back(name);
          translated += '(';
          i = close;
          continue;
        }
        translated += c;  // (?: (?= (?! : not capturing
        continue;
      }
      out.group_names.push_back("");
    }
    translated += c;
  }
  MatchStarts starts = match_starts(translated);
  out.literal_prefixes = std::move(starts.texts);
  out.run_breaks = std::move(starts.run_breaks);
  out.regex = LazyRegex(std::move(translated), out.group_names.size());
  return out;
}

Result<CompiledPattern> compile_pattern(const std::string& source) {
  auto out = translate_pattern(source);
  if (!out) return out;
  try {
    CatalogueRegex re(out->regex.source(), kRegexFlags);
    if (re.mark_count() + 1 != out->group_names.size()) {
      return make_error(ErrorCode::kInternal, "group count mismatch after translating: " + source);
    }
  } catch (const std::regex_error& e) {
    return make_error(ErrorCode::kCorrupt, std::string("regex does not compile (") + e.what() + "): " + source);
  }
  return out;
}

const CudnnStatusInfo* ErrorCatalogue::status(std::string_view name) const {
  for (const auto& s : statuses) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::string ErrorCatalogue::first_bad_regex() const {
  auto bad = [](const LazyRegex& re) { return re.get() == nullptr; };
  auto bad_conditions = [&bad](const std::vector<Condition>& when) {
    return std::any_of(when.begin(), when.end(), [&bad](const Condition& c) { return c.op == Condition::Op::kRegex && bad(c.regex); });
  };
  for (const auto& f : facts) {
    if (bad(f.pattern.regex)) return "log fact '" + f.id + "': " + f.pattern.source;
  }
  for (const auto& [id, rule] : evidence) {
    if (bad_conditions(rule.when)) return "evidence '" + id + "'";
  }
  for (const auto& e : entries) {
    for (const auto& p : e.patterns) {
      if (bad(p.regex)) return "entry '" + e.id + "': " + p.source;
    }
    for (const auto& c : e.causes) {
      if (bad_conditions(c.when)) return "entry '" + e.id + "', cause '" + c.text + "'";
    }
    for (const auto& f : e.fixes) {
      if (bad_conditions(f.when)) return "entry '" + e.id + "', fix '" + f.text + "'";
    }
  }
  return "";
}

const CatalogueEntry* ErrorCatalogue::entry(std::string_view id) const {
  for (const auto& e : entries) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

namespace {

// Lists of causes or fixes that several entries share (top-level "shared_causes"/"shared_fixes"),
// so one status cause is written once. An entry names one with a row {"include": "name"}, which
// stands for the list's rows at that place; a shared list includes nothing itself.
struct SharedLists {
  std::map<std::string, json> causes;
  std::map<std::string, json> fixes;
  std::set<std::string> used;  // "causes:name", "fixes:name": a list nobody includes is refused
};

Result<std::map<std::string, json>> shared_lists_of(const json& doc, const char* key, const std::string& origin) {
  std::map<std::string, json> out;
  if (!doc.contains(key)) return out;
  if (!doc[key].is_object()) return data_error(origin, key, "must map list names to arrays of rows");
  for (const auto& [name, rows] : doc[key].items()) {
    if (name.empty() || !rows.is_array() || rows.empty()) {
      return data_error(origin, std::string(key) + " '" + name + "'", "needs a name and a non-empty array of rows");
    }
    for (const auto& r : rows) {
      if (r.is_object() && r.contains("include")) {
        return data_error(origin, std::string(key) + " '" + name + "'", "a shared list cannot include another");
      }
    }
    out.emplace(name, rows);
  }
  return out;
}

// The entry's rows for `key` with every {"include": name} replaced by that shared list's rows.
Result<json> expanded_rows(const json& row, const char* key, SharedLists& shared, const std::string& origin,
                           const std::string& where) {
  const auto& lists = std::string(key) == "causes" ? shared.causes : shared.fixes;
  json out = json::array();
  for (const auto& r : array_field(row, key)) {
    if (!r.is_object() || !r.contains("include")) {
      out.push_back(r);
      continue;
    }
    const std::string name = string_field(r, "include");
    auto list = lists.find(name);
    if (r.size() != 1 || list == lists.end()) {
      return data_error(origin, where, "includes '" + name + "', which is not a list of shared_" + key +
                                           " (an include row has only the key \"include\")");
    }
    shared.used.insert(std::string(key) + ":" + name);
    for (const auto& item : list->second) out.push_back(item);
  }
  return out;
}

Result<std::vector<CauseSpec>> causes_of(const json& rows, const std::string& origin, const std::string& where) {
  std::vector<CauseSpec> out;
  for (const auto& c : rows) {
    CauseSpec cause;
    cause.text = string_field(c, "text");
    cause.check = string_field(c, "check");
    cause.weight = int_field(c, "weight", 0);
    if (!is_known_check(cause.check)) return data_error(origin, where, "unknown check '" + cause.check + "'");
    auto when = conditions(c, "when", origin + ": " + where);
    if (!when) return when.error();
    cause.when = std::move(*when);
    if (c.contains("evidence")) {
      if (!c["evidence"].is_object()) return data_error(origin, where, "a cause's 'evidence' maps rule ids to effects");
      for (const auto& [id, effect] : c["evidence"].items()) {
        if (!effect.is_number_integer() || effect.get<long long>() == 0 || std::abs(effect.get<long long>()) > 500) {
          return data_error(origin, where, "evidence '" + id + "' needs a non-zero effect of at most 500");
        }
        cause.evidence.emplace_back(id, static_cast<int>(effect.get<long long>()));
      }
    }
    if (c.contains("params") && c["params"].is_object()) {
      for (const auto& [k, v] : c["params"].items()) {
        if (v.is_string()) cause.params[k] = v.get<std::string>();
      }
    }
    out.push_back(std::move(cause));
  }
  return out;
}

Result<std::vector<FixSpec>> fixes_of(const json& rows, const std::string& origin, const std::string& where) {
  std::vector<FixSpec> out;
  for (const auto& f : rows) {
    FixSpec fix;
    fix.text = string_field(f, "text");
    auto when = conditions(f, "when", origin + ": " + where);
    if (!when) return when.error();
    fix.when = std::move(*when);
    fix.for_checks = string_list(f, "for");
    for (const auto& check : fix.for_checks) {
      if (!is_known_check(check)) return data_error(origin, where, "a fix is for the unknown check '" + check + "'");
    }
    for (const char* os : {"linux", "windows"}) {
      auto steps = fix_steps(f, os, origin + ": " + where);
      if (!steps) return steps.error();
      (std::string(os) == "linux" ? fix.linux_steps : fix.windows_steps) = std::move(*steps);
    }
    out.push_back(std::move(fix));
  }
  return out;
}

Result<CatalogueEntry> entry_of(const json& row, SharedLists& shared, const std::string& origin) {
  CatalogueEntry e;
  e.id = string_field(row, "id");
  const std::string where = "entry '" + e.id + "'";
  if (e.id.empty()) return data_error(origin, "entries", "an entry has no id");
  e.title = string_field(row, "title");
  for (auto& n : string_list(row, "needles")) e.needles.push_back(ascii_lower(n));
  if (e.needles.empty() || std::count(e.needles.begin(), e.needles.end(), "")) {
    return data_error(origin, where, "needs at least one needle, and no empty one");
  }
  for (const auto& p : string_list(row, "patterns")) {
    auto compiled = translate_pattern(p);
    if (!compiled) return data_error(origin, where, compiled.error().message);
    e.patterns.push_back(std::move(*compiled));
  }
  if (e.patterns.empty()) return data_error(origin, where, "needs at least one pattern");
  e.meaning = string_field(row, "meaning");
  std::string sev = string_field(row, "severity");
  if (sev == "harmless") e.severity = MessageSeverity::kHarmless;
  else if (sev == "warning") e.severity = MessageSeverity::kWarning;
  else if (sev == "error") e.severity = MessageSeverity::kError;
  else return data_error(origin, where, "severity must be harmless, warning or error");
  e.framework = string_field(row, "framework");
  e.generic = bool_field(row, "generic", false);
  e.overrides = string_list(row, "overrides");
  e.follows = string_list(row, "follows");
  e.at_end = bool_field(row, "at_end", false);
  auto cause_rows = expanded_rows(row, "causes", shared, origin, where);
  if (!cause_rows) return cause_rows.error();
  auto causes = causes_of(*cause_rows, origin, where);
  if (!causes) return causes.error();
  e.causes = std::move(*causes);
  auto fix_rows = expanded_rows(row, "fixes", shared, origin, where);
  if (!fix_rows) return fix_rows.error();
  auto fixes = fixes_of(*fix_rows, origin, where);
  if (!fixes) return fixes.error();
  e.fixes = std::move(*fixes);
  e.sources = string_list(row, "sources");
  return e;
}

// What one entry names must exist: evidence rules, and the entries it overrides or follows.
std::optional<Error> dangling_reference(const ErrorCatalogue& cat, const CatalogueEntry& e, const std::string& origin) {
  const std::string where = "entry '" + e.id + "'";
  for (const auto& c : e.causes) {
    for (const auto& [id, effect] : c.evidence) {
      if (cat.evidence.find(id) == cat.evidence.end()) return data_error(origin, where, "a cause names unknown evidence '" + id + "'");
    }
  }
  for (const auto& o : e.overrides) {
    if (!cat.entry(o)) return data_error(origin, where, "overrides unknown entry '" + o + "'");
  }
  for (const auto& f : e.follows) {
    if (!cat.entry(f)) return data_error(origin, where, "follows unknown entry '" + f + "'");
  }
  return std::nullopt;
}

void index_needles(ErrorCatalogue& cat) {
  std::map<std::string, int> index;
  auto add = [&](const std::string& needle, NeedleOwner owner) {
    auto [it, fresh] = index.emplace(needle, int(cat.needles.size()));
    if (fresh) {
      cat.needles.push_back(needle);
      cat.needle_owners.emplace_back();
    }
    cat.needle_owners[it->second].push_back(owner);
  };
  for (size_t e = 0; e < cat.entries.size(); ++e) {
    for (const auto& n : cat.entries[e].needles) add(n, {false, int(e)});
  }
  for (size_t f = 0; f < cat.facts.size(); ++f) {
    for (const auto& n : cat.facts[f].needles) add(n, {true, int(f)});
  }
  cat.scanner = std::make_shared<const NeedleScanner>(cat.needles);
}

}  // namespace

Result<ErrorCatalogue> parse_error_catalogue(std::string_view json_text, const std::string& origin) {
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::exception& e) {
    return data_error(origin, "JSON", e.what());
  }
  ErrorCatalogue cat;
  cat.schema = int_field(doc, "schema", 0);
  if (cat.schema != 1) return data_error(origin, "schema", "expected 1, found " + std::to_string(cat.schema));
  cat.data_version = string_field(doc, "data_version");

  for (const auto& row : array_field(doc, "statuses")) {
    CudnnStatusInfo s;
    s.name = string_field(row, "name");
    if (int code = int_field(row, "code8", -1); code >= 0) s.code8 = code;
    if (int code = int_field(row, "code9", -1); code >= 0) s.code9 = code;
    s.meaning = string_field(row, "meaning");
    if (s.name.empty() || s.meaning.empty()) return data_error(origin, "statuses", "a row lacks name or meaning");
    cat.statuses.push_back(std::move(s));
  }
  auto facts = fact_specs(doc, origin);
  if (!facts) return facts.error();
  cat.facts = std::move(*facts);
  auto evidence = evidence_rules(doc, origin);
  if (!evidence) return evidence.error();
  cat.evidence = std::move(*evidence);

  SharedLists shared;
  auto shared_causes = shared_lists_of(doc, "shared_causes", origin);
  if (!shared_causes) return shared_causes.error();
  shared.causes = std::move(*shared_causes);
  auto shared_fixes = shared_lists_of(doc, "shared_fixes", origin);
  if (!shared_fixes) return shared_fixes.error();
  shared.fixes = std::move(*shared_fixes);

  for (const auto& row : array_field(doc, "entries")) {
    auto e = entry_of(row, shared, origin);
    if (!e) return e.error();
    if (cat.entry(e->id)) return data_error(origin, "entry '" + e->id + "'", "duplicate id");
    cat.entries.push_back(std::move(*e));
  }
  for (const auto& [kind, lists] : {std::pair{"causes", &shared.causes}, std::pair{"fixes", &shared.fixes}}) {
    for (const auto& [name, rows] : *lists) {
      if (!shared.used.count(std::string(kind) + ":" + name)) {
        return data_error(origin, std::string("shared_") + kind + " '" + name + "'", "no entry includes it");
      }
    }
  }
  for (const auto& e : cat.entries) {
    if (auto bad = dangling_reference(cat, e, origin)) return *bad;
  }
  index_needles(cat);
  return cat;
}

const Result<ErrorCatalogue>& builtin_error_catalogue() {
  static const Result<ErrorCatalogue> catalogue = parse_error_catalogue(
      std::string_view(embedded_error_catalogue_json, embedded_error_catalogue_json_size), "built-in error catalogue");
  return catalogue;
}

std::string builtin_error_catalogue_version() {
  return top_level_string(std::string_view(embedded_error_catalogue_json, embedded_error_catalogue_json_size),
                          "data_version");
}

}  // namespace cudnnup
