// Typed reading of JSON that comes from outside (the --db rules file, state.json, manifests,
// journals, redistrib manifests, the data files, version.json): a field of the wrong type is an
// error that names the file and the field ("rules.json: field 'driver_minimums[3].linux' must be
// a string, not a number"), never an exception or a crash.
//
// The reader keeps the first error: read every field with fallbacks, then check reader.status()
// once. Strings written with the UTF-8 escape of base/json_text.h ("<name>_bytes") are read back
// as their original bytes.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace cudnnup {

class JsonReader;

// A value inside a document, with the path that leads to it ("history[2].seq").
class JsonValue {
 public:
  bool has(std::string_view key) const;  // a member that is present and not null
  bool is_object() const { return value_->is_object(); }
  bool has_string(std::string_view key) const;  // a member that is a string

  // Members of this object. Absent (or null) members give the fallback; a member of another type
  // records an error and gives the fallback too.
  std::string string(std::string_view key, std::string fallback = {}) const;
  std::optional<std::string> optional_string(std::string_view key) const;  // absent or null: nullopt
  std::string required_string(std::string_view key) const;                 // absent is an error
  long long integer(std::string_view key, long long fallback, long long min, long long max) const;
  uint64_t unsigned_integer(std::string_view key, uint64_t fallback, uint64_t max = UINT64_MAX) const;
  double number(std::string_view key, double fallback) const;  // an integer or a fraction
  bool boolean(std::string_view key, bool fallback) const;
  JsonValue object(std::string_view key) const;             // absent: an empty object
  std::vector<JsonValue> array(std::string_view key) const;  // absent: empty
  std::vector<std::string> strings(std::string_view key) const;  // an array of strings
  // The members of this object / the elements of this array (another type: an error and none).
  std::vector<std::pair<std::string, JsonValue>> members() const;
  std::vector<JsonValue> elements() const;

  // Records an error about a member of this value, for checks beyond its type ("must be a
  // version"); the reader keeps the first one.
  void fail(std::string_view key, const std::string& what) const;

  const std::string& path() const { return path_; }

 private:
  friend class JsonReader;
  JsonValue(JsonReader* reader, const nlohmann::json* value, std::string path)
      : reader_(reader), value_(value), path_(std::move(path)) {}
  const nlohmann::json* member(std::string_view key, const char* want, bool (*is)(const nlohmann::json&)) const;
  std::string child(std::string_view key) const;
  JsonReader* reader_;
  const nlohmann::json* value_;
  std::string path_;
};

class JsonReader {
 public:
  // `origin` names the input in messages: a path, "built-in rules".
  explicit JsonReader(std::string origin) : origin_(std::move(origin)) {}
  JsonReader(const JsonReader&) = delete;
  JsonReader& operator=(const JsonReader&) = delete;

  // Parses a document whose top level must be an object; otherwise records the error and
  // returns an empty object.
  JsonValue parse_object(std::string_view text);
  // The same for a document already parsed elsewhere (a child's protocol message).
  JsonValue read_object(nlohmann::json doc);

  // Records an error about a field (the first one is kept): for checks beyond the type.
  void fail(const std::string& path, const std::string& what);
  bool ok() const { return !error_; }
  Status status() const;
  const std::string& origin() const { return origin_; }

 private:
  friend class JsonValue;
  std::string origin_;
  nlohmann::json doc_;
  std::optional<Error> error_;
};

// The string value of one top-level member of an object document ("data_version"), read with
// nlohmann's SAX parser, which stops as soon as the member is read: `--version` needs two data
// versions, not the 150 KB catalogue they head. Empty when the member is absent, not a string,
// or the text is not JSON up to that member.
std::string top_level_string(std::string_view text, std::string_view key);

}  // namespace cudnnup
