// Every needle of the catalogue found in one pass over a text: an Aho-Corasick automaton over the
// lower-cased needles, as a full table over the bytes that occur in needles (every other byte is
// one class), so a step is two lookups in tables that fit the cache. A 1 MB log is scanned in a
// few milliseconds, where searching each of ~140 needles separately read it ~140 times
// (bench/explain_bench.py).
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
  explicit NeedleScanner(const std::vector<std::string>& needles);  // not empty each

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
