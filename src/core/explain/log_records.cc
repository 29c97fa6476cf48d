#include "explain/log_records.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "base/strings.h"

namespace cudnnup {
namespace {

bool is_inline_space(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }

std::string strip_ansi(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      size_t j = i + 2;
      while (j < text.size() && !(text[j] >= '@' && text[j] <= '~')) ++j;
      i = j;  // skips the final byte too
      continue;
    }
    out += text[i];
  }
  return out;
}

// Typographic quotes (a post pasted through a word processor or chat: ‘libcusolver.so.10’) read
// as the ASCII quotes the frameworks print.
std::string plain_quotes(std::string line) {
  static const std::pair<std::string_view, char> kQuotes[] = {
      {"\xE2\x80\x98", '\''}, {"\xE2\x80\x99", '\''}, {"\xE2\x80\x9C", '"'}, {"\xE2\x80\x9D", '"'}};
  if (line.find('\xE2') == std::string::npos) return line;
  for (const auto& [utf8, ascii] : kQuotes) {
    for (size_t at = line.find(utf8); at != std::string::npos; at = line.find(utf8, at + 1)) {
      line.replace(at, utf8.size(), 1, ascii);
    }
  }
  return line;
}

// "I tensorflow/stream_executor/dso_loader.cc:99] ": glog's level and a source position, with no
// timestamp (TensorFlow 0.x).
bool bare_glog_position(const std::string& line, size_t end) {
  if (line.size() < 3 || line[1] != ' ' || line.find(' ', 2) < end) return false;
  size_t colon = line.rfind(':', end);
  return colon != std::string::npos && colon > 2 && colon + 1 < end && is_ascii_digit(line[colon + 1]);
}

// "E0000 00:00:1751448150.986970   10148 cuda_dnn.cc:8579] ", "2023-10-09 13:36:23.355516: E
// tensorflow/...cc:9342] ", "2024-.. [E:onnxruntime:Default, provider_bridge_ort.cc:1745 ...] ",
// "[07/01/2022-17:03:23] ", "11:10:31.475 [error] ": a line that starts like a timestamp or a
// glog level and has "] " early. Returns whether a prefix was removed.
bool strip_log_prefix(std::string& line) {
  bool stripped = false;
  for (int round = 0; round < 2 && line.size() > 2; ++round) {
    bool level = std::string_view("IWEF").find(line[0]) != std::string_view::npos;
    bool looks_like_prefix = is_ascii_digit(line[0]) || (level && is_ascii_digit(line[1])) || (line[0] == '[' && is_ascii_digit(line[1])) ||
                             (level && line[1] == ' ');
    if (!looks_like_prefix) break;
    size_t end = line.find("] ");
    if (end == std::string::npos || end > 200) break;
    if (level && line[1] == ' ' && !bare_glog_position(line, end)) break;
    line.erase(0, end + 2);
    stripped = true;
  }
  return stripped;
}

bool is_word_char(char c) {
  return is_ascii_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
}

// "RuntimeError: ...", "OSError: [WinError 126] ...", "UserWarning: ...": a dotted name ending in
// Error/Exception/Warning/Failure, an optional bracket, then a colon.
bool python_exception_line(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && is_word_char(line[i])) ++i;
  std::string_view name = line.substr(0, i);
  if (!name.ends_with("Error") && !name.ends_with("Exception") && !name.ends_with("Warning") && !name.ends_with("Failure")) {
    return false;
  }
  if (line.substr(i).starts_with(" [")) {
    size_t close = line.find(']', i);
    if (close == std::string_view::npos) return false;
    i = close + 1;
  }
  return i < line.size() && line[i] == ':';
}

