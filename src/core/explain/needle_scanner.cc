#include "explain/needle_scanner.h"

#include <queue>

#include "base/strings.h"

namespace cudnnup {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

}  // namespace

NeedleScanner::NeedleScanner(const std::vector<std::string>& given) {
  std::vector<std::string> needles;
  needles.reserve(given.size());
  for (const auto& n : given) needles.push_back(ascii_lower(n));
  for (const auto& n : needles) {
    for (unsigned char c : n) {
      if (class_of_[c] == 0 && classes_ < 255) class_of_[c] = uint8_t(classes_++);
    }
  }
  for (char c = 'A'; c <= 'Z'; ++c) class_of_[static_cast<unsigned char>(c)] = class_of_[static_cast<unsigned char>(ascii_lower(c))];
  // The trie, with kNone for "no edge" until the failure links fill the table.
  size_t most_states = 1;
  for (const auto& n : needles) most_states += n.size();
  next_.reserve(most_states * classes_);
  outputs_.reserve(most_states);
  next_.assign(classes_, kNone);
  outputs_.emplace_back();
  for (size_t n = 0; n < needles.size(); ++n) {
    uint32_t state = 0;
    for (unsigned char c : needles[n]) {
      size_t at = size_t(state) * classes_ + class_of_[c];
      if (next_[at] == kNone) {
        next_[at] = uint32_t(outputs_.size());
        next_.resize(next_.size() + classes_, kNone);
        outputs_.emplace_back();
      }
      state = next_[at];
    }
    outputs_[state].push_back(int(n));
    lengths_.push_back(needles[n].size());
  }
  // Breadth first: a missing edge goes where the longest proper suffix's edge goes, and a state
  // reports the needles of its suffixes too.
  std::vector<uint32_t> fail(outputs_.size(), 0);
  std::queue<uint32_t> todo;
  for (uint32_t c = 0; c < classes_; ++c) {
    uint32_t& edge = next_[c];
    if (edge == kNone) {
      edge = 0;
    } else {
      todo.push(edge);
    }
  }
  while (!todo.empty()) {
    uint32_t state = todo.front();
    todo.pop();
    const auto& inherited = outputs_[fail[state]];
    outputs_[state].insert(outputs_[state].end(), inherited.begin(), inherited.end());
    for (uint32_t c = 0; c < classes_; ++c) {
      uint32_t& edge = next_[size_t(state) * classes_ + c];
      uint32_t via_fail = next_[size_t(fail[state]) * classes_ + c];
      if (edge == kNone) {
        edge = via_fail;
      } else {
        fail[edge] = via_fail;
        todo.push(edge);
      }
    }
  }
  has_output_.resize(outputs_.size());
  for (size_t s = 0; s < outputs_.size(); ++s) has_output_[s] = !outputs_[s].empty();
}

}  // namespace cudnnup
