#include "base/json_reader.h"

#include <climits>

#include "base/json_text.h"

namespace cudnnup {
namespace {

using nlohmann::json;

const json& empty_object() {
  static const json kEmpty = json::object();
  return kEmpty;
}

const char* type_of(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "true or false";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number with a fraction";
    default: return "something else";
  }
}

bool json_is_string(const json& v) { return v.is_string(); }
bool json_is_integer(const json& v) { return v.is_number_integer(); }
bool json_is_boolean(const json& v) { return v.is_boolean(); }
bool json_is_object(const json& v) { return v.is_object(); }
bool json_is_array(const json& v) { return v.is_array(); }

}  // namespace

JsonValue JsonReader::parse_object(std::string_view text) {
  doc_ = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc_.is_discarded()) {
    doc_ = json::object();
    if (!error_) error_ = make_error(ErrorCode::kCorrupt, origin_ + " is not valid JSON", origin_);
  } else if (!doc_.is_object()) {
    if (!error_) {
      error_ = make_error(ErrorCode::kCorrupt, origin_ + " is not a JSON object (it is " + type_of(doc_) + ")", origin_);
    }
    doc_ = json::object();
  }
  return JsonValue(this, &doc_, "");
}

JsonValue JsonReader::read_object(nlohmann::json doc) {
  doc_ = std::move(doc);
  if (!doc_.is_object()) {
    if (!error_) {
      error_ = make_error(ErrorCode::kCorrupt, origin_ + " is not a JSON object (it is " + type_of(doc_) + ")", origin_);
    }
    doc_ = json::object();
  }
  return JsonValue(this, &doc_, "");
}

void JsonReader::fail(const std::string& path, const std::string& what) {
  if (error_) return;
  error_ = make_error(ErrorCode::kCorrupt, origin_ + ": field '" + path + "' " + what, origin_);
}

Status JsonReader::status() const {
  if (error_) return *error_;
  return ok_status();
}

