#include "app/cli/terminal_stream.h"

#include <iostream>
#include <streambuf>
#include <string>

#include "base/terminal_text.h"

namespace cudnnup {
namespace {

// The unfiltered stdout while a TerminalStreams is in place (for write_raw_stdout).
std::streambuf* g_raw_stdout = nullptr;

}  // namespace

// Outside the anonymous namespace: TerminalStreams::Filtered (declared in the header) holds one.
class TerminalFilterBuf : public std::streambuf {
 public:
  explicit TerminalFilterBuf(std::streambuf* target) : target_(target) {}
  void finish() {
    write(filter_.finish());
    target_->pubsync();
  }

 protected:
  int overflow(int ch) override {
    if (ch == traits_type::eof()) return 0;
    char c = static_cast<char>(ch);
    write(filter_.feed(std::string_view(&c, 1)));
    return ch;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    write(filter_.feed(std::string_view(s, static_cast<size_t>(n))));
    return n;
  }
  int sync() override { return target_->pubsync(); }

 private:
  void write(const std::string& s) {
    if (!s.empty()) target_->sputn(s.data(), static_cast<std::streamsize>(s.size()));
  }
  std::streambuf* target_;
  TerminalFilter filter_;
};

struct TerminalStreams::Filtered {
  Filtered(std::ostream& stream) : stream(stream), original(stream.rdbuf()), buf(original) { stream.rdbuf(&buf); }
  ~Filtered() {
    stream.flush();
    buf.finish();
    stream.rdbuf(original);
  }
  std::ostream& stream;
  std::streambuf* original;
  TerminalFilterBuf buf;
};

TerminalStreams::TerminalStreams(bool filter_stdout) {
  if (filter_stdout) {
    out_ = std::make_unique<Filtered>(std::cout);
    g_raw_stdout = out_->original;
  }
  err_ = std::make_unique<Filtered>(std::cerr);
}

TerminalStreams::~TerminalStreams() {
  err_.reset();
  out_.reset();
  g_raw_stdout = nullptr;
}

void write_raw_stdout(std::string_view bytes) {
  std::cout.flush();
  std::streambuf* raw = g_raw_stdout ? g_raw_stdout : std::cout.rdbuf();
  raw->sputn(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  raw->pubsync();
}

}  // namespace cudnnup
