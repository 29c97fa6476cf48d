// The frame of every JSON document cudnnup prints (docs/json-schema.md): "schema" first
// ("cudnnup.<name>/<major>"), then "kind" where one command prints several shapes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace cudnnup {

inline nlohmann::ordered_json json_document(const std::string& schema, const std::string& kind = {}) {
  nlohmann::ordered_json doc = {{"schema", schema}};
  if (!kind.empty()) doc["kind"] = kind;
  return doc;
}

// The frame, then the fields of `body` in their order.
inline nlohmann::ordered_json json_document(const std::string& schema, const std::string& kind,
                                            const nlohmann::ordered_json& body) {
  nlohmann::ordered_json doc = json_document(schema, kind);
  for (auto it = body.begin(); it != body.end(); ++it) doc[it.key()] = it.value();
  return doc;
}

}  // namespace cudnnup
