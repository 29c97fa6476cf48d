#include "explain/error_catalogue.h"

#include <cctype>
#include <climits>
#include <nlohmann/json.hpp>

#include "explain/explain_checks.h"
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

}  // namespace

const char* message_severity_name(MessageSeverity s) {
  switch (s) {
    case MessageSeverity::kHarmless: return "harmless";
    case MessageSeverity::kWarning: return "warning";
    case MessageSeverity::kError: return "error";
  }
  return "error";
}

Result<CompiledPattern> compile_pattern(const std::string& source) {
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
  try {
    out.regex = std::regex(translated, kRegexFlags);
  } catch (const std::regex_error& e) {
    return make_error(ErrorCode::kCorrupt, std::string("regex does not compile (") + e.what() + "): " + source);
  }
  if (out.regex.mark_count() + 1 != out.group_names.size()) {
    return make_error(ErrorCode::kInternal, "group count mismatch after translating: " + source);
  }
  return out;
}

const CudnnStatusInfo* ErrorCatalogue::status(std::string_view name) const {
  for (const auto& s : statuses) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const CatalogueEntry* ErrorCatalogue::entry(std::string_view id) const {
  for (const auto& e : entries) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

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

  for (const auto& row : array_field(doc, "entries")) {
    CatalogueEntry e;
    e.id = string_field(row, "id");
    const std::string where = "entry '" + e.id + "'";
    if (e.id.empty()) return data_error(origin, "entries", "an entry has no id");
    if (cat.entry(e.id)) return data_error(origin, where, "duplicate id");
    e.title = string_field(row, "title");
    for (auto& n : string_list(row, "needles")) e.needles.push_back(ascii_lower(n));
    if (e.needles.empty()) return data_error(origin, where, "needs at least one needle");
    for (const auto& p : string_list(row, "patterns")) {
      auto compiled = compile_pattern(p);
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
    for (const auto& c : array_field(row, "causes")) {
      CauseSpec cause;
      cause.text = string_field(c, "text");
      cause.check = string_field(c, "check");
      cause.weight = int_field(c, "weight", 0);
      if (!is_known_check(cause.check)) return data_error(origin, where, "unknown check '" + cause.check + "'");
      if (c.contains("when") && c["when"].is_object()) {
        for (const auto& [var, re] : c["when"].items()) {
          if (!re.is_string()) return data_error(origin, where, "'when' values must be regex strings");
          try {
            cause.when.emplace_back(var, std::regex(re.get<std::string>(), kRegexFlags));
          } catch (const std::regex_error& ex) {
            return data_error(origin, where, std::string("'when' regex does not compile: ") + ex.what());
          }
          cause.when_source.emplace_back(var, re.get<std::string>());
        }
      }
      if (c.contains("params") && c["params"].is_object()) {
        for (const auto& [k, v] : c["params"].items()) {
          if (v.is_string()) cause.params[k] = v.get<std::string>();
        }
      }
      e.causes.push_back(std::move(cause));
    }
    for (const auto& f : array_field(row, "fixes")) {
      FixSpec fix;
      fix.text = string_field(f, "text");
      for (const char* os : {"linux", "windows"}) {
        auto steps = fix_steps(f, os, origin + ": " + where);
        if (!steps) return steps.error();
        (std::string(os) == "linux" ? fix.linux_steps : fix.windows_steps) = std::move(*steps);
      }
      e.fixes.push_back(std::move(fix));
    }
    e.sources = string_list(row, "sources");
    cat.entries.push_back(std::move(e));
  }
  for (const auto& e : cat.entries) {
    for (const auto& o : e.overrides) {
      if (!cat.entry(o)) return data_error(origin, "entry '" + e.id + "'", "overrides unknown entry '" + o + "'");
    }
    for (const auto& f : e.follows) {
      if (!cat.entry(f)) return data_error(origin, "entry '" + e.id + "'", "follows unknown entry '" + f + "'");
    }
  }
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
