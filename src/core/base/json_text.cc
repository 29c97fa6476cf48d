#include "base/json_text.h"

#include <charconv>

#include "base/utf8.h"

namespace cudnnup {
namespace {

template <typename Json>
Json safe_copy(const Json& doc) {
  if (doc.is_string()) {
    const auto& s = doc.template get_ref<const std::string&>();
    return valid_utf8(s) ? doc : Json(utf8_replaced(s));
  }
  if (doc.is_array()) {
    Json out = Json::array();
    for (const auto& e : doc) out.push_back(safe_copy(e));
    return out;
  }
  if (!doc.is_object()) return doc;
  Json out = Json::object();
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    std::string key = it.key();
    if (!valid_utf8(key)) {
      out[utf8_replaced(key) + "_key_bytes"] = hex_bytes(key);
      key = utf8_replaced(key);
    }
    const Json& value = it.value();
    out[key] = safe_copy(value);
    if (value.is_string() && !valid_utf8(value.template get_ref<const std::string&>())) {
      out[key + "_bytes"] = hex_bytes(value.template get_ref<const std::string&>());
    } else if (value.is_array()) {
      bool any = false;
      Json bytes = Json::array();
      for (const auto& e : value) {
        bool bad = e.is_string() && !valid_utf8(e.template get_ref<const std::string&>());
        any = any || bad;
        bytes.push_back(bad ? Json(hex_bytes(e.template get_ref<const std::string&>())) : Json(nullptr));
      }
      if (any) out[key + "_bytes"] = bytes;
    }
  }
  return out;
}

// nlohmann's dump() writes its output one character at a time through a virtual call and decodes
// every string's UTF-8 as it goes: most of doctor --json's time after the work was done. This
// writer produces the same bytes (tests/unit/base/json_text_test.cc compares the two on generated
// documents) with runs of plain characters appended at once. It meets every string and key
// anyway, so it also checks their UTF-8: false means the document needs the escape above, and
// what was written is thrown away.
class JsonWriter {
 public:
  JsonWriter(std::string& out, int indent) : out_(out), indent_(indent) {}

  template <typename Json>
  bool value(const Json& v, int level) {
    switch (v.type()) {
      case nlohmann::detail::value_t::string: return string(v.template get_ref<const std::string&>());
      case nlohmann::detail::value_t::array: return array(v, level);
      case nlohmann::detail::value_t::object: return object(v, level);
      case nlohmann::detail::value_t::number_integer: return number(v.template get<int64_t>());
      case nlohmann::detail::value_t::number_unsigned: return number(v.template get<uint64_t>());
      case nlohmann::detail::value_t::boolean: out_ += v.template get<bool>() ? "true" : "false"; return true;
      case nlohmann::detail::value_t::null: out_ += "null"; return true;
      default: out_ += v.dump(); return true;  // floats (their shortest form is nlohmann's), binary
    }
  }

 private:
  template <typename Json>
  bool array(const Json& v, int level) {
    if (v.empty()) {
      out_ += "[]";
      return true;
    }
    out_ += '[';
    bool first = true;
    for (const auto& e : v) {
      separate(first, level + 1);
      if (!value(e, level + 1)) return false;
    }
    close(level, ']');
    return true;
  }

  template <typename Json>
  bool object(const Json& v, int level) {
    if (v.empty()) {
      out_ += "{}";
      return true;
    }
    out_ += '{';
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      separate(first, level + 1);
      if (!string(it.key())) return false;
      out_ += indent_ >= 0 ? ": " : ":";
      if (!value(it.value(), level + 1)) return false;
    }
    close(level, '}');
    return true;
  }

  void separate(bool& first, int level) {
    if (!first) out_ += ',';
    first = false;
    if (indent_ >= 0) {
      out_ += '\n';
      out_.append(size_t(level) * size_t(indent_), ' ');
    }
  }

  void close(int level, char bracket) {
    if (indent_ >= 0) {
      out_ += '\n';
      out_.append(size_t(level) * size_t(indent_), ' ');
    }
    out_ += bracket;
  }

