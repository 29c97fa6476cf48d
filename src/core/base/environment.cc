#include "base/environment.h"

#include <algorithm>
#include <cctype>

#include "base/paths.h"

namespace cudnnup {

std::optional<std::string> Environment::get(const std::string& name) const {
  std::string key = name;
  if (windows()) {
    std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::toupper(c); });
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

}  // namespace cudnnup
