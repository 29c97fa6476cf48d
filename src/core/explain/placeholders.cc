#include "explain/placeholders.h"

#include <algorithm>
#include <cctype>

namespace cudnnup {
namespace {

// The name of the placeholder opening at `open`, or "" when the braces hold no identifier.
std::string placeholder_at(const std::string& templ, size_t open, size_t* close) {
  *close = templ.find('}', open);
  if (*close == std::string::npos) return "";
  std::string name = templ.substr(open + 1, *close - open - 1);
  bool ident = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
  return ident ? name : "";
}

}  // namespace

std::string fill(const std::string& templ, const Variables& vars) {
  std::string out;
  for (size_t i = 0; i < templ.size(); ++i) {
    size_t close = 0;
    std::string name = templ[i] == '{' ? placeholder_at(templ, i, &close) : "";
    if (name.empty()) {
      out += templ[i];
      continue;
    }
    auto it = vars.find(name);
    out += (it != vars.end() && !it->second.empty()) ? it->second : "<" + name + ">";
    i = close;
  }
  return out;
}

std::optional<std::string> fill_all(const std::string& templ, const Variables& vars) {
  for (size_t open = templ.find('{'); open != std::string::npos; open = templ.find('{', open + 1)) {
    size_t close = 0;
    std::string name = placeholder_at(templ, open, &close);
    if (name.empty()) continue;
    auto it = vars.find(name);
    if (it == vars.end() || it->second.empty()) return std::nullopt;
  }
  return fill(templ, vars);
}

std::string value_of(const Variables& vars, const char* name) {
  auto it = vars.find(name);
  return it == vars.end() ? std::string() : it->second;
}

}  // namespace cudnnup