  template <typename Int>
  bool number(Int n) {
    char buf[24];
    auto end = std::to_chars(buf, buf + sizeof buf, n).ptr;
    out_.append(buf, end);
    return true;
  }

  // As nlohmann writes strings with ensure_ascii off: '"', '\\' and the C0 controls escaped
  // (\b \t \n \f \r by name, the others as \u00xx), everything else as it is.
  bool string(const std::string& s) {
    if (!valid_utf8(s)) return false;
    out_ += '"';
    size_t run = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(s[i]);
      if (c >= 0x20 && c != '"' && c != '\\') continue;
      out_.append(s, run, i - run);
      run = i + 1;
      switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\b': out_ += "\\b"; break;
        case '\t': out_ += "\\t"; break;
        case '\n': out_ += "\\n"; break;
        case '\f': out_ += "\\f"; break;
        case '\r': out_ += "\\r"; break;
        default: {
          static const char* digits = "0123456789abcdef";
          out_ += "\\u00";
          out_ += digits[c >> 4];
          out_ += digits[c & 0xf];
        }
      }
    }
    out_.append(s, run, std::string::npos);
    out_ += '"';
    return true;
  }

  std::string& out_;
  int indent_;
};

template <typename Json>
std::string dump_any(const Json& doc, int indent) {
  std::string out;
  if (JsonWriter(out, indent).value(doc, 0)) return out;
  // Some text is not UTF-8: the escaped copy (valid throughout) is written instead.
  out.clear();
  JsonWriter(out, indent).value(safe_copy(doc), 0);
  return out;
}

}  // namespace

std::string hex_bytes(std::string_view s) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(2 * s.size());
  for (unsigned char c : s) {
    out += digits[c >> 4];
    out += digits[c & 0xf];
  }
  return out;
}

std::optional<std::string> bytes_from_hex(std::string_view hex) {
  auto value = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (hex.size() % 2) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = value(hex[i]), lo = value(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

nlohmann::json restore_bytes(const nlohmann::json& doc) {
  if (doc.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : doc) out.push_back(restore_bytes(e));
    return out;
  }
  if (!doc.is_object()) return doc;
  nlohmann::json out = nlohmann::json::object();
  for (auto it = doc.begin(); it != doc.end(); ++it) out[it.key()] = restore_bytes(it.value());
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const std::string& key = it.key();
    constexpr std::string_view suffix = "_bytes";
    if (key.size() <= suffix.size() || !key.ends_with(suffix)) continue;
    const std::string name = key.substr(0, key.size() - suffix.size());
    if (!out.contains(name)) continue;
    nlohmann::json& value = out[name];
    const nlohmann::json& bytes = it.value();
    if (value.is_string() && bytes.is_string()) {
      auto original = bytes_from_hex(bytes.get_ref<const std::string&>());
      if (!original) continue;
      value = *original;
    } else if (value.is_array() && bytes.is_array() && bytes.size() == value.size()) {
      nlohmann::json restored = value;
      bool whole = true;
      for (size_t i = 0; i < bytes.size() && whole; ++i) {
        if (bytes[i].is_null()) continue;
        auto original = bytes[i].is_string() ? bytes_from_hex(bytes[i].get_ref<const std::string&>()) : std::nullopt;
        if (original) restored[i] = *original;
        whole = original.has_value();
      }
      if (!whole) continue;
      value = std::move(restored);
    } else {
      continue;
    }
    out.erase(key);
  }
  return out;
}

nlohmann::json utf8_safe(const nlohmann::json& doc) { return safe_copy(doc); }
nlohmann::ordered_json utf8_safe(const nlohmann::ordered_json& doc) { return safe_copy(doc); }
std::string dump_json(const nlohmann::json& doc, int indent) { return dump_any(doc, indent); }
std::string dump_json(const nlohmann::ordered_json& doc, int indent) { return dump_any(doc, indent); }

}  // namespace cudnnup
