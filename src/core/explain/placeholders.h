// `{name}` placeholders in the catalogue's texts and fix steps, filled from a message's variables
// and the log's facts.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace cudnnup {

using Variables = std::map<std::string, std::string>;

// The value of `name`, or "" where the message and the log give none.
std::string value_of(const Variables& vars, const char* name);

// `templ` with each {name} replaced; a name without a value prints as <name> (for prose).
std::string fill(const std::string& templ, const Variables& vars);
// `templ` filled in, or nullopt when it names a variable without a value: a command is printed
// whole or not at all, never with a placeholder in it.
std::optional<std::string> fill_all(const std::string& templ, const Variables& vars);

}  // namespace cudnnup
