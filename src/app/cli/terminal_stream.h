// Every text command's output reaches the terminal through base/terminal_text.h's filter:
// main() holds a TerminalStreams for the command, which puts std::cout (text mode) and
// std::cerr through TerminalFilter. So no renderer (doctor, which, list, current, explain,
// verify, ...) can print a control character, an escape sequence or invalid UTF-8 that came from
// the machine; only the renderers' own colour codes pass. JSON on stdout is left as it is (it is
// valid UTF-8 with control characters escaped by construction, base/json_text.h), and so are
// the child processes' protocols.
#pragma once

#include <iosfwd>
#include <memory>
#include <string_view>

namespace cudnnup {

class TerminalStreams {
 public:
  // filter_stdout: false with --json and in child processes.
  explicit TerminalStreams(bool filter_stdout);
  ~TerminalStreams();
  TerminalStreams(const TerminalStreams&) = delete;
  TerminalStreams& operator=(const TerminalStreams&) = delete;

 private:
  struct Filtered;
  std::unique_ptr<Filtered> out_, err_;
};

// Writes bytes to stdout as they are, past the filter: only for shell code (`env`, `init`),
// whose safety the shell escaper gives (shell/shell_quote.h) and whose bytes must not change.
void write_raw_stdout(std::string_view bytes);

}  // namespace cudnnup
