#include "base/json_text.h"

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

template <typename Json>
bool needs_escape(const Json& doc) {
  if (doc.is_string()) return !valid_utf8(doc.template get_ref<const std::string&>());
  if (doc.is_array()) {
    for (const auto& e : doc) {
      if (needs_escape(e)) return true;
    }
    return false;
  }
  if (!doc.is_object()) return false;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (!valid_utf8(it.key()) || needs_escape(it.value())) return true;
  }
  return false;
}

template <typename Json>
std::string dump_any(const Json& doc, int indent) {
  // The copy is made only when something needs escaping; replace is a second guard that cannot
  // be reached once the copy is clean, so dump() never throws.
  if (!needs_escape(doc)) return doc.dump(indent, ' ', false, Json::error_handler_t::replace);
  return safe_copy(doc).dump(indent, ' ', false, Json::error_handler_t::replace);
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