// Lines that begin a record of their own although they carry no log prefix (hand-written rather
// than a regex: this runs on every line of a log of megabytes).
bool starts_own_record(std::string_view line) {
  if (line.empty() || line.starts_with("Traceback (most recent call last)")) return true;
  if (line.starts_with("File \"") && line.find("\", line ") != std::string_view::npos) return true;
  for (std::string_view level : {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}) {
    if (line.starts_with(level) && (line.substr(level.size()).starts_with(":") || line.substr(level.size()).starts_with("  "))) {
      return true;
    }
  }
  if (line.size() > 2 && std::string_view("EWIV").find(line[0]) != std::string_view::npos && line.substr(1).starts_with(":onnxruntime:")) {
    return true;
  }
  return python_exception_line(line);
}

// One cleaned line, and whether it starts a record.
std::pair<std::string, bool> clean_line(std::string_view raw) {
  // indentation, "> " quote markers, and the backticks of a Markdown code span around a pasted line
  while (!raw.empty() && (is_inline_space(raw.front()) || raw.front() == '>' || raw.front() == '`')) raw.remove_prefix(1);
  while (!raw.empty() && (is_inline_space(raw.back()) || raw.back() == '`')) raw.remove_suffix(1);
  std::string line = plain_quotes(std::string(raw));
  bool prefixed = strip_log_prefix(line);
  while (!line.empty() && is_inline_space(line.back())) line.pop_back();
  return {std::move(line), prefixed || starts_own_record(line)};
}

}  // namespace

LogLines normalise_log(std::string_view text) {
  const bool ansi = text.find('\x1b') != std::string_view::npos;
  const std::string without_ansi = ansi ? strip_ansi(text) : std::string();
  std::string_view plain = ansi ? std::string_view(without_ansi) : text;
  LogLines out;
  size_t estimate = 1;  // lines: counted with memchr, several bytes a step, where std::count took one
  for (const char* at = plain.data(); const void* nl = std::memchr(at, '\n', size_t(plain.data() + plain.size() - at));) {
    ++estimate;
    at = static_cast<const char*>(nl) + 1;
  }
  out.text.reserve(estimate);
  out.starts_record.reserve(estimate);
  auto push = [&out](std::string_view raw) {
    auto [line, starts] = clean_line(raw);
    out.text.push_back(std::move(line));
    out.starts_record.push_back(starts);
  };
  // Lines end at LF, CRLF or a lone CR. Without any CR (most logs), memchr finds each end; the
  // generic find_first_of compares every byte against both characters.
  const bool any_cr = plain.find('\r') != std::string_view::npos;
  auto line_end = [&](size_t from) {
    if (any_cr) return plain.find_first_of("\r\n", from);
    const void* nl = std::memchr(plain.data() + from, '\n', plain.size() - from);
    return nl ? size_t(static_cast<const char*>(nl) - plain.data()) : std::string_view::npos;
  };
  size_t start = 0;
  while (start < plain.size()) {
    size_t end = line_end(start);
    if (end == std::string_view::npos) {
      push(plain.substr(start));
      break;
    }
    push(plain.substr(start, end - start));
    start = end + (plain[end] == '\r' && end + 1 < plain.size() && plain[end + 1] == '\n' ? 2 : 1);
  }
  return out;
}

JoinedLines::JoinedLines(const std::vector<std::string>& lines, size_t joiner_size) {
  starts_.reserve(lines.size() + 1);
  lengths_.reserve(lines.size());
  size_t at = 0;
  for (const auto& l : lines) {
    starts_.push_back(at);
    lengths_.push_back(l.size());
    at += l.size() + joiner_size;
  }
  starts_.push_back(at);
}

std::pair<int, size_t> JoinedLines::locate(size_t pos) const {
  int line = int(std::upper_bound(starts_.begin(), starts_.end(), pos) - starts_.begin()) - 1;
  line = std::clamp(line, 0, int(lengths_.size()) - 1);
  return {line, std::min(pos - starts_[line], lengths_[line])};
}

std::vector<int> continuation_lines(const LogLines& lines, int line, int max_more, size_t max_line) {
  std::vector<int> more;
  for (int k = line + 1; k <= line + max_more && k < int(lines.size()); ++k) {
    if (lines.starts_record[k] || lines.text[k].size() > max_line) break;
    more.push_back(k);
  }
  return more;
}

}  // namespace cudnnup