std::string JsonValue::child(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

bool JsonValue::has(std::string_view key) const {
  if (!value_->is_object()) return false;
  auto it = value_->find(key);
  return it != value_->end() && !it->is_null();
}

bool JsonValue::has_string(std::string_view key) const {
  if (!value_->is_object()) return false;
  auto it = value_->find(key);
  return it != value_->end() && it->is_string();
}

const json* JsonValue::member(std::string_view key, const char* want, bool (*is)(const json&)) const {
  if (!value_->is_object()) return nullptr;
  auto it = value_->find(key);
  if (it == value_->end() || it->is_null()) return nullptr;
  if (!is(*it)) {
    reader_->fail(child(key), std::string("must be ") + want + ", not " + type_of(*it));
    return nullptr;
  }
  return &*it;
}

std::string JsonValue::string(std::string_view key, std::string fallback) const {
  auto v = optional_string(key);
  return v ? *v : std::move(fallback);
}

std::optional<std::string> JsonValue::optional_string(std::string_view key) const {
  const json* v = member(key, "a string", json_is_string);
  if (!v) return std::nullopt;
  // The UTF-8 escape of base/json_text.h: the original bytes sit in "<key>_bytes".
  if (const json* raw = member(std::string(key) + "_bytes", "a string of hex digits", json_is_string)) {
    if (auto bytes = bytes_from_hex(raw->get_ref<const std::string&>())) return bytes;
    reader_->fail(child(std::string(key) + "_bytes"), "must be a string of hex digits");
  }
  return v->get<std::string>();
}

std::string JsonValue::required_string(std::string_view key) const {
  auto v = optional_string(key);
  if (!v && reader_->ok() && value_->is_object() && !has(key)) reader_->fail(child(key), "is missing");
  return v.value_or(std::string());
}

long long JsonValue::integer(std::string_view key, long long fallback, long long min, long long max) const {
  const json* v = member(key, "an integer", json_is_integer);
  if (!v) return fallback;
  // nlohmann reads positive numbers as unsigned: one above LLONG_MAX is out of every range here.
  bool fits = !v->is_number_unsigned() || v->get<unsigned long long>() <= static_cast<unsigned long long>(LLONG_MAX);
  long long value = fits ? v->get<long long>() : 0;
  if (!fits || value < min || value > max) {
    reader_->fail(child(key), "must be between " + std::to_string(min) + " and " + std::to_string(max));
    return fallback;
  }
  return value;
}

uint64_t JsonValue::unsigned_integer(std::string_view key, uint64_t fallback, uint64_t max) const {
  const json* v = member(key, "a whole number", json_is_integer);
  if (!v) return fallback;
  if (!v->is_number_unsigned() || v->get<uint64_t>() > max) {
    reader_->fail(child(key), "must be between 0 and " + std::to_string(max));
    return fallback;
  }
  return v->get<uint64_t>();
}

double JsonValue::number(std::string_view key, double fallback) const {
  const json* v = member(key, "a number", [](const json& x) { return x.is_number(); });
  return v ? v->get<double>() : fallback;
}

bool JsonValue::boolean(std::string_view key, bool fallback) const {
  const json* v = member(key, "true or false", json_is_boolean);
  return v ? v->get<bool>() : fallback;
}

JsonValue JsonValue::object(std::string_view key) const {
  const json* v = member(key, "an object", json_is_object);
  return JsonValue(reader_, v ? v : &empty_object(), child(key));
}

std::vector<JsonValue> JsonValue::array(std::string_view key) const {
  std::vector<JsonValue> out;
  const json* v = member(key, "an array", json_is_array);
  if (!v) return out;
  for (size_t i = 0; i < v->size(); ++i) {
    out.push_back(JsonValue(reader_, &(*v)[i], child(key) + "[" + std::to_string(i) + "]"));
  }
  return out;
}

std::vector<std::string> JsonValue::strings(std::string_view key) const {
  std::vector<std::string> out;
  const json* v = member(key, "an array of strings", json_is_array);
  if (!v) return out;
  const json* raw = member(std::string(key) + "_bytes", "an array", json_is_array);
  for (size_t i = 0; i < v->size(); ++i) {
    const json& e = (*v)[i];
    if (!e.is_string()) {
      reader_->fail(child(key) + "[" + std::to_string(i) + "]", std::string("must be a string, not ") + type_of(e));
      continue;
    }
    if (raw && i < raw->size() && (*raw)[i].is_string()) {
      if (auto bytes = bytes_from_hex((*raw)[i].get_ref<const std::string&>())) {
        out.push_back(*bytes);
        continue;
      }
    }
    out.push_back(e.get<std::string>());
  }
  return out;
}

std::vector<JsonValue> JsonValue::elements() const {
  std::vector<JsonValue> out;
  if (!value_->is_array()) {
    reader_->fail(path_, std::string("must be an array, not ") + type_of(*value_));
    return out;
  }
  for (size_t i = 0; i < value_->size(); ++i) {
    out.push_back(JsonValue(reader_, &(*value_)[i], path_ + "[" + std::to_string(i) + "]"));
  }
  return out;
}

void JsonValue::fail(std::string_view key, const std::string& what) const { reader_->fail(child(key), what); }

std::vector<std::pair<std::string, JsonValue>> JsonValue::members() const {
  std::vector<std::pair<std::string, JsonValue>> out;
  if (!value_->is_object()) {
    reader_->fail(path_, std::string("must be an object, not ") + type_of(*value_));
    return out;
  }
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    out.emplace_back(it.key(), JsonValue(reader_, &it.value(), child(it.key())));
  }
  return out;
}

namespace {

// SAX events of nlohmann's parser; returning false stops the parse.
class TopLevelStringFinder : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit TopLevelStringFinder(std::string_view key) : key_(key) {}
  std::string found;

  bool null() override { return scalar(); }
  bool boolean(bool) override { return scalar(); }
  bool number_integer(number_integer_t) override { return scalar(); }
  bool number_unsigned(number_unsigned_t) override { return scalar(); }
  bool number_float(number_float_t, const string_t&) override { return scalar(); }
  bool binary(binary_t&) override { return scalar(); }
  bool string(string_t& value) override {
    if (wanted_value()) {
      found = value;
      return false;  // read: stop here
    }
    return scalar();
  }
  bool start_object(std::size_t) override { return open(); }
  bool start_array(std::size_t) override { return open(); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& name) override {
    key_matched_ = depth_ == 1 && name == key_;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  bool wanted_value() const { return depth_ == 1 && key_matched_; }
  // The member was there but held another type: nothing more to find.
  bool scalar() { return !wanted_value(); }
  bool open() {
    if (wanted_value()) return false;
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    return depth_ > 0;  // the top-level object ended without the member
  }
  std::string_view key_;
  int depth_ = 0;
  bool key_matched_ = false;
};

}  // namespace

std::string top_level_string(std::string_view text, std::string_view key) {
  TopLevelStringFinder finder(key);
  nlohmann::json::sax_parse(text, &finder);
  return finder.found;
}

}  // namespace cudnnup
