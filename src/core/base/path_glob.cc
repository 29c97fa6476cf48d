#include "base/path_glob.h"

#include <algorithm>

#include "base/paths.h"

namespace cudnnup {
namespace {

bool has_wildcard(std::string_view s) { return s.find_first_of("*?[") != std::string_view::npos; }

// Matches one bracket expression at pattern[p] against c; returns false for a malformed one
// (then '[' is taken literally, as fnmatch does). Advances p past the expression.
bool match_bracket(std::string_view pattern, size_t& p, char c, bool& matched) {
  size_t i = p + 1;
  bool negate = i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^');
  if (negate) ++i;
  bool any = false;
  bool first = true;
  while (i < pattern.size() && (first || pattern[i] != ']')) {
    first = false;
    char lo = pattern[i];
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      char hi = pattern[i + 2];
      if (lo <= c && c <= hi) any = true;
      i += 3;
    } else {
      if (lo == c) any = true;
      ++i;
    }
  }
  if (i >= pattern.size()) return false;  // no closing ']'
  p = i + 1;
  matched = any != negate;
  return true;
}

bool match_from(std::string_view pattern, size_t p, std::string_view name, size_t n) {
  while (p < pattern.size()) {
    char pc = pattern[p];
    if (pc == '*') {
      while (p < pattern.size() && pattern[p] == '*') ++p;
      if (p == pattern.size()) return true;
      for (size_t k = n; k <= name.size(); ++k) {
        if (match_from(pattern, p, name, k)) return true;
      }
      return false;
    }
    if (n >= name.size()) return false;
    if (pc == '?') {
      ++p;
      ++n;
      continue;
    }
    if (pc == '[') {
      size_t q = p;
      bool matched = false;
      if (match_bracket(pattern, q, name[n], matched)) {
        if (!matched) return false;
        p = q;
        ++n;
        continue;
      }
    }
    if (pc == '\\' && p + 1 < pattern.size()) pc = pattern[++p];
    if (pc != name[n]) return false;
    ++p;
    ++n;
  }
  return n == name.size();
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view name) {
  if (!name.empty() && name[0] == '.' && (pattern.empty() || pattern[0] != '.')) return false;
  return match_from(pattern, 0, name, 0);
}

std::vector<std::string> expand_glob(const FileSystem& fs, const std::string& pattern) {
  std::string normalized = paths::normalize(pattern);
  if (!has_wildcard(normalized)) {
    if (fs.exists(normalized)) return {normalized};
    return {};
  }
  // Split into components; walk them, expanding the ones with wildcards.
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= normalized.size()) {
    size_t slash = normalized.find('/', start);
    if (slash == std::string::npos) slash = normalized.size();
    parts.push_back(normalized.substr(start, slash - start));
    start = slash + 1;
  }
  std::vector<std::string> current = {parts[0].empty() ? "/" : parts[0]};
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    bool last = i + 1 == parts.size();
    std::vector<std::string> next;
    for (const std::string& dir : current) {
      if (!has_wildcard(part)) {
        std::string candidate = paths::join(dir, part);
        if (last ? fs.exists(candidate) : fs.is_dir(candidate)) next.push_back(candidate);
        continue;
      }
      auto entries = fs.list_dir(dir);
      if (!entries) continue;
      std::vector<std::string> names;
      for (const DirEntry& e : *entries) {
        if (glob_match(part, e.name)) names.push_back(e.name);
      }
      std::sort(names.begin(), names.end());
      for (const std::string& name : names) {
        std::string candidate = paths::join(dir, name);
        if (last || fs.is_dir(candidate)) next.push_back(candidate);
      }
    }
    current = std::move(next);
  }
  return current;
}

}  // namespace cudnnup
