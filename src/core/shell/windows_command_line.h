// Building a Windows command line from an argv list. CreateProcessW takes one string and the
// child's C runtime splits it again (CommandLineToArgvW rules), so every argument must be quoted
// so that it comes back unchanged: spaces, quotes and runs of backslashes before a quote.
// Pure string work, tested on every OS.
#pragma once

#include <string>
#include <vector>

namespace cudnnup {

// One argument, quoted only when it needs to be.
std::string quote_windows_argument(const std::string& arg);
// All arguments, quoted and joined by single spaces.
std::string windows_command_line(const std::vector<std::string>& argv);

}  // namespace cudnnup
