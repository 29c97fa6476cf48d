// Every needle of the catalogue found in one pass over a text: an Aho-Corasick automaton over the
// lower-cased needles, as a full table over the bytes that occur in needles (every other byte is
// one class), so a step is two lookups in tables that fit the cache. A 1 MB log is scanned in a
// few milliseconds, where searching each of ~140 needles separately read it ~140 times
// (bench/explain_bench.py). ASCII upper case in the text reads as lower case (the table maps 'A'
// to the class of 'a'), so a log is searched as it is, without a lower-cased copy.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnup {

class NeedleScanner {
 public:
  NeedleScanner() = default;
  explicit NeedleScanner(const std::vector<std::string>& needles);  // not empty each; read in lower case

  // Calls on_hit(needle index, offset where it starts) for every occurrence, in text order.
  template <typename OnHit>
  void scan(std::string_view text, OnHit&& on_hit) const {
    if (lengths_.empty()) return;
    uint32_t state = 0;
    for (size_t i = 0; i < text.size(); ++i) {
      state = next_[state * classes_ + class_of_[static_cast<unsigned char>(text[i])]];
      if (!has_output_[state]) continue;
      for (int n : outputs_[state]) on_hit(n, i + 1 - lengths_[n]);
    }
  }
  // The needles of `lines` read as two texts at once, without building either: "spaced", each
  // line followed by a space (a message soft-wrapped at a space), and "tight", the lines with
  // nothing between them (a word a terminal's wrap cut in two, "no CUDA-" / "capable"). Calls
  // on_hit(needle index, tight, offset where it starts in that text), each text's hits in text
  // order. The two automaton states differ only for a few bytes after a line's end, so the lines
  // are read once, with one step per byte where the states agree.
  template <typename OnHit>
  void scan_lines(const std::vector<std::string>& lines, OnHit&& on_hit) const {
    if (lengths_.empty()) return;
    // Local copies: on_hit may write anywhere, so the compiler would reload members each byte.
    const uint32_t* next = next_.data();
    const uint8_t* has_output = has_output_.data();
    const uint8_t* class_of = class_of_.data();
    const size_t classes = classes_;
    auto report = [&](uint32_t state, bool tight, size_t end) {
      for (int n : outputs_[state]) on_hit(n, tight, end + 1 - lengths_[n]);
    };
    uint32_t spaced = 0, tight = 0;
    size_t spaced_start = 0, tight_start = 0;  // where the line starts in each text
    for (const std::string& line : lines) {
      const auto* bytes = reinterpret_cast<const unsigned char*>(line.data());
      size_t i = 0;
      for (; i < line.size() && spaced != tight; ++i) {  // just after a line's end: two states
        spaced = next[spaced * classes + class_of[bytes[i]]];
        tight = next[tight * classes + class_of[bytes[i]]];
        if (has_output[spaced]) report(spaced, false, spaced_start + i);
        if (has_output[tight]) report(tight, true, tight_start + i);
      }
      const bool agree = spaced == tight;
      for (; i < line.size(); ++i) {  // the states agree: one step for both texts
        spaced = next[spaced * classes + class_of[bytes[i]]];
        if (!has_output[spaced]) continue;
        report(spaced, false, spaced_start + i);
        report(spaced, true, tight_start + i);
      }
      if (agree) tight = spaced;
      spaced = next[spaced * classes + class_of[static_cast<unsigned char>(' ')]];
      if (has_output[spaced]) report(spaced, false, spaced_start + line.size());
      spaced_start += line.size() + 1;
      tight_start += line.size();
    }
  }
  size_t size() const { return lengths_.size(); }

 private:
  std::array<uint8_t, 256> class_of_{};     // byte -> class; 0 for bytes in no needle
  uint32_t classes_ = 1;
  std::vector<uint32_t> next_;               // state * classes_ + class -> state
  std::vector<uint8_t> has_output_;          // per state: a needle ends here
  std::vector<std::vector<int>> outputs_;    // needles that end in each state (its own and its suffixes')
  std::vector<size_t> lengths_;              // of each needle
};

}  // namespace cudnnup
