#include "base/relative_path.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "base/paths.h"
#include "base/strings.h"

namespace cudnnup {
namespace {

Status refuse(std::string_view rel, const std::string& why) {
  return make_error(ErrorCode::kCorrupt, "'" + std::string(rel) + "' is not a path inside its root: " + why);
}

}  // namespace

std::string windows_name_hazard(std::string_view part) {
  if (part.empty()) return "an empty name";
  for (unsigned char c : part) {
    if (c == ':') return "':' in a file name (on Windows it names an alternate data stream of another file)";
    if (c < 0x20 || c == 0x7f || std::string_view("<>\"|?*").find(char(c)) != std::string_view::npos) {
      return "a character Windows does not allow in file names";
    }
  }
  if (part.back() == '.' || part.back() == ' ') {
    return "a name ending in '.' or ' ' (Windows drops it, so it would land on another file)";
  }
  std::string stem = ascii_lower(part.substr(0, part.find('.')));
  while (!stem.empty() && stem.back() == ' ') stem.pop_back();  // "CON .txt" is CON too
  // COM/LPT with a superscript 1-3 (UTF-8 C2 B9, C2 B2, C2 B3) are device names as well.
  static const std::set<std::string> devices = {
      "con",  "prn",  "aux",  "nul",  "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8", "com9",
      "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9", "com\xc2\xb9", "com\xc2\xb2",
      "com\xc2\xb3", "lpt\xc2\xb9", "lpt\xc2\xb2", "lpt\xc2\xb3"};
  if (devices.count(stem)) return "a Windows device name ('" + stem + "')";
  return {};
}

namespace {

template <typename Fn>
Status each_component(std::string_view rel, Fn&& check) {
  size_t pos = 0;
  while (true) {
    size_t slash = rel.find('/', pos);
    std::string_view part = rel.substr(pos, slash == std::string_view::npos ? std::string_view::npos : slash - pos);
    if (auto s = check(part); !s) return s;
    if (slash == std::string_view::npos) return ok_status();
    pos = slash + 1;
  }
}

}  // namespace

Status check_stays_below(std::string_view rel) {
  if (rel.empty()) return refuse(rel, "it is empty");
  if (rel.size() > 4096) return refuse(rel.substr(0, 64), "longer than 4096 bytes");
  if (rel.find('\\') != std::string_view::npos) return refuse(rel, "'\\' is a separator on Windows");
  if (paths::is_absolute(rel) || (rel.size() >= 2 && rel[1] == ':')) return refuse(rel, "it is absolute");
  return each_component(rel, [&](std::string_view part) -> Status {
    if (part.empty()) return refuse(rel, "an empty component");
    if (part.find_first_not_of(". ") == std::string_view::npos) {
      return refuse(rel, "a '" + std::string(part) + "' component");
    }
    return ok_status();
  });
}

Status check_relative_path(std::string_view rel) {
  if (auto s = check_stays_below(rel); !s) return s;
  return each_component(rel, [&](std::string_view part) -> Status {
    if (auto why = windows_name_hazard(part); !why.empty()) return refuse(rel, why);
    return ok_status();
  });
}

bool is_plain_name(std::string_view name) {
  return name.find('/') == std::string_view::npos && check_relative_path(name).ok();
}

std::string relative_below(std::string_view root, std::string_view path) {
  std::string r = paths::normalize(root), p = paths::normalize(path);
  if (r == "/" ? p.size() < 2 || p[0] != '/' : p.size() <= r.size() + 1 || p.compare(0, r.size(), r) != 0 || p[r.size()] != '/') {
    return {};
  }
  std::string rel = p.substr(r == "/" ? 1 : r.size() + 1);
  return check_relative_path(rel) ? rel : std::string();
}

}  // namespace cudnnup
