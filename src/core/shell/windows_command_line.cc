#include "shell/windows_command_line.h"

namespace cudnnup {

// The rules (Microsoft, "Parsing C++ command-line arguments"): inside quotes, 2n backslashes
// before a quote mean n backslashes and the quote ends the argument; 2n+1 backslashes before a
// quote mean n backslashes and a literal quote; backslashes elsewhere are literal.
std::string quote_windows_argument(const std::string& arg) {
  if (!arg.empty() && arg.find_first_of(" \t\n\v\"") == std::string::npos) return arg;
  std::string out = "\"";
  size_t backslashes = 0;
  for (char c : arg) {
    if (c == '\\') {
      ++backslashes;
      continue;
    }
    if (c == '"') {
      out.append(backslashes * 2 + 1, '\\');
    } else {
      out.append(backslashes, '\\');
    }
    backslashes = 0;
    out += c;
  }
  // Backslashes before the closing quote are doubled so the quote stays a delimiter.
  out.append(backslashes * 2, '\\');
  out += '"';
  return out;
}

std::string windows_command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (i) out += ' ';
    out += quote_windows_argument(argv[i]);
  }
  return out;
}

}  // namespace cudnnup
