// Every JSON document cudnnup writes (printed with --json, or its own files) goes through
// dump_json, so it is valid UTF-8 whatever bytes the machine handed us (a non-UTF-8 directory
// name, a GBK-encoded log line, a tar entry name).
//
// The escape (docs/json-schema.md, "Text that is not UTF-8"): a string value that is not valid
// UTF-8 is written with each invalid byte replaced by U+FFFD, and a sibling member
// "<name>_bytes" holds the original bytes as lower-case hex. For an array of strings, the sibling
// "<name>_bytes" is an array of the same length: the hex for each string that needed it, null
// for the others. A member name that is not UTF-8 is replaced the same way and its original bytes
// go to "<replaced name>_key_bytes". Readers of cudnnup's own files (base/json_reader.h) prefer
// the _bytes form, so the original bytes survive a round trip.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <optional>
#include <string_view>

namespace cudnnup {

std::string hex_bytes(std::string_view s);  // "ab\xff" -> "6162ff"
// The bytes back from hex_bytes' form; nullopt when it is not an even run of hex digits.
std::optional<std::string> bytes_from_hex(std::string_view hex);

// The document with the escape applied (a copy; valid documents come back unchanged).
nlohmann::json utf8_safe(const nlohmann::json& doc);
nlohmann::ordered_json utf8_safe(const nlohmann::ordered_json& doc);
// The inverse of utf8_safe for documents that cudnnup reads back from itself (the child-process
// protocol, core/child/protocol.h): every "<name>_bytes" sibling goes back into "<name>" as the
// original bytes and is removed, in nested objects and arrays too. A "_bytes" member that does
// not decode (not hex, or an array of another length) is left as it is.
nlohmann::json restore_bytes(const nlohmann::json& doc);
// utf8_safe, then dump: never throws. indent < 0: one line.
std::string dump_json(const nlohmann::json& doc, int indent = -1);
std::string dump_json(const nlohmann::ordered_json& doc, int indent = -1);

}  // namespace cudnnup
