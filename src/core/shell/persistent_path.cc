#include "shell/persistent_path.h"

#include <algorithm>
#include <cctype>

#include "base/paths.h"
#include "base/strings.h"

namespace cudnnup {
namespace {


// How Windows compares two directories: no case, either slash, no trailing separator, and
// without the double quotes an entry may be wrapped in ("C:\Program Files\x").
std::string dir_key(const std::string& dir) {
  std::string unquoted = dir;
  unquoted.erase(std::remove(unquoted.begin(), unquoted.end(), '"'), unquoted.end());
  return ascii_lower(paths::normalize(unquoted));
}

// Splits on ';' keeping every token, empty ones included, so joining gives back the same text.
std::vector<std::string> tokens(const std::string& value) {
  std::vector<std::string> out;
  if (value.empty()) return out;
  size_t start = 0;
  while (true) {
    size_t semi = value.find(';', start);
    if (semi == std::string::npos) {
      out.push_back(value.substr(start));
      return out;
    }
    out.push_back(value.substr(start, semi - start));
    start = semi + 1;
  }
}


// Drops the store's entries from `parts`; returns what was dropped.
std::vector<std::string> drop_store_entries(std::vector<std::string>& parts, const std::string& store_root,
                                            const std::map<std::string, std::string>& vars) {
  std::vector<std::string> removed;
  std::vector<std::string> kept;
  for (auto& p : parts) {
    if (!p.empty() && is_store_path_entry(p, store_root, vars)) {
      removed.push_back(p);
    } else {
      kept.push_back(p);
    }
  }
  parts = std::move(kept);
  return removed;
}

}  // namespace

std::string expand_windows_vars(const std::string& text, const std::map<std::string, std::string>& vars) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t open = text.find('%', i);
    if (open == std::string::npos) break;
    size_t close = text.find('%', open + 1);
    if (close == std::string::npos) break;
    out += text.substr(i, open - i);
    std::string name = ascii_lower(text.substr(open + 1, close - open - 1));
    auto it = std::find_if(vars.begin(), vars.end(), [&](const auto& kv) { return ascii_lower(kv.first) == name; });
    if (!name.empty() && it != vars.end()) {
      out += it->second;
      i = close + 1;
    } else {
      out += text.substr(open, close - open);  // keep "%NAME" and look again from the second '%'
      i = close;
    }
  }
  out += text.substr(i);
  return out;
}

bool is_store_path_entry(const std::string& entry, const std::string& store_root,
                         const std::map<std::string, std::string>& vars) {
  if (store_root.empty()) return false;
  std::string e = dir_key(expand_windows_vars(entry, vars));
  std::string root = dir_key(store_root);
  return e == root || (e.size() > root.size() && e.compare(0, root.size(), root) == 0 && e[root.size()] == '/');
}

PathEditPlan plan_persist_path(const std::string& old_value, const std::string& dir, const std::string& store_root,
                               const std::map<std::string, std::string>& vars) {
  PathEditPlan plan;
  plan.old_value = old_value;
  plan.added = dir;
  std::vector<std::string> parts = tokens(old_value);
  plan.removed = drop_store_entries(parts, store_root, vars);
  // Also an entry naming the same directory outside a store path (written by hand): one is enough.
  std::vector<std::string> kept;
  for (auto& p : parts) {
    if (!p.empty() && dir_key(expand_windows_vars(p, vars)) == dir_key(dir)) {
      plan.removed.push_back(p);
    } else {
      kept.push_back(p);
    }
  }
  kept.insert(kept.begin(), dir);
  plan.new_value = join(kept, ";");
  plan.changed = plan.new_value != old_value;
  return plan;
}

PathEditPlan plan_unpersist_path(const std::string& old_value, const std::string& store_root,
                                 const std::map<std::string, std::string>& vars) {
  PathEditPlan plan;
  plan.old_value = old_value;
  std::vector<std::string> parts = tokens(old_value);
  plan.removed = drop_store_entries(parts, store_root, vars);
  plan.new_value = plan.removed.empty() ? old_value : join(parts, ";");
  plan.changed = plan.new_value != old_value;
  plan.remove_value = plan.changed && plan.new_value.empty();
  return plan;
}

}  // namespace cudnnup
