// What doctor (and which) scan on a machine: toolkit folders and their version files, Python
// environments and their dist-info folders, library directories and every name in them, on an
// in-memory filesystem that the input describes, one entry a line:
//   path            an empty file          path<TAB>bytes   a file ("\n" in bytes is a newline)
//   path/           a folder               @path<TAB>target a symbolic link
//   =NAME=value     an environment variable                 !w  a Windows machine
// Every folder that holds a file is on LD_LIBRARY_PATH (Windows: PATH) unless the input sets it,
// so whatever names the input gives are scanned where doctor looks for copies.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "discover/discovery.h"
#include "discover/python_envs.h"
#include "base/paths.h"
#include "fuzz_input.h"
#include "support/memory_fs.h"

namespace {

std::string unescape_newlines(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == 'n') {
      out += '\n';
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cudnnup;
  std::string_view text = fuzz::bytes_of(data, size);
  testing::MemoryFileSystem fs;
  Environment env;
  std::vector<std::string> lines;
  for (size_t start = 0; start <= text.size() && lines.size() < 64;) {
    size_t nl = text.find('\n', start);
    lines.emplace_back(text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  for (const auto& line : lines) {
    if (line == "!w") env.os = OsKind::kWindows;
  }
  env.home = env.windows() ? "C:/Users/u" : "/home/u";
  env.cwd = env.home;
  std::vector<std::string> dirs;
  auto absolute = [&](std::string_view p) {
    std::string s(p);
    return paths::is_absolute(s) ? s : (env.windows() ? "C:/" : "/") + s;
  };
  for (const auto& line : lines) {
    if (line.empty() || line == "!w") continue;
    size_t tab = line.find('\t');
    std::string_view head = std::string_view(line).substr(0, tab);
    std::string_view rest = tab == std::string::npos ? std::string_view() : std::string_view(line).substr(tab + 1);
    if (head.empty()) continue;
    if (head.size() > 1 && head[0] == '=') {
      size_t eq = head.find('=', 1);
      if (eq == std::string_view::npos) continue;
      std::string name(head.substr(1, eq - 1));
      if (env.windows()) {
        for (char& c : name) c = char(std::toupper(static_cast<unsigned char>(c)));
      }
      env.vars[name] = std::string(head.substr(eq + 1));
    } else if (head.size() > 1 && head[0] == '@') {
      fs.add_symlink(absolute(head.substr(1)), std::string(rest));
    } else if (head.back() == '/') {
      fs.add_dir(absolute(head));
    } else {
      std::string path = absolute(head);
      fs.add_file(path, unescape_newlines(rest));
      std::string dir(paths::parent(path));
      if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
    }
  }
  const std::string list_var = env.windows() ? "PATH" : "LD_LIBRARY_PATH";
  if (!env.vars.count(list_var)) {
    std::string joined;
    for (const auto& d : dirs) joined += (joined.empty() ? "" : std::string(1, env.list_separator())) + d;
    env.vars[list_var] = joined;
  }

  std::vector<ScanIssue> issues;
  std::vector<Toolkit> toolkits = find_toolkits(fs, env, &issues);
  std::vector<PythonEnv> python_envs = find_python_envs(fs, env, &issues);
  DiscoveryInputs in{fs, env, toolkits, python_envs, {}, env.home + "/.cudnnup"};
  std::vector<std::string> searched;
  (void)scan_cudnn_copies(in, candidate_library_dirs(in), &searched, &issues);
  return 0;
}
