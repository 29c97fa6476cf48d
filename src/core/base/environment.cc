#include "base/environment.h"

#include <algorithm>
#include <cctype>

#include "base/paths.h"
#include "base/strings.h"

namespace cudnnup {

std::optional<std::string> Environment::get(const std::string& name) const {
  std::string key = name;
  if (windows()) {
    key = ascii_upper(key);
  }
  auto it = vars.find(key);
  if (it == vars.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> Environment::get_list(const std::string& name) const {
  auto value = get(name);
  if (!value) return {};
  return paths::split_list(*value, list_separator());
}

std::string Environment::windows_dir() const {
  for (const char* var : {"SYSTEMROOT", "WINDIR"}) {
    if (auto v = get(var); v && !v->empty()) return paths::normalize(*v);
  }
  return "C:/Windows";
}

}  // namespace cudnnup
