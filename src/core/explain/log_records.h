// A log as records: the lines `cudnnup explain` searches, cleaned (CRLF/CR, ANSI colour codes,
// quote markers, indentation and log prefixes removed), each marked where a new record starts,
// so that a message wrapped over several lines is read whole and never joined with the next,
// unrelated record (a timestamped line, a Python traceback, an exception line, a blank line).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cudnnup {

struct LogLines {
  std::vector<std::string> text;    // cleaned lines
  std::vector<bool> starts_record;  // same size: this line cannot continue the line before it
  size_t size() const { return text.size(); }
};

// Cleans and marks the lines. A record starts at a line that had a log prefix (glog/absl
// "E0000 00:00:...] ", TensorFlow "2024-.. W tensorflow/...cc:12] " and its 2016 form
// "I tensorflow/...cc:99] ", ONNX Runtime "[E:onnxruntime:...] ", "[07/01/2022-17:03:23] ",
// "11:10:31.475 [error] "), at "Traceback (most recent call last):", a traceback's `File "...",
// line N`, a Python exception or warning line ("RuntimeError: ...", "UserWarning: ..."), and at a
// blank line; any other line may continue the record before it (a terminal's wrap, a message
// printed over several lines).
LogLines normalise_log(std::string_view text);

// Where each line starts in the lines joined into one text (by a space, joiner_size 1, or by
// nothing, 0; NeedleScanner::scan_lines reads them so without building the text), to tell the
// line of an offset in it.
class JoinedLines {
 public:
  JoinedLines(const std::vector<std::string>& lines, size_t joiner_size);
  // The line an offset is on, and the offset within that line (capped to the line's length:
  // with no joiner a needle may start in one line and end in the next).
  std::pair<int, size_t> locate(size_t pos) const;

 private:
  std::vector<size_t> starts_;  // offset of each line, plus the end
  std::vector<size_t> lengths_;
};

// The lines a message starting on `line` may continue onto: the next ones up to `max_more`,
// while they do not start a record of their own and are not longer than `max_line`.
std::vector<int> continuation_lines(const LogLines& lines, int line, int max_more, size_t max_line);

}  // namespace cudnnup
