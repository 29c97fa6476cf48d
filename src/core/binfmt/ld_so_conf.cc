#include "binfmt/ld_so_conf.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "base/path_glob.h"
#include "base/paths.h"
#include "base/strings.h"

namespace cudnnup {
namespace {

constexpr int kMaxIncludeDepth = 16;


void parse_file(const FileSystem& fs, const std::string& path, int depth, LdSoConf& out,
                std::set<std::string>& seen_dirs, std::vector<std::string>& stack) {
  if (depth > kMaxIncludeDepth || std::find(stack.begin(), stack.end(), path) != stack.end()) {
    out.problems.push_back(path + ": include loop, skipped");
    return;
  }
  auto text = fs.read_file(path, 1 << 20);
  if (!text) {
    out.problems.push_back(path + ": " + text.error().message);
    return;
  }
  out.files_read.push_back(path);
  stack.push_back(path);
  std::istringstream in(*text);
  std::string raw;
  int line_no = 0;
  while (std::getline(in, raw)) {
    ++line_no;
    size_t hash = raw.find('#');
    if (hash != std::string::npos) raw.erase(hash);
    std::string line(trim(raw));
    if (line.empty()) continue;
    if (line.size() > 7 && line.compare(0, 7, "include") == 0 && (line[7] == ' ' || line[7] == '\t')) {
      std::istringstream patterns(line.substr(8));
      std::string pattern;
      while (patterns >> pattern) {
        if (!paths::is_absolute(pattern)) pattern = paths::join(paths::parent(path), pattern);
        for (const std::string& file : expand_glob(fs, pattern)) {
          parse_file(fs, file, depth + 1, out, seen_dirs, stack);
        }
      }
      continue;
    }
    if (line.size() > 5 && line.compare(0, 5, "hwcap") == 0 && (line[5] == ' ' || line[5] == '\t')) {
      continue;  // obsolete, ignored by current ldconfig
    }
    // Old syntax "DIR=TYPE": the type is ignored.
    size_t eq = line.find('=');
    if (eq != std::string::npos) line = trim(line.substr(0, eq));
    while (line.size() > 1 && line.back() == '/') line.pop_back();
    if (line.empty()) continue;
    if (seen_dirs.insert(line).second) out.dirs.push_back({line, path, line_no});
  }
  stack.pop_back();
}

}  // namespace

LdSoConf read_ld_so_conf(const FileSystem& fs, const std::string& path) {
  LdSoConf out;
  std::set<std::string> seen;
  std::vector<std::string> stack;
  parse_file(fs, path, 0, out, seen, stack);
  return out;
}

}  // namespace cudnnup
