#include "base/paths.h"

namespace cudnnup::paths {

namespace {
bool has_drive(std::string_view p) {
  return p.size() >= 2 && p[1] == ':' &&
         ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z'));
}
}  // namespace

std::string join(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  if (is_absolute(b)) return std::string(b);
  std::string out(a);
  if (out.back() != '/' && out.back() != '\\') out += '/';
  out += b;
  return out;
}

std::string parent(std::string_view path) {
  std::string p = normalize(path);
  size_t slash = p.rfind('/');
  if (slash == std::string::npos) return has_drive(p) ? p.substr(0, 2) + "/" : ".";
  if (slash == 0) return "/";
  if (slash == 2 && has_drive(p)) return p.substr(0, 3);
  return p.substr(0, slash);
}

std::string_view basename(std::string_view path) {
  while (path.size() > 1 && (path.back() == '/' || path.back() == '\\')) path.remove_suffix(1);
  size_t slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_absolute(std::string_view p) {
  if (p.empty()) return false;
  if (p[0] == '/' || p[0] == '\\') return true;
  return has_drive(p) && p.size() >= 3 && (p[2] == '/' || p[2] == '\\');
}

namespace {
// Most paths we see are already normal; checking is far cheaper than rebuilding them.
bool already_normal(std::string_view p) {
  if (p.empty() || p.find('\\') != std::string_view::npos) return false;
  if (p.size() > 1 && p.back() == '/') return false;
  if (p.size() >= 2 && p[0] == '/' && p[1] == '/') return false;  // UNC-style: take the slow path
  size_t start = has_drive(p) ? 2 : 0;
  size_t i = start;
  while (i <= p.size()) {
    size_t next = p.find('/', i);
    if (next == std::string_view::npos) next = p.size();
    std::string_view part = p.substr(i, next - i);
    bool leading = i == start;  // "" before a leading '/'
    if ((part.empty() && !leading) || part == "." || part == "..") return false;
    i = next + 1;
  }
  return true;
}
}  // namespace

std::string normalize(std::string_view path) {
  if (already_normal(path)) return std::string(path);
  std::string in(path);
  for (char& c : in) {
    if (c == '\\') c = '/';
  }
  std::string prefix;
  size_t pos = 0;
  if (has_drive(in)) {
    prefix = in.substr(0, 2);
    pos = 2;
  }
  bool absolute = pos < in.size() && in[pos] == '/';
  bool unc = !prefix.size() && in.size() >= 2 && in[0] == '/' && in[1] == '/';
  std::vector<std::string> parts;
  while (pos < in.size()) {
    size_t next = in.find('/', pos);
    if (next == std::string::npos) next = in.size();
    std::string part = in.substr(pos, next - pos);
    pos = next + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
        continue;
      }
      if (absolute) continue;  // "/.." is "/"
    }
    parts.push_back(part);
  }
  std::string out = prefix;
  if (unc) out += "/";
  if (absolute) out += "/";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += '/';
    out += parts[i];
  }
  if (out.empty()) return std::string(1, '.');
  return out;
}

std::vector<std::string> split_list(std::string_view list, char separator) {
  std::vector<std::string> out;
  if (list.empty()) return out;
  size_t pos = 0;
  while (true) {
    size_t next = list.find(separator, pos);
    out.emplace_back(list.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos));
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  return out;
}

std::string to_native(std::string_view path, bool windows) {
  std::string out(path);
  if (windows) {
    for (char& c : out) {
      if (c == '/') c = '\\';
    }
  }
  return out;
}

}  // namespace cudnnup::paths
