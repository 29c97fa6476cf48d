#include "base/version.h"

#include <charconv>

namespace cudnnup {

std::optional<Version> Version::parse(std::string_view text) {
  Version v;
  if (text.empty()) return std::nullopt;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t dot = text.find('.', pos);
    std::string_view part = text.substr(pos, dot == std::string_view::npos ? text.size() - pos : dot - pos);
    if (part.empty() || part.size() > 9) return std::nullopt;
    int value = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (ec != std::errc() || end != part.data() + part.size()) return std::nullopt;
    v.parts.push_back(value);
    if (dot == std::string_view::npos) break;
    pos = dot + 1;
  }
  return v;
}

std::string Version::str() const {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += '.';
    out += std::to_string(parts[i]);
  }
  return out;
}

Version Version::truncated(size_t n) const {
  Version v;
  for (size_t i = 0; i < n && i < parts.size(); ++i) v.parts.push_back(parts[i]);
  return v;
}

std::strong_ordering Version::operator<=>(const Version& other) const {
  size_t n = std::max(parts.size(), other.parts.size());
  for (size_t i = 0; i < n; ++i) {
    if (auto c = at(i) <=> other.at(i); c != 0) return c;
  }
  return std::strong_ordering::equal;
}

bool Version::has_prefix(const Version& prefix) const {
  if (prefix.parts.size() > parts.size()) return false;
  for (size_t i = 0; i < prefix.parts.size(); ++i) {
    if (parts[i] != prefix.parts[i]) return false;
  }
  return true;
}

bool versions_name_each_other(const Version& a, const Version& b) {
  const Version& shorter = a.parts.size() <= b.parts.size() ? a : b;
  const Version& longer = &shorter == &a ? b : a;
  return shorter.parts.size() >= 3 && longer.has_prefix(shorter);
}

Version decode_cudnn_version_number(long long value) {
  if (value <= 0) return {};
  if (value >= 90000) return Version{int(value / 10000), int(value / 100 % 100), int(value % 100)};
  return Version{int(value / 1000), int(value / 100 % 10), int(value % 100)};
}

Version decode_cuda_version_number(long long value) {
  if (value <= 0) return {};
  return Version{int(value / 1000), int(value % 1000 / 10)};
}

}  // namespace cudnnup
